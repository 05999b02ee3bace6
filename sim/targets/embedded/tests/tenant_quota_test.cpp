// Multi-tenant mode and hard pins in the embedded master, driven in lockstep
// with the model: each scenario states the outcome and charges the rules give
// (tenant.*, hardpin.*), and every step's outcome and View must also agree
// with the model's. Then the quota accounts' arithmetic on its own, and a
// seed budget of the `quotas` preset.
#include <gtest/gtest.h>

#include "campaign.h"
#include "embedded_master.h"
#include "embedded_target.h"
#include "property.h"
#include "runner.h"
#include "tenant_quota.h"
#include "testing/ops.h"

namespace pinsim {
namespace {

Op start(OpKind kind, KeyId key, uint64_t size, bool hard = false, TenantId tenant = 0) {
  Op op;
  op.kind = kind;
  op.client = 1;
  op.object = {tenant, key};
  op.size = size;
  op.memory_replicas = 1;
  op.hard_pin = hard;
  return op;
}
Op put(KeyId key, uint64_t size, bool hard = false, TenantId tenant = 0) {
  return start(OpKind::PutStart, key, size, hard, tenant);
}
Op upsert(KeyId key, uint64_t size, bool hard = false) { return start(OpKind::UpsertStart, key, size, hard); }
Op on_key(OpKind kind, KeyId key, TenantId tenant = 0) {
  Op op;
  op.kind = kind;
  op.client = 1;
  op.object = {tenant, key};
  return op;
}
Op pinned(Op op, uint64_t ttl_ms) {
  op.soft_pin = {static_cast<uint8_t>(SoftPinAction::Enable), ttl_ms};
  return op;
}
Op grouped(Op op, GroupId group) {
  op.group = group;
  return op;
}
using testing::advance;
using testing::evict;

Config multi_tenant(std::map<TenantId, uint64_t> quotas) {
  Config c;
  c.multi_tenant = true;
  c.tenant_quota_bytes = std::move(quotas);
  return c;
}

// The embedded master beside the model, every property checked on both.
class Lockstepped {
 public:
  explicit Lockstepped(const Config& config)
      : target_(config, embedded::Faults{}), run_(config, target_, Checks{all_properties(), true}) {}

  // Applies `op` on both sides; fails the test on any difference; returns the code.
  ErrorCode step(const Op& op) {
    Trace t;
    const auto failure = run_.step(op, std::nullopt, &t);
    EXPECT_FALSE(failure) << "step " << failure->step << " " << failure->what << ": " << failure->detail
                          << "\n expected " << failure->expected << "\n actual   " << failure->actual;
    return t.steps.back().expect->code;
  }
  void write(const Op& start_op) {  // start + end, both OK
    ASSERT_EQ(step(start_op), ErrorCode::OK);
    ASSERT_EQ(step(on_key(OpKind::PutEnd, start_op.object.key, start_op.object.tenant)), ErrorCode::OK);
  }
  std::vector<UsageView> usage() const { return target_.view(run_.now()).usage; }
  std::optional<ObjectView> object(KeyId key, TenantId tenant = 0) const {
    for (const ObjectView& o : target_.view(run_.now()).objects)
      if (o.id == ObjectId{tenant, key}) return o;
    return std::nullopt;
  }
  int64_t gauge() const { return target_.gauge(); }

 private:
  embedded::EmbeddedMaster target_;
  Lockstep run_;
};

std::vector<UsageView> charged(uint64_t bytes, TenantId tenant = 0) {
  if (bytes == 0) return {};
  return {{tenant, bytes}};
}

TEST(TenantQuota, UnregisteredTenantCannotWriteAndModeOffChargesNothing) {
  Lockstepped on(multi_tenant({{1, 128}}));
  EXPECT_EQ(on.step(put(1, 64)), ErrorCode::TENANT_NOT_REGISTERED);
  EXPECT_EQ(on.step(upsert(1, 64)), ErrorCode::TENANT_NOT_REGISTERED);
  EXPECT_EQ(on.step(put(1, 64, false, 1)), ErrorCode::OK);
  EXPECT_EQ(on.usage(), charged(64, 1));
  Lockstepped off(Config{});
  EXPECT_EQ(off.step(put(1, 64)), ErrorCode::OK);
  EXPECT_TRUE(off.usage().empty());
}

TEST(TenantQuota, RefusedStartEvictsTheTenantsOwnObjectsInKeyOrder) {
  Lockstepped run(multi_tenant({{0, 128}, {1, 128}}));
  run.write(put(1, 64, false, 1));  // another tenant's object is never taken
  run.write(put(1, 64));
  run.write(put(2, 64));
  ASSERT_EQ(run.step(advance(1)), ErrorCode::OK);
  EXPECT_EQ(run.step(put(3, 64)), ErrorCode::OK);  // deficit 64: k1 goes
  EXPECT_FALSE(run.object(1));
  EXPECT_TRUE(run.object(2));
  EXPECT_TRUE(run.object(1, 1));
  EXPECT_EQ(run.usage(), (std::vector<UsageView>{{0, 128}, {1, 64}}));
}

TEST(TenantQuota, HardPinAndLeaseProtectAndEvictionsOutliveTheRefusal) {
  Lockstepped run(multi_tenant({{0, 192}}));
  run.write(put(1, 64, true));
  run.write(put(2, 64));
  run.write(put(3, 64));
  ASSERT_EQ(run.step(advance(1)), ErrorCode::OK);
  ASSERT_EQ(run.step(on_key(OpKind::Get, 2)), ErrorCode::OK);  // k2 leased
  EXPECT_EQ(run.step(put(4, 128)), ErrorCode::TENANT_QUOTA_EXCEEDED);
  EXPECT_TRUE(run.object(1));
  EXPECT_TRUE(run.object(2));
  EXPECT_FALSE(run.object(3));  // taken by the first retry, and gone
  EXPECT_EQ(run.usage(), charged(128));
}

TEST(TenantQuota, SizeChangeKeepsTheOldChargeUntilSettle) {
  Lockstepped run(multi_tenant({{0, 512}}));
  run.write(put(1, 64));
  ASSERT_EQ(run.step(upsert(1, 128)), ErrorCode::OK);  // Case C
  EXPECT_EQ(run.usage(), charged(192));
  ASSERT_EQ(run.step(on_key(OpKind::UpsertEnd, 1)), ErrorCode::OK);
  EXPECT_EQ(run.usage(), charged(128));
  ASSERT_EQ(run.step(upsert(1, 64)), ErrorCode::OK);  // Case C again, then revoked
  EXPECT_EQ(run.usage(), charged(192));
  ASSERT_EQ(run.step(on_key(OpKind::UpsertRevoke, 1)), ErrorCode::OK);
  EXPECT_FALSE(run.object(1));
  EXPECT_TRUE(run.usage().empty());
}

TEST(TenantQuota, RefusedSizeChangeEvictsTheOldObjectAndRetriesAsANewWrite) {
  Lockstepped run(multi_tenant({{0, 160}}));
  run.write(put(1, 64, true));
  EXPECT_EQ(run.step(upsert(1, 128)), ErrorCode::TENANT_QUOTA_EXCEEDED);  // hard-pinned: kept
  EXPECT_EQ(run.object(1)->size, 64u);
  Lockstepped unpinned(multi_tenant({{0, 160}}));
  unpinned.write(put(1, 64));
  EXPECT_EQ(unpinned.step(upsert(1, 128, true)), ErrorCode::OK);  // k1 evicted, then a new write
  EXPECT_EQ(unpinned.object(1)->size, 128u);
  EXPECT_TRUE(unpinned.object(1)->hard_pinned);
  EXPECT_EQ(unpinned.usage(), charged(128));
}

TEST(TenantQuota, AWriteIsChargedWhatItAskedForUntilItSettles) {
  Config c = multi_tenant({{0, 256}});
  c.segments = {{ReplicaKind::Memory, 1024}, {ReplicaKind::Nof, 1024}};
  Lockstepped run(c);
  Op two = put(1, 64);
  two.memory_replicas = 2;  // one memory segment: one replica placed
  ASSERT_EQ(run.step(two), ErrorCode::OK);
  EXPECT_EQ(run.usage(), charged(128));
  EXPECT_EQ(run.step(put(2, 192)), ErrorCode::TENANT_QUOTA_EXCEEDED);  // nothing evictable
  ASSERT_EQ(run.step(on_key(OpKind::PutEnd, 1)), ErrorCode::OK);
  EXPECT_EQ(run.usage(), charged(64));
  EXPECT_EQ(run.step(put(2, 192)), ErrorCode::OK);
}

TEST(TenantQuota, PreemptedAndExpiredWritesSettle) {
  Lockstepped run(multi_tenant({{0, 1024}}));
  Op dual = put(1, 64);
  dual.nof_replicas = 1;
  ASSERT_EQ(run.step(dual), ErrorCode::OK);
  Op end_memory = on_key(OpKind::PutEnd, 1);
  end_memory.selector = ReplicaSelector::Memory;
  ASSERT_EQ(run.step(end_memory), ErrorCode::OK);     // memory COMPLETE, NoF in flight
  ASSERT_EQ(run.step(upsert(1, 128)), ErrorCode::OK);  // Case C preempts the NoF write
  EXPECT_EQ(run.usage(), charged(192));
  ASSERT_EQ(run.step(advance(700'000)), ErrorCode::OK);
  ASSERT_EQ(run.step(evict(1, 1)), ErrorCode::OK);  // the expired write is discarded
  EXPECT_FALSE(run.object(1));
  EXPECT_TRUE(run.usage().empty());
}

TEST(TenantQuota, SoftPinnedObjectsOnlyInTheSecondPass) {
  for (bool allow : {true, false}) {
    Config c = multi_tenant({{0, 128}});
    c.allow_evict_soft_pinned_objects = allow;
    Lockstepped run(c);
    run.write(pinned(put(1, 64), 3'600'000));
    run.write(pinned(put(2, 64), 3'600'000));
    EXPECT_EQ(run.step(put(3, 64)), allow ? ErrorCode::OK : ErrorCode::TENANT_QUOTA_EXCEEDED);
    EXPECT_EQ(run.object(1).has_value(), !allow);
    EXPECT_EQ(run.gauge(), allow ? 1 : 2);
  }
}

TEST(TenantQuota, GroupExpansionSkipsHardPinnedMembers) {
  Lockstepped run(multi_tenant({{0, 192}}));
  run.write(grouped(put(1, 64, true), 7));
  run.write(grouped(put(2, 64), 7));
  run.write(put(3, 64));
  EXPECT_EQ(run.step(put(4, 64)), ErrorCode::OK);  // k1 skipped, k2 taken with its group
  EXPECT_TRUE(run.object(1));
  EXPECT_FALSE(run.object(2));
  EXPECT_TRUE(run.object(3));
}

TEST(TenantQuota, BatchUpsertRetriesPerElement) {
  Lockstepped run(multi_tenant({{0, 128}}));
  run.write(put(1, 64));
  Op batch = upsert(0, 64);
  batch.kind = OpKind::BatchUpsertStart;
  batch.keys = {2, 3, 4};
  batch.sizes = {64, 64, 64};
  run.step(batch);
  EXPECT_FALSE(run.object(1));
  EXPECT_EQ(run.usage(), charged(128));
}

TEST(TenantQuota, EffectiveQuotasScaleDownToTheMemory) {
  Config c = multi_tenant({{0, 200}, {1, 400}});
  c.segments = {{ReplicaKind::Memory, 100}, {ReplicaKind::Memory, 200}, {ReplicaKind::Nof, 1000}};
  Lockstepped run(c);  // effective 100 and 200
  ASSERT_EQ(run.step(put(1, 64)), ErrorCode::OK);
  EXPECT_EQ(run.step(put(2, 64)), ErrorCode::TENANT_QUOTA_EXCEEDED);
  EXPECT_EQ(run.step(put(2, 64, false, 1)), ErrorCode::OK);
  EXPECT_EQ(run.step(put(3, 64, false, 1)), ErrorCode::OK);
}

TEST(TenantQuota, AssignmentGivesRemaindersToTheLargestThenTheLowerTenant) {
  using embedded::BuildEffectiveQuotaAssignments;
  using Quotas = std::map<TenantId, uint64_t>;
  EXPECT_EQ(BuildEffectiveQuotaAssignments({{0, 200}, {1, 400}}, 1000), (Quotas{{0, 200}, {1, 400}}));
  EXPECT_EQ(BuildEffectiveQuotaAssignments({{0, 200}, {1, 400}}, 300), (Quotas{{0, 100}, {1, 200}}));
  EXPECT_EQ(BuildEffectiveQuotaAssignments({{0, 1}, {1, 1}, {2, 1}}, 2),
            (Quotas{{0, 1}, {1, 1}, {2, 0}}));
  EXPECT_EQ(BuildEffectiveQuotaAssignments({{3, 1}, {5, 2}}, 2), (Quotas{{3, 1}, {5, 1}}));
}

TEST(TenantQuota, TryChargeRefusesOverTheQuotaAndReportsTheDeficit) {
  Config config;
  config.multi_tenant = true;
  config.segments = {{ReplicaKind::Memory, 1000}};
  config.tenant_quota_bytes = {{0, 100}};
  embedded::TenantQuotaTable table(config);
  embedded::TenantQuotaAccount& account = *table.Find(0);
  uint64_t deficit = 0;
  EXPECT_TRUE(account.TryCharge(60, 0, &deficit));
  EXPECT_FALSE(account.TryCharge(50, 0, &deficit));
  EXPECT_EQ(deficit, 10u);
  EXPECT_TRUE(account.TryCharge(50, 20, &deficit));  // 20 of the 60 are being replaced
  EXPECT_EQ(account.ChargedBytes(), 110u);
  EXPECT_TRUE(account.TryCharge(0, 0, &deficit));  // nothing to charge: never refused
  account.Release(110);
  EXPECT_EQ(account.ChargedBytes(), 0u);
}

TEST(HardPin, SetAtCreationKeptInPlaceOredOnSizeChangeTakenFromTheRequestInCaseA) {
  Lockstepped run(Config{});
  run.write(put(1, 64, true));
  ASSERT_EQ(run.step(upsert(1, 64, false)), ErrorCode::OK);  // Case B
  EXPECT_TRUE(run.object(1)->hard_pinned);
  run.write(put(2, 64));
  ASSERT_EQ(run.step(upsert(2, 128, true)), ErrorCode::OK);  // Case C
  EXPECT_TRUE(run.object(2)->hard_pinned);
  ASSERT_EQ(run.step(upsert(3, 64, true)), ErrorCode::OK);
  ASSERT_EQ(run.step(upsert(3, 64, false)), ErrorCode::OK);  // Case A after preemption
  EXPECT_FALSE(run.object(3)->hard_pinned);
}

TEST(HardPin, BatchEvictNeitherTakesNorNormalisesAHardPinnedObject) {
  Lockstepped run(Config{});
  run.write(pinned(put(1, 64, true), 1000));
  run.write(pinned(put(2, 64), 1000));
  ASSERT_EQ(run.step(advance(2000)), ErrorCode::OK);
  ASSERT_EQ(run.step(evict(100, 100)), ErrorCode::OK);
  EXPECT_TRUE(run.object(1));
  EXPECT_TRUE(run.object(1)->deadline);  // stale, still stored
  EXPECT_FALSE(run.object(2));
  EXPECT_EQ(run.gauge(), 1);
  EXPECT_EQ(run.step(on_key(OpKind::Remove, 1)), ErrorCode::OK);  // remove ignores the hard pin
}

TEST(HardPin, RestoreKeepsThePinAndRecomputesCharges) {
  Lockstepped run(multi_tenant({{0, 1024}}));
  run.write(put(1, 64, true));
  ASSERT_EQ(run.step(on_key(OpKind::Get, 1)), ErrorCode::OK);  // a live lease: restored
  ASSERT_EQ(run.step(on_key(OpKind::Snapshot, 0)), ErrorCode::OK);
  ASSERT_EQ(run.step(upsert(1, 128)), ErrorCode::OK);
  ASSERT_EQ(run.step(put(2, 64)), ErrorCode::OK);
  EXPECT_EQ(run.usage(), charged(256));
  ASSERT_EQ(run.step(on_key(OpKind::Restore, 0)), ErrorCode::OK);
  EXPECT_EQ(run.object(1)->size, 64u);
  EXPECT_TRUE(run.object(1)->hard_pinned);
  EXPECT_FALSE(run.object(2));
  EXPECT_EQ(run.usage(), charged(64));
}

// The `quotas` preset under lockstep (tight quotas, several tenants, hard
// pins): a fixed seed budget passes with every property checked.
TEST(TenantQuota, QuotasPresetSeedsPass) {
  CampaignOptions options;
  options.seed = {.steps = 200, .swarm = true, .preset = find_preset("quotas")};
  options.last = 400;
  uint64_t refused = 0;
  const auto found = first_failure(options, &make_embedded_target, {}, Checks{all_properties(), true}, &refused);
  ASSERT_EQ(refused, 0u);
  ASSERT_FALSE(found) << "seed " << found->first << " step " << found->second.failure->step << ": "
                      << found->second.failure->what << ": " << found->second.failure->detail;
}

}  // namespace
}  // namespace pinsim
