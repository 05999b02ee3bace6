// Request rules R1-R5, config rule C1, and bad input that must be refused without a crash or a change.
#include <limits>

#include "model_fixture.h"

namespace pinsim::test {

// An existing pinned object and a write in flight, so that "nothing changed"
// covers committed, pending, leases and the gauge.
class RequestRulesTest : public ModelTest {
 protected:
  void SetUp() override {
    ModelTest::SetUp();
    ASSERT_EQ(put(1, enable(5000)), ErrorCode::OK);
    ASSERT_EQ(put_start(2, enable(7000)), ErrorCode::OK);
    advance(10);
  }
  // Start (Put on a new key, Upsert on the existing one) must be refused
  // with INVALID_PARAMS and leave the whole view as it was.
  void expect_rejected(SoftPinRequest req) {
    const View before = m().view(now);
    EXPECT_EQ(put_start(3, req), ErrorCode::INVALID_PARAMS);
    EXPECT_EQ(upsert_start(1, req), ErrorCode::INVALID_PARAMS);
    EXPECT_EQ(upsert_start(1, req, 128), ErrorCode::INVALID_PARAMS);
    EXPECT_EQ(upsert_start(2, req, 64, 1, 0, 0, /*client=*/2), ErrorCode::INVALID_PARAMS);
    EXPECT_EQ(m().view(now), before);
  }
};

TEST_F(RequestRulesTest, ReqR1_PreserveWithTtlRejected) {
  expect_rejected({static_cast<uint8_t>(SoftPinAction::Preserve), 1000});
  expect_rejected({static_cast<uint8_t>(SoftPinAction::Preserve), 0});
}

TEST_F(RequestRulesTest, ReqR2_DisableWithTtlRejected) {
  expect_rejected({static_cast<uint8_t>(SoftPinAction::Disable), 1000});
  expect_rejected({static_cast<uint8_t>(SoftPinAction::Disable), 0});
}

TEST_F(ModelTest, ReqR3_EnableWithoutTtlUsesMasterDefault) {
  config.default_kv_soft_pin_ttl_ms = 7000;
  reset();
  ASSERT_EQ(put_start(1, enable()), ErrorCode::OK);
  EXPECT_EQ(obj(1)->pending, pending_view(SoftPinAction::Enable, 7000, 1));
  advance(100);
  ASSERT_EQ(end(1), ErrorCode::OK);
  EXPECT_EQ(deadline(1), now + 7000);
}

TEST_F(ModelTest, ReqR3_DefaultTtlOutOfTheBoxIsThirtyMinutes) {
  ASSERT_EQ(put(1, enable()), ErrorCode::OK);
  EXPECT_EQ(deadline(1), now + 30 * 60 * 1000);
}

TEST_F(RequestRulesTest, ReqR4_TtlAboveMaxRejected) {
  expect_rejected(enable(config.max_kv_soft_pin_ttl_ms + 1));
  expect_rejected(enable(std::numeric_limits<uint64_t>::max()));
}

TEST_F(ModelTest, ReqR4_TtlExactlyMaxAccepted) {
  const uint64_t max = config.max_kv_soft_pin_ttl_ms;
  ASSERT_EQ(put(1, enable(max)), ErrorCode::OK);
  EXPECT_EQ(deadline(1), now + static_cast<Time>(max));
  EXPECT_EQ(gauge(), 1);
}

TEST_F(ModelTest, ReqR4_TtlZeroAccepted) {
  ASSERT_EQ(put_start(1, enable(0)), ErrorCode::OK);
  EXPECT_EQ(obj(1)->pending, pending_view(SoftPinAction::Enable, 0, 1));
  ASSERT_EQ(end(1), ErrorCode::OK);
  EXPECT_EQ(deadline(1), std::nullopt);
  EXPECT_EQ(gauge(), 0);
}

TEST_F(RequestRulesTest, ReqR5_UnknownActionRejected) {
  expect_rejected({3, std::nullopt});
  expect_rejected({255, std::nullopt});
  expect_rejected({255, 1000});
}

TEST_F(RequestRulesTest, Request_StructuralChecksRejected) {
  const View before = m().view(now);
  EXPECT_EQ(put_start(3, enable(1000), /*size=*/0), ErrorCode::INVALID_PARAMS);
  EXPECT_EQ(put_start(3, enable(1000), 64, /*mem=*/0, /*nof=*/0), ErrorCode::INVALID_PARAMS);
  EXPECT_EQ(upsert_start(1, enable(1000), 0), ErrorCode::INVALID_PARAMS);
  EXPECT_EQ(m().view(now), before);
}

TEST_F(ModelTest, ConfigC1_CreateRefusesDefaultAboveMax) {
  Config bad;
  bad.default_kv_soft_pin_ttl_ms = 2000;
  bad.max_kv_soft_pin_ttl_ms = 1999;
  auto created = Model::create(bad);
  ASSERT_TRUE(std::holds_alternative<std::string>(created));
  const std::string& reason = std::get<std::string>(created);
  EXPECT_NE(reason.find("default_kv_soft_pin_ttl"), std::string::npos) << reason;
  EXPECT_NE(reason.find("2000"), std::string::npos) << reason;
  EXPECT_NE(reason.find("1999"), std::string::npos) << reason;
  Config equal;
  equal.default_kv_soft_pin_ttl_ms = equal.max_kv_soft_pin_ttl_ms = 2000;
  EXPECT_TRUE(std::holds_alternative<Model>(Model::create(equal)));
}

// ---- Bad input never crashes and changes nothing -----------------------------

TEST_F(RequestRulesTest, BadInput_UnknownOpKind) {
  const View before = m().view(now);
  Op op = key_op(static_cast<OpKind>(200), 1);
  EXPECT_EQ(apply(op).code, ErrorCode::INVALID_PARAMS);
  EXPECT_EQ(m().view(now), before);
}

TEST_F(RequestRulesTest, BadInput_TimeGoingBackwards) {
  const View before = m().view(now);
  EXPECT_EQ(m().apply(key_op(OpKind::Remove, 1), now - 5).code, ErrorCode::INVALID_PARAMS);
  EXPECT_EQ(m().apply(key_op(OpKind::PutEnd, 2), -1).code, ErrorCode::INVALID_PARAMS);
  EXPECT_EQ(m().apply({.kind = OpKind::Advance}, now + 100).code, ErrorCode::OK);
  // Once time has moved on, any op stamped earlier is refused, cleanup included.
  EXPECT_EQ(m().apply({.kind = OpKind::Cleanup}, now).code, ErrorCode::INVALID_PARAMS);
  EXPECT_EQ(m().apply(key_op(OpKind::PutEnd, 2), now + 99).code, ErrorCode::INVALID_PARAMS);
  EXPECT_EQ(m().view(now), before);
}

TEST_F(RequestRulesTest, BadInput_OpsOnMissingKey) {
  const View before = m().view(now);
  EXPECT_EQ(end(9), ErrorCode::OBJECT_NOT_FOUND);
  EXPECT_EQ(apply(key_op(OpKind::UpsertEnd, 9)).code, ErrorCode::OBJECT_NOT_FOUND);
  EXPECT_EQ(revoke(9), ErrorCode::OBJECT_NOT_FOUND);
  EXPECT_EQ(apply(key_op(OpKind::UpsertRevoke, 9)).code, ErrorCode::OBJECT_NOT_FOUND);
  EXPECT_EQ(get(9).code, ErrorCode::OBJECT_NOT_FOUND);
  EXPECT_FALSE(exist(9));
  EXPECT_EQ(remove(9), ErrorCode::OBJECT_NOT_FOUND);
  EXPECT_EQ(remove(9, true), ErrorCode::OBJECT_NOT_FOUND);
  EXPECT_EQ(end(1, ReplicaSelector::All, 1, /*tenant=*/5), ErrorCode::OBJECT_NOT_FOUND);
  EXPECT_EQ(m().view(now), before);
}

TEST_F(RequestRulesTest, BadInput_EvictPercentAbove100) {
  advance(20000);  // every lease expired: a real evict would take objects
  const View before = m().view(now);
  EXPECT_EQ(apply({.kind = OpKind::Evict, .evict_target_pct = 101}).code, ErrorCode::INVALID_PARAMS);
  EXPECT_EQ(apply({.kind = OpKind::Evict, .evict_target_pct = 50, .evict_lowerbound_pct = 1000}).code,
            ErrorCode::INVALID_PARAMS);
  EXPECT_EQ(apply({.kind = OpKind::Evict, .evict_target_pct = 0xffffffffu,
                   .evict_lowerbound_pct = 0xffffffffu}).code,
            ErrorCode::INVALID_PARAMS);
  EXPECT_EQ(m().view(now), before);
}

TEST_F(RequestRulesTest, BadInput_WrongClientAndWrongStateRefused) {
  const View before = m().view(now);
  EXPECT_EQ(end(2, ReplicaSelector::All, /*client=*/9), ErrorCode::ILLEGAL_CLIENT);
  EXPECT_EQ(revoke(2, ReplicaSelector::All, /*client=*/9), ErrorCode::ILLEGAL_CLIENT);
  EXPECT_EQ(revoke(1), ErrorCode::INVALID_WRITE);  // not processing
  EXPECT_EQ(end(1, ReplicaSelector::Nof), ErrorCode::INVALID_WRITE);  // no NoF replica
  EXPECT_EQ(put_start(1, enable(1000)), ErrorCode::OBJECT_ALREADY_EXISTS);
  EXPECT_EQ(put_start(2, enable(1000)), ErrorCode::OBJECT_ALREADY_EXISTS);  // not yet stale
  EXPECT_EQ(m().view(now), before);
}

}  // namespace pinsim::test
