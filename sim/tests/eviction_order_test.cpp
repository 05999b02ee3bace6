// The runner's tolerance for an unspecified eviction scan order (Mooncake's
// second pass starts at a random shard, and so does a write's quota
// eviction): a target's choice among admissible victims is accepted and
// followed by the model, even where it decides the write's outcome; a victim
// set the rules do not allow is still reported; and a target that does not
// declare the order open gets no tolerance at all.
#include <gtest/gtest.h>

#include <algorithm>
#include <variant>

#include "runner.h"
#include "testing/ops.h"

namespace pinsim {

namespace {

// A model that scans in reverse key order on every eviction (a different,
// admissible choice), and may itself be configured more permissively than
// the run's model (an inadmissible choice).
class ReverseScanTarget final : public Target {
 public:
  ReverseScanTarget(const Config& config, bool order_open)
      : model_(std::get<Model>(Model::create(config))), order_open_(order_open) {}
  std::string_view name() const override { return "reverse-scan"; }
  Capabilities capabilities() const override { return kCapAll; }
  bool eviction_order_unspecified() const override { return order_open_; }
  Outcome apply(const Op& op, Time now) override {
    if (model_.may_evict(op)) {  // an evict, or a start's quota eviction
      std::vector<ObjectId> reverse;
      for (const auto& [id, obj] : model_.objects()) reverse.insert(reverse.begin(), id);
      model_.scan_first_in_next_eviction(reverse);
    }
    return model_.apply(op, now);
  }
  View view(Time now) const override {
    View v = model_.view(now);
    v.cached += static_cast<uint64_t>(cached_skew);
    return v;
  }
  int64_t cached_skew = 0;  // the cached-objects gauge off by this much

 private:
  Model model_;
  bool order_open_;
};

Op put_start(KeyId key, std::optional<uint64_t> ttl, uint64_t size = 32, uint32_t replicas = 1) {
  Op op;
  op.kind = OpKind::PutStart;
  op.client = 1;
  op.object = {0, key};
  op.size = size;
  op.memory_replicas = replicas;
  op.soft_pin = {static_cast<uint8_t>(SoftPinAction::Enable), ttl};
  return op;
}

Op put_end(KeyId key) {
  Op op;
  op.kind = OpKind::PutEnd;
  op.client = 1;
  op.object = {0, key};
  return op;
}

// After two soft-pinned objects with equal (expired) leases, the second pass
// must take one of them (found against Mooncake main, swarm seeds 257, 540,
// 965).
using testing::evict;

std::optional<Failure> run(Lockstep& lockstep) {
  for (const Op& op : {put_start(2, std::nullopt), put_end(2), put_start(0, 1), put_end(0), evict(100, 15)})
    if (auto f = lockstep.step(op, std::nullopt, nullptr)) return f;
  return std::nullopt;
}

bool has_key(const Model& m, KeyId k) { return m.objects().contains({0, k}); }

}  // namespace

TEST(EvictionOrder, AnAdmissibleChoiceIsFollowed) {
  Config config;
  ReverseScanTarget target(config, true);
  Lockstep lockstep(config, target);
  EXPECT_FALSE(run(lockstep));
  // Key order would have evicted k0; the target took k2 and the model followed.
  EXPECT_TRUE(has_key(lockstep.model(), 0));
  EXPECT_FALSE(has_key(lockstep.model(), 2));
}

// A standing offset (the cached-objects gauge one low from the first step,
// a known finding the run went on past) does not keep the model from
// following the choice: the alternative is compared with the offset taken
// off, as the step's own comparison is (preset expiry, seed 1831).
TEST(EvictionOrder, AChoiceIsFollowedWhileAnOffsetStands) {
  Config config;
  ReverseScanTarget target(config, true);
  target.cached_skew = -1;
  Checks checks;
  checks.goes_on = [](const Failure& f, const Trace&, std::string_view) -> std::optional<WentOnPast> {
    return WentOnPast{f.step, "F.json", "view/put_start/cached", {}, {}};
  };
  Lockstep lockstep(config, target, checks);
  Trace trace;
  for (const Op& op : {put_start(2, std::nullopt), put_end(2), put_start(0, 1), put_end(0), evict(100, 15)})
    EXPECT_FALSE(lockstep.step(op, std::nullopt, &trace));
  EXPECT_EQ(lockstep.went_on().size(), 1u);
  EXPECT_TRUE(has_key(lockstep.model(), 0));
  EXPECT_FALSE(has_key(lockstep.model(), 2));
}

TEST(EvictionOrder, NoToleranceUnlessTheTargetDeclaresIt) {
  Config config;
  ReverseScanTarget target(config, false);
  Lockstep lockstep(config, target);
  const auto f = run(lockstep);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->what, "view");
  EXPECT_EQ(f->step, 4u);
}

TEST(EvictionOrder, AnInadmissibleVictimIsStillReported) {
  Config config;
  config.allow_evict_soft_pinned_objects = false;  // no pinned object may go
  Config permissive = config;
  permissive.allow_evict_soft_pinned_objects = true;
  ReverseScanTarget target(permissive, true);
  Lockstep lockstep(config, target);
  const auto f = run(lockstep);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->what, "view");
  EXPECT_EQ(f->step, 4u);
}

// Two 64-byte segments under a 128-byte quota hold k2 (32 bytes on each)
// and k0 (32 bytes on one): a 64-byte Put is refused for quota, and its
// quota eviction frees 32 bytes. Key order takes k0, after which no segment
// has 64 bytes free (NO_AVAILABLE_HANDLE); the reverse order takes k2, and
// the retry fits (OK). Found against Mooncake main, preset expiry, seed 49064.
TEST(EvictionOrder, AQuotaEvictionChoiceThatDecidesTheOutcomeIsFollowed) {
  Config config;
  config.segments = {{ReplicaKind::Memory, 64}, {ReplicaKind::Memory, 64}};
  config.multi_tenant = true;
  config.tenant_quota_bytes = {{0, 128}};
  ReverseScanTarget target(config, true);
  Lockstep lockstep(config, target);
  for (const Op& op : {put_start(2, std::nullopt, 32, 2), put_start(0, std::nullopt), put_end(0), put_end(2),
                       put_start(1, std::nullopt, 64)})
    EXPECT_FALSE(lockstep.step(op, std::nullopt, nullptr));
  EXPECT_TRUE(has_key(lockstep.model(), 0));
  EXPECT_FALSE(has_key(lockstep.model(), 2));
  EXPECT_TRUE(has_key(lockstep.model(), 1));
}

}  // namespace pinsim
