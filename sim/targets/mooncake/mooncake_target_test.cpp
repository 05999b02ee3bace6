// Tests of the Mooncake target (ctest -L mooncake): the virtual clock, the
// mapping of the soft-pin lifecycle, DFS replicas, determinism, and reuse of
// masters.
#include <gtest/gtest.h>

#include "campaign.h"
#include "mooncake_target.h"
#include "runner.h"

namespace pinsim {
namespace {

Config main_config() {
  Config c;
  c.profile = *parse_profile(mooncake_target_profile());
  return c;
}

std::unique_ptr<Target> make(const Config& c = main_config()) {
  std::string error;
  auto t = make_mooncake_target(c, {}, &error);
  EXPECT_TRUE(t) << error;
  return t;
}

// A target of `c`, or nullptr when this tree lists `feature` among what it
// does not support (mooncake_target_description): then the configuration
// must be refused.
std::unique_ptr<Target> make_where_supported(const Config& c, std::string_view feature) {
  std::string error;
  auto t = make_mooncake_target(c, {}, &error);
  if (mooncake_target_description().find(feature) != std::string_view::npos) {
    EXPECT_FALSE(t) << "a tree without " << feature << " must refuse it";
    return nullptr;
  }
  EXPECT_TRUE(t) << error;
  return t;
}

// Expectations of main's lifecycle (the soft pin committed at End, the
// cleanup, a restore that drops pins): another tree diverges from them by its
// known findings (scenarios/findings), which its campaigns recognise.
#define PINSIM_MAIN_LIFECYCLE(t)                                                              \
  if ((t)->variant() != "main")                                                               \
  GTEST_SKIP() << "expectations of Mooncake main's lifecycle; this tree diverges from them by " \
                  "its known findings"

Op put_start(KeyId k, uint8_t action, std::optional<uint64_t> ttl = std::nullopt) {
  Op op;
  op.kind = OpKind::PutStart;
  op.client = 1;
  op.object = {0, k};
  op.size = 64;
  op.memory_replicas = 1;
  op.soft_pin = {action, ttl};
  return op;
}

Op simple(OpKind kind, KeyId k = 0) {
  Op op;
  op.kind = kind;
  op.client = 1;
  op.object = {0, k};
  return op;
}

TEST(MooncakeTarget, RefusesOtherProfiles) {
  Config c = main_config();
  c.profile = Profile::Rfc;
  std::string error;
  if (mooncake_target_profile() != "rfc") {
    EXPECT_FALSE(make_mooncake_target(c, {}, &error));
  }
}

// Multi-tenant mode: the quota policies reach MasterService through the file
// connector, an unregistered tenant may not write, charges show in the View.
TEST(MooncakeTarget, MultiTenantModeChargesAndRefusesUnregisteredTenants) {
  Config c = main_config();
  c.multi_tenant = true;
  c.tenant_quota_bytes = {{0, 64}, {1, 128}};
  auto t = make_where_supported(c, "multi-tenant");
  if (!t) return;
  Op w = put_start(1, 1, 1000);
  w.object.tenant = 1;
  EXPECT_EQ(t->apply(w, 0).code, ErrorCode::OK);
  w.object.tenant = 2;
  EXPECT_EQ(t->apply(w, 0).code, ErrorCode::TENANT_NOT_REGISTERED);
  const View v = t->view(0);
  ASSERT_EQ(v.usage.size(), 1u);
  EXPECT_EQ(v.usage[0].tenant, 1u);
  EXPECT_GT(v.usage[0].bytes, 0u);
}

// A target in HA-OpLog mode with k1 written and ended; none where the tree has no such mode.
std::unique_ptr<Target> ha_target_with_k1() {
  Config c = main_config();
  c.ha_oplog = true;
  auto t = make_where_supported(c, "HA-OpLog");
  if (!t) return nullptr;
  EXPECT_EQ(t->apply(put_start(1, 0), 0).code, ErrorCode::OK);
  EXPECT_EQ(t->apply(simple(OpKind::PutEnd, 1), 0).code, ErrorCode::OK);
  return t;
}

// HA-OpLog mode: a Remove leaves its erase to the log entry's durable
// callback, which the target runs before the op returns (oplog_mode.h), so
// the View after it shows the object gone, as without the log; a Revoke of a
// write in flight erases it the same way. A tree without the writer factory
// refuses the mode.
TEST(MooncakeTarget, HaOplogModeSettlesEachOpsLogEntries) {
  auto t = ha_target_with_k1();
  if (!t) return;
  EXPECT_EQ(t->view(0).objects.size(), 1u);
  Op remove = simple(OpKind::Remove, 1);
  remove.force = true;
  EXPECT_EQ(t->apply(remove, 0).code, ErrorCode::OK);
  View v = t->view(0);
  EXPECT_TRUE(v.objects.empty());
  EXPECT_EQ(v.allocated, 0u);
  EXPECT_EQ(t->apply(simple(OpKind::Get, 1), 0).code, ErrorCode::OBJECT_NOT_FOUND);
  EXPECT_EQ(t->apply(put_start(2, 0), 0).code, ErrorCode::OK);
  EXPECT_EQ(t->apply(simple(OpKind::PutRevoke, 2), 0).code, ErrorCode::OK);
  v = t->view(0);
  EXPECT_TRUE(v.objects.empty());
  EXPECT_EQ(v.allocated, 0u);
}

TEST(MooncakeTarget, EnableCommitsAtEndAndCleanupClearsAtTheDeadline) {
  auto t = make();
  ASSERT_TRUE(t);
  PINSIM_MAIN_LIFECYCLE(t);
  EXPECT_EQ(t->apply(put_start(1, 1, 1000), 100).code, ErrorCode::OK);
  View v = t->view(100);
  ASSERT_EQ(v.objects.size(), 1u);
  EXPECT_FALSE(v.objects[0].deadline);
  ASSERT_TRUE(v.objects[0].pending);
  EXPECT_EQ(v.objects[0].pending->viable, 1u);
  EXPECT_EQ(t->apply(simple(OpKind::PutEnd, 1), 200).code, ErrorCode::OK);
  v = t->view(200);
  ASSERT_EQ(v.objects.size(), 1u);
  EXPECT_EQ(v.objects[0].deadline, std::optional<Time>(1200));
  EXPECT_EQ(v.gauge, 1);
  // A read grants the lease and never renews the pin.
  Outcome g = t->apply(simple(OpKind::Get, 1), 500);
  EXPECT_EQ(g.code, ErrorCode::OK);
  v = t->view(500);
  EXPECT_EQ(v.objects[0].deadline, std::optional<Time>(1200));
  EXPECT_EQ(v.objects[0].lease, 500 + 10'000);
  t->apply(simple(OpKind::Cleanup), 1199);
  EXPECT_EQ(t->view(1199).gauge, 1);
  t->apply(simple(OpKind::Cleanup), 1200);
  v = t->view(1200);
  EXPECT_EQ(v.gauge, 0);
  EXPECT_FALSE(v.objects[0].deadline);
}

TEST(MooncakeTarget, UnsupportedOpsSayUnsupported) {
  auto t = make();
  ASSERT_TRUE(t);
  Op retain = simple(OpKind::RetainGroups);
  retain.groups = {1};
  retain.ttl_ms = 1000;
  // Group retention is PR 2835's: on that tree the op is supported.
  EXPECT_EQ(t->apply(retain, 0).code,
            mooncake_target_supports(retain, Config{}) ? ErrorCode::OK : ErrorCode::UNSUPPORTED);
  Op other_tenant = put_start(1, 0);
  other_tenant.object.tenant = 1;
  EXPECT_EQ(t->apply(other_tenant, 0).code, ErrorCode::UNSUPPORTED);
  Op nof = put_start(1, 0);
  nof.nof_replicas = 1;
  EXPECT_EQ(t->apply(nof, 0).code, mooncake_target_supports(nof, Config{}) ? ErrorCode::OK : ErrorCode::UNSUPPORTED);
}

// Failover (README, "Failover"): the standby reads the log, a new primary
// restores its export and the client remounts: the committed key is
// readable with a fresh lease, the write in flight is gone.
TEST(MooncakeTarget, FailoverKeepsCommittedObjectsAndLosesWritesInFlight) {
  auto t = ha_target_with_k1();
  if (!t) return;
  EXPECT_EQ(t->apply(put_start(2, 0), 0).code, ErrorCode::OK);
  const Outcome failover = t->apply(simple(OpKind::Failover), 5'000);
  if (failover.code == ErrorCode::UNSUPPORTED) GTEST_SKIP() << "this tree has no RestoreFromStandbySnapshot";
  EXPECT_EQ(failover.code, ErrorCode::OK);
  const View v = t->view(5'000);
  ASSERT_EQ(v.objects.size(), 1u);
  EXPECT_EQ(v.objects[0].id.key, 1u);
  EXPECT_EQ(v.objects[0].complete_memory, 1u);
  EXPECT_EQ(v.objects[0].lease, 15'000);  // the remount's grant: now + the default 10 s
  EXPECT_EQ(t->apply(simple(OpKind::Get, 1), 5'000).code, ErrorCode::OK);
  EXPECT_EQ(t->apply(put_start(2, 0), 5'000).code, ErrorCode::OK);  // the old intent is gone
}

TEST(MooncakeTarget, SnapshotRestoreDropsPinsAndExpiredLeases) {
  auto t = make();
  ASSERT_TRUE(t);
  PINSIM_MAIN_LIFECYCLE(t);
  t->apply(put_start(1, 1, 100'000), 0);
  t->apply(simple(OpKind::PutEnd, 1), 0);
  t->apply(put_start(2, 0), 0);
  t->apply(simple(OpKind::PutEnd, 2), 0);
  t->apply(simple(OpKind::Get, 2), 0);  // lease until 10'000
  EXPECT_EQ(t->apply(simple(OpKind::Snapshot), 1).code, ErrorCode::OK);
  EXPECT_EQ(t->apply(simple(OpKind::Restore), 2).code, ErrorCode::OK);
  View v = t->view(2);
  ASSERT_EQ(v.objects.size(), 1u);  // k1's lease (0) expired; k2 survives
  EXPECT_EQ(v.objects[0].id.key, 2u);
  EXPECT_EQ(v.gauge, 0);
  Op restore = simple(OpKind::Restore);
  restore.fail_first_candidate = true;
  EXPECT_EQ(t->apply(restore, 3).code, ErrorCode::INTERNAL_ERROR);
  EXPECT_TRUE(t->view(3).objects.empty());
  // The segments are mounted again: writes still succeed.
  EXPECT_EQ(t->apply(put_start(3, 0), 4).code, ErrorCode::OK);
}

// A kept master (README, "Runs") is handed to the next target of the same
// configuration empty: no object, no soft pin, no allocated byte, whatever
// the run before it left. (Construction cost is a figure of ./dev bench.)
TEST(MooncakeTarget, AReusedMasterStartsEmpty) {
  {
    auto t = make();
    ASSERT_TRUE(t);
    ASSERT_EQ(t->apply(put_start(1, static_cast<uint8_t>(SoftPinAction::Enable), 1000), 1).code, ErrorCode::OK);
    ASSERT_EQ(t->apply(simple(OpKind::PutEnd, 1), 2).code, ErrorCode::OK);
    ASSERT_EQ(t->apply(put_start(2, 0), 3).code, ErrorCode::OK);
    const View v = t->view(3);
    ASSERT_EQ(v.objects.size(), 2u);
    ASSERT_EQ(v.gauge, 1);
  }
  auto t = make();
  ASSERT_TRUE(t);
  const View v = t->view(0);
  EXPECT_TRUE(v.objects.empty());
  EXPECT_EQ(v.gauge, 0);
  for (uint64_t used : v.memory_used) EXPECT_EQ(used, 0u);
  EXPECT_EQ(t->apply(simple(OpKind::Get, 1), 1).code, ErrorCode::OBJECT_NOT_FOUND);
}

// DFS replicas (README, "DFS replicas"): a tree without them refuses a
// configuration with DFS slots.
bool tree_has_dfs() { return mooncake_target_description().find("DFS replicas") == std::string_view::npos; }

Config dfs_config(uint32_t slots) {
  Config c = main_config();
  c.dfs_slots = slots;
  return c;
}

Op dfs_write(KeyId k, uint64_t size) {
  Op op = put_start(k, 0);
  op.size = size;
  op.dfs_replicas = 1;
  return op;
}

Op with_selector(OpKind kind, KeyId k, ReplicaSelector selector, bool force = false) {
  Op op = simple(kind, k);
  op.selector = selector;
  op.force = force;
  return op;
}

const ObjectView* find(const View& v, KeyId k) {
  for (const ObjectView& o : v.objects)
    if (o.id.key == k) return &o;
  return nullptr;
}

// Two slots hold exactly two DFS replicas, small or as large as a memory
// segment allows; the third write finds none. The DFS replica stays
// PROCESSING after an End of memory (a forced remove is refused) until an
// End names DFS; a remove or a revoke frees its slot for the next write.
TEST(MooncakeTarget, DfsSlotsAreHeldUntilRemoveOrRevoke) {
  std::string error;
  auto t = make_mooncake_target(dfs_config(2), {}, &error);
  if (!tree_has_dfs()) {
    EXPECT_FALSE(t) << "a tree without DFS replicas must refuse DFS slots";
    return;
  }
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->apply(dfs_write(1, 64), 1).code, ErrorCode::OK);
  EXPECT_EQ(t->apply(dfs_write(2, 700'000), 2).code, ErrorCode::OK);
  EXPECT_EQ(t->apply(dfs_write(3, 64), 3).code, ErrorCode::NO_AVAILABLE_HANDLE);
  View v = t->view(3);
  EXPECT_EQ(v.dfs_slots_used, 2u);
  EXPECT_FALSE(find(v, 3));

  EXPECT_EQ(t->apply(with_selector(OpKind::PutEnd, 1, ReplicaSelector::Memory), 4).code, ErrorCode::OK);
  v = t->view(4);
  ASSERT_TRUE(find(v, 1));
  EXPECT_EQ(find(v, 1)->complete_memory, 1u);
  EXPECT_EQ(find(v, 1)->complete_dfs, 0u);
  EXPECT_EQ(find(v, 1)->processing, 1u);
  EXPECT_EQ(t->apply(with_selector(OpKind::Remove, 1, ReplicaSelector::All, true), 5).code,
            ErrorCode::REPLICA_IS_NOT_READY);
  EXPECT_EQ(t->apply(with_selector(OpKind::PutEnd, 1, ReplicaSelector::Dfs), 6).code, ErrorCode::OK);
  v = t->view(6);
  ASSERT_TRUE(find(v, 1));
  EXPECT_EQ(find(v, 1)->complete_dfs, 1u);
  EXPECT_EQ(find(v, 1)->processing, 0u);

  EXPECT_EQ(t->apply(simple(OpKind::Remove, 1), 7).code, ErrorCode::OK);
  EXPECT_EQ(t->view(7).dfs_slots_used, 1u);
  EXPECT_EQ(t->apply(dfs_write(3, 64), 8).code, ErrorCode::OK);  // the freed slot
  EXPECT_EQ(t->view(8).dfs_slots_used, 2u);
  EXPECT_EQ(t->apply(with_selector(OpKind::PutRevoke, 2, ReplicaSelector::All), 9).code, ErrorCode::OK);
  EXPECT_EQ(t->view(9).dfs_slots_used, 1u);
  EXPECT_EQ(t->apply(dfs_write(4, 64), 10).code, ErrorCode::OK);
  EXPECT_EQ(t->apply(dfs_write(5, 64), 11).code, ErrorCode::NO_AVAILABLE_HANDLE);
  EXPECT_EQ(t->view(11).dfs_slots_used, 2u);
}

// A master without DFS answers a DFS request DFS_SERVICE_UNAVAILABLE, also
// after DFS masters ran in the process; a kept DFS master starts its next run
// with every slot free, whatever the run before left.
TEST(MooncakeTarget, DfsOnlyInDfsConfigurationsAndKeptMastersStartEmpty) {
  if (!tree_has_dfs()) {
    EXPECT_FALSE(mooncake_target_supports(dfs_write(1, 64), main_config()));
    return;
  }
  for (int run = 0; run < 2; ++run) {
    {
      auto t = make(dfs_config(1));
      ASSERT_TRUE(t);
      EXPECT_EQ(t->view(0).dfs_slots_used, 0u);
      EXPECT_EQ(t->apply(dfs_write(1, 64), 1).code, ErrorCode::OK);  // left held at the end of the run
      EXPECT_EQ(t->apply(dfs_write(2, 64), 2).code, ErrorCode::NO_AVAILABLE_HANDLE);
    }
    auto t = make(main_config());
    ASSERT_TRUE(t);
    EXPECT_EQ(t->apply(dfs_write(1, 64), 1).code, ErrorCode::DFS_SERVICE_UNAVAILABLE);
    EXPECT_EQ(t->view(1).dfs_slots_used, 0u);
    EXPECT_TRUE(t->view(1).objects.empty());
  }
}

// Mooncake states DFS incompatible with snapshot recovery: a DFS
// configuration draws no snapshot or restore.
TEST(MooncakeTarget, NoSnapshotsWithDfs) {
  for (OpKind kind : {OpKind::Snapshot, OpKind::Restore}) {
    EXPECT_FALSE(mooncake_target_supports(simple(kind), dfs_config(2)));
    EXPECT_EQ(mooncake_target_supports(simple(kind), main_config()),
              mooncake_target_supports(simple(kind), dfs_config(0)));
  }
  if (!tree_has_dfs()) return;
  auto t = make(dfs_config(2));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->apply(simple(OpKind::Snapshot), 1).code, ErrorCode::UNSUPPORTED);
}

TEST(MooncakeTarget, SameSeedSameTrace) {
  SeedOptions options;
  options.steps = 60;
  options.profile = parse_profile(mooncake_target_profile());
  const RunResult a = run_seed(7, options, &make_mooncake_target);
  const RunResult b = run_seed(7, options, &make_mooncake_target);
  ASSERT_TRUE(a.error.empty()) << a.error;
  EXPECT_EQ(write_trace(a.trace), write_trace(b.trace));
}

}  // namespace
}  // namespace pinsim
