// Expiry rules: the cleanup cycle, stale heap entries, no double decrement, saturation (C2).
#include <limits>

#include "model_fixture.h"

namespace pinsim::test {

TEST_F(ModelTest, Cleanup_NothingBeforeDeadlineResetAtDeadline) {
  ASSERT_EQ(put(1, enable(5000)), ErrorCode::OK);
  ASSERT_EQ(put(2, enable(5000)), ErrorCode::OK);
  ASSERT_EQ(put(3, enable(9000)), ErrorCode::OK);
  const Time d = now + 5000;
  EXPECT_EQ(gauge(), 3);
  now = d - 1;
  cleanup();
  EXPECT_EQ(deadline(1), d);
  EXPECT_EQ(deadline(2), d);
  EXPECT_EQ(gauge(), 3);
  now = d;
  cleanup();
  EXPECT_EQ(deadline(1), std::nullopt);
  EXPECT_EQ(deadline(2), std::nullopt);
  EXPECT_EQ(deadline(3), 1000 + 9000);
  EXPECT_EQ(gauge(), 1);
  EXPECT_TRUE(exists_in_view(1));  // the object stays, as ordinary cache
}

TEST_F(ModelTest, Cleanup_OldDeadlineDoesNotClearReEnabledPin) {
  ASSERT_EQ(put(1, enable(1000)), ErrorCode::OK);
  const Time d1 = now + 1000;
  advance(100);
  ASSERT_EQ(upsert_start(1, enable(20000)), ErrorCode::OK);
  ASSERT_EQ(end(1), ErrorCode::OK);
  const Time d2 = now + 20000;
  now = d1;
  cleanup();
  EXPECT_EQ(deadline(1), d2);
  EXPECT_EQ(gauge(), 1);
}

TEST_F(ModelTest, Cleanup_OldDeadlineDoesNotClearPinOfRecreatedObject) {
  ASSERT_EQ(put(1, enable(1000)), ErrorCode::OK);
  const Time d1 = now + 1000;
  ASSERT_EQ(remove(1, true), ErrorCode::OK);
  EXPECT_EQ(gauge(), 0);
  advance(100);
  ASSERT_EQ(put(1, enable(20000)), ErrorCode::OK);
  const Time d2 = now + 20000;
  now = d1;
  cleanup();
  EXPECT_EQ(deadline(1), d2);
  EXPECT_EQ(gauge(), 1);
}

TEST_F(ModelTest, Cleanup_AfterLazyExpiryNeverDecrementsTwice) {
  ASSERT_EQ(put(1, enable(100)), ErrorCode::OK);
  advance(500);
  evict(0, 0);  // lazy normalisation: -1
  EXPECT_EQ(gauge(), 0);
  cleanup();
  EXPECT_EQ(gauge(), 0);
  ASSERT_EQ(remove(1, true), ErrorCode::OK);
  EXPECT_EQ(gauge(), 0);
}

TEST_F(ModelTest, Cleanup_ThenRemoveNeverDecrementsTwice) {
  ASSERT_EQ(put(1, enable(100)), ErrorCode::OK);
  advance(100);
  cleanup();
  EXPECT_EQ(gauge(), 0);
  ASSERT_EQ(remove(1, true), ErrorCode::OK);
  EXPECT_EQ(gauge(), 0);
}

TEST_F(ModelTest, SatC2_MaxTtlSaturatesAndIsNeverCleanedUp) {
  config.max_kv_soft_pin_ttl_ms = std::numeric_limits<uint64_t>::max();
  reset();
  ASSERT_EQ(put(1, enable(std::numeric_limits<uint64_t>::max())), ErrorCode::OK);
  EXPECT_EQ(deadline(1), kTimeMax);
  EXPECT_EQ(gauge(), 1);
  now = kTimeMax - 1;
  cleanup();
  evict(0, 0);
  EXPECT_EQ(deadline(1), kTimeMax);
  EXPECT_EQ(gauge(), 1);
}

TEST_F(ModelTest, SatC2_TtlReachingPastTimeMaxSaturates) {
  config.max_kv_soft_pin_ttl_ms = std::numeric_limits<uint64_t>::max();
  reset();
  now = kTimeMax - 10;
  ASSERT_EQ(put(1, enable(11)), ErrorCode::OK);
  EXPECT_EQ(deadline(1), kTimeMax);
  ASSERT_EQ(put(2, enable(10)), ErrorCode::OK);
  EXPECT_EQ(deadline(2), kTimeMax);  // exactly representable
  ASSERT_EQ(put(3, enable(9)), ErrorCode::OK);
  EXPECT_EQ(deadline(3), kTimeMax - 1);
}

}  // namespace pinsim::test
