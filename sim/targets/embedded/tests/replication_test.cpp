// Copies (rules copy.*) in the embedded master, driven in lockstep with the
// model: hand-written runs in multi-tenant mode state the outcomes the rules
// give, and after every step the object ledgers must hold what the tenant
// accounts charge (a copy's targets are charged from its start, committed at
// its End, given back when they go). Then the `copies` and `swarm` seeds in
// lockstep, their multi-tenant runs replayed with the same ledger check.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "campaign.h"
#include "embedded_master.h"
#include "embedded_target.h"
#include "model_target.h"
#include "presets.h"
#include "runner.h"
#include "testing/ops.h"

namespace pinsim {
namespace {

constexpr ClientId kWriter = 1, kCopier = 2;

Op on_key(OpKind kind, KeyId key, ClientId client = kWriter) {
  Op op;
  op.kind = kind;
  op.client = client;
  op.object = {0, key};
  return op;
}
Op put(KeyId key, uint32_t memory = 1, uint32_t nof = 0) {
  Op op = on_key(OpKind::PutStart, key);
  op.size = 64;
  op.memory_replicas = memory;
  op.nof_replicas = nof;
  return op;
}
Op end(KeyId key, ReplicaSelector selector = ReplicaSelector::All) {
  Op op = on_key(OpKind::PutEnd, key);
  op.selector = selector;
  return op;
}
Op copy(KeyId key, uint32_t source, std::vector<uint32_t> targets) {
  Op op = on_key(OpKind::CopyStart, key, kCopier);
  op.segment = source;
  op.targets = std::move(targets);
  return op;
}
using testing::advance;

Op segment_op(OpKind kind, uint32_t segment) {
  Op op;
  op.kind = kind;
  op.segment = segment;
  return op;
}

// Three memory segments and one NoF segment; tenant 0 with `quota`.
Config three_memory_segments(uint64_t quota) {
  Config c;
  c.profile = Profile::MooncakeMain;
  c.segments = {{ReplicaKind::Memory, 1024}, {ReplicaKind::Memory, 1024}, {ReplicaKind::Memory, 1024},
                {ReplicaKind::Nof, 1024}};
  c.multi_tenant = true;
  c.tenant_quota_bytes = {{0, quota}};
  return c;
}

// The embedded master beside the model (outcomes and Views compared).
class Lockstepped {
 public:
  explicit Lockstepped(const Config& config) : target_(config, embedded::Faults{}), run_(config, target_) {}

  ErrorCode step(const Op& op) {
    Trace t;
    const auto failure = run_.step(op, std::nullopt, &t);
    EXPECT_FALSE(failure) << "step " << failure->step << " " << failure->what << ": " << failure->detail;
    EXPECT_EQ(target_.ledger_usage(), view().usage) << "after " << to_string(op.kind);
    return t.steps.back().expect->code;
  }
  View view() const { return target_.view(run_.now()); }
  uint64_t charged() const { return view().usage.empty() ? 0 : view().usage.front().bytes; }
  ObjectView object(KeyId key) const {
    for (const ObjectView& o : view().objects)
      if (o.id.key == key) return o;
    ADD_FAILURE() << "no object k" << key;
    return {};
  }

 private:
  embedded::EmbeddedMaster target_;
  Lockstep run_;
};

TEST(Copy, TargetsChargedFromTheStartCommittedAtTheEndGivenBackWhenTheyGo) {
  Lockstepped run(three_memory_segments(4096));
  ASSERT_EQ(run.step(put(1)), ErrorCode::OK);  // placed on segment 0 (most free, lowest index)
  ASSERT_EQ(run.step(end(1)), ErrorCode::OK);
  EXPECT_EQ(run.step(copy(1, 1, {2})), ErrorCode::REPLICA_NOT_FOUND);
  EXPECT_EQ(run.step(copy(1, 0, {3})), ErrorCode::SEGMENT_NOT_FOUND);  // a NoF segment
  ASSERT_EQ(run.step(copy(1, 0, {0, 1, 2})), ErrorCode::OK);           // segment 0 holds the source already
  EXPECT_EQ(run.charged(), 192u);
  EXPECT_TRUE(run.object(1).copying);
  EXPECT_EQ(run.object(1).processing, 2u);
  EXPECT_EQ(run.step(copy(1, 0, {1})), ErrorCode::OBJECT_HAS_REPLICATION_TASK);
  EXPECT_EQ(run.step(on_key(OpKind::CopyEnd, 1)), ErrorCode::ILLEGAL_CLIENT);
  ASSERT_EQ(run.step(segment_op(OpKind::Unmount, 2)), ErrorCode::OK);  // one target lost
  EXPECT_EQ(run.charged(), 128u);
  EXPECT_EQ(run.step(on_key(OpKind::CopyEnd, 1, kCopier)), ErrorCode::REPLICA_IS_GONE);
  EXPECT_EQ(run.object(1).complete_memory, 2u);
  EXPECT_FALSE(run.object(1).copying);
  EXPECT_EQ(run.charged(), 128u);
  EXPECT_EQ(run.step(on_key(OpKind::CopyRevoke, 1, kCopier)), ErrorCode::OBJECT_NO_REPLICATION_TASK);
  ASSERT_EQ(run.step(segment_op(OpKind::Mount, 2)), ErrorCode::OK);
  ASSERT_EQ(run.step(copy(1, 1, {2})), ErrorCode::OK);
  EXPECT_EQ(run.charged(), 192u);
  ASSERT_EQ(run.step(on_key(OpKind::CopyRevoke, 1, kCopier)), ErrorCode::OK);
  EXPECT_EQ(run.charged(), 128u);
  EXPECT_EQ(run.view().memory_used, (std::vector<uint64_t>{64, 64, 0}));
}

TEST(Copy, RefusedOverTheQuotaWithoutAQuotaEviction) {
  Lockstepped run(three_memory_segments(128));
  ASSERT_EQ(run.step(put(1)), ErrorCode::OK);
  ASSERT_EQ(run.step(end(1)), ErrorCode::OK);
  ASSERT_EQ(run.step(advance(20'000)), ErrorCode::OK);  // the lease is gone: eviction could take it
  EXPECT_EQ(run.step(copy(1, 0, {1, 2})), ErrorCode::TENANT_QUOTA_EXCEEDED);
  EXPECT_FALSE(run.object(1).copying);
  EXPECT_EQ(run.charged(), 64u);
  ASSERT_EQ(run.step(copy(1, 0, {1})), ErrorCode::OK);
  EXPECT_EQ(run.charged(), 128u);
  ASSERT_EQ(run.step(on_key(OpKind::CopyEnd, 1, kCopier)), ErrorCode::OK);
  EXPECT_EQ(run.object(1).complete_memory, 2u);
  EXPECT_EQ(run.charged(), 128u);
}

// A write's End leaves the copy's targets; the copy's own timeout discards
// them (their memory held until then); a restore keeps no copy.
TEST(Copy, TargetsAreTheCopysUntilItEndsExpiresOrARestore) {
  Config config = three_memory_segments(4096);
  config.put_start_discard_timeout_ms = 1'000;
  config.put_start_release_timeout_ms = 2'000;
  Lockstepped run(config);
  ASSERT_EQ(run.step(put(1, 1, 1)), ErrorCode::OK);
  ASSERT_EQ(run.step(end(1, ReplicaSelector::Memory)), ErrorCode::OK);  // the NoF replica still PROCESSING
  ASSERT_EQ(run.step(copy(1, 0, {1})), ErrorCode::OK);
  ASSERT_EQ(run.step(end(1, ReplicaSelector::All)), ErrorCode::OK);
  EXPECT_EQ(run.object(1).processing, 1u);  // the copy's target
  EXPECT_EQ(run.step(on_key(OpKind::Remove, 1)), ErrorCode::REPLICA_IS_NOT_READY);
  ASSERT_EQ(run.step(advance(3'000)), ErrorCode::OK);
  ASSERT_EQ(run.step(testing::evict(0, 0)), ErrorCode::OK);
  EXPECT_FALSE(run.object(1).copying);
  EXPECT_EQ(run.charged(), 64u);
  EXPECT_EQ(run.view().memory_used, (std::vector<uint64_t>{64, 0, 0}));  // held until 2000, released by the pass
  ASSERT_EQ(run.step(copy(1, 0, {2})), ErrorCode::OK);
  ASSERT_EQ(run.step(on_key(OpKind::Get, 1)), ErrorCode::OK);  // a live lease: the object survives the restore
  ASSERT_EQ(run.step(on_key(OpKind::Snapshot, 0)), ErrorCode::OK);
  ASSERT_EQ(run.step(on_key(OpKind::Restore, 0)), ErrorCode::OK);
  EXPECT_FALSE(run.object(1).copying);
  EXPECT_EQ(run.object(1).processing, 0u);
  EXPECT_EQ(run.charged(), 64u);
  EXPECT_EQ(run.step(on_key(OpKind::CopyEnd, 1, kCopier)), ErrorCode::OBJECT_NO_REPLICATION_TASK);
}

// A run in lockstep with every ledger checked against its account after
// each step (multi-tenant mode only).
void expect_ledgers_match(const Trace& trace) {
  embedded::EmbeddedMaster master(trace.config, embedded::Faults{});
  for (const TraceStep& s : trace.steps) {
    master.apply(s.op, s.t);
    ASSERT_EQ(master.ledger_usage(), master.view(s.t).usage) << "after " << to_string(s.op.kind) << " at " << s.t;
  }
}

TEST(Copy, PresetSeedsPassInLockstepAndKeepTheLedgers) {
  uint64_t multi_tenant_copies = 0;  // multi-tenant runs whose model started a copy
  for (const char* preset : {"copies", "swarm", "quotas"}) {
    CampaignOptions options;
    options.seed = {.steps = 200, .swarm = true, .preset = find_preset(preset)};
    options.last = 300;
    uint64_t refused = 0;
    const auto found = first_failure(options, &make_embedded_target, {}, {}, &refused);
    ASSERT_EQ(refused, 0u);
    ASSERT_FALSE(found) << preset << " seed " << found->first << " step " << found->second.failure->step << ": "
                        << found->second.failure->what << ": " << found->second.failure->detail;
    for (uint64_t seed = 1; seed <= 300; ++seed) {
      const RunResult run = run_seed(seed, options.seed, &make_model_target);
      ASSERT_TRUE(run.error.empty()) << run.error;
      if (!run.trace.config.multi_tenant) continue;
      expect_ledgers_match(run.trace);
      multi_tenant_copies += std::any_of(run.trace.steps.begin(), run.trace.steps.end(), [](const TraceStep& s) {
        return s.op.kind == OpKind::CopyStart && s.expect && s.expect->code == ErrorCode::OK;
      });
    }
  }
  std::printf("multi-tenant runs with a copy: %llu\n", static_cast<unsigned long long>(multi_tenant_copies));
  EXPECT_GT(multi_tenant_copies, 0u);
}

}  // namespace
}  // namespace pinsim
