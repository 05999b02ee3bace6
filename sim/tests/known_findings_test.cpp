// Known findings are recognised by signature on the tree they were found on,
// and a findings directory with a trace that names no signature is refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "json_codec.h"
#include "known_findings.h"

namespace pinsim {

TEST(KnownFindings, EveryFindingInTheRepositoryNamesItsTreeAndSignatures) {
  const auto known = load_known_findings(PINSIM_FINDINGS_DIR);
  EXPECT_GE(known.size(), 6u);
  for (const KnownFinding& k : known) {
    EXPECT_FALSE(k.tree.empty()) << k.file;
    EXPECT_FALSE(k.signatures.empty()) << k.file;
  }
}

TEST(KnownFindings, MatchesOnTreeAndSignatureWithWildcards) {
  const std::vector<KnownFinding> known{{"a.json", "main", {"property/upsert_start/P13"}},
                                        {"b.json", "pr-2835", {"view/*/retained_group_count"}}};
  EXPECT_EQ(match_known(known, "property/upsert_start/P13", "main"), &known[0]);
  EXPECT_EQ(match_known(known, "property/upsert_start/P13", "pr-2835"), nullptr);  // another tree
  EXPECT_EQ(match_known(known, "property/put_start/P13", "main"), nullptr);
  EXPECT_EQ(match_known(known, "view/advance/retained_group_count", "pr-2835"), &known[1]);
  EXPECT_EQ(match_known(known, "view/advance/retention", "pr-2835"), nullptr);
  EXPECT_EQ(match_known(known, "property/upsert_start/P13", ""), nullptr);  // the embedded target
}

// Of two findings with one signature, the one narrowed by a condition the
// run met names it; without the condition, the other.
TEST(KnownFindings, TheFindingWithTheMostConditionsMetNamesTheRun) {
  const std::vector<KnownFinding> known{{"a.json", "main", {"view/put_end/deadline"}, {}, {}, {"c1"}},
                                        {"b.json", "main", {"view/put_end/deadline"}, {}, {}, {"c1", "c2"}}};
  EXPECT_EQ(match_known(known, "view/put_end/deadline", "main", {}, {"c1", "c2"}), &known[1]);
  EXPECT_EQ(match_known(known, "view/put_end/deadline", "main", {}, {"c2", "c1"}), &known[1]);
  EXPECT_EQ(match_known(known, "view/put_end/deadline", "main", {}, {"c1"}), &known[0]);
  EXPECT_EQ(match_known(known, "view/put_end/deadline", "main", {}, {"c2"}), nullptr);
}

// A finding that needs an op is recognised only in a run that used it by its failing step.
TEST(KnownFindings, AFindingThatNeedsAnOpMatchesOnlyInARunThatUsedIt) {
  const std::vector<KnownFinding> known{{"c.json", "main", {"view/restore/objects"}, {OpKind::CopyStart}}};
  EXPECT_EQ(match_known(known, "view/restore/objects", "main"), nullptr);
  EXPECT_EQ(match_known(known, "view/restore/objects", "main", {OpKind::PutStart, OpKind::Restore}), nullptr);
  EXPECT_EQ(match_known(known, "view/restore/objects", "main", {OpKind::CopyStart, OpKind::Restore}), &known[0]);
  Trace t;
  for (OpKind k : {OpKind::PutStart, OpKind::Restore, OpKind::CopyStart}) t.steps.push_back({0, Op{k}, {}, {}});
  EXPECT_EQ(ops_used(t, 1), (std::vector<OpKind>{OpKind::PutStart, OpKind::Restore}));  // the copy comes after
  EXPECT_EQ(ops_used(t, 2).size(), 3u);
  t.steps[2].op.kind = OpKind::BatchUpsertStart;  // a batch uses its element's kind too
  EXPECT_EQ(ops_used(t, 2), (std::vector<OpKind>{OpKind::PutStart, OpKind::Restore, OpKind::BatchUpsertStart,
                                                 OpKind::UpsertStart}));
}

// "restore_applied": the failing restore had a snapshot to apply (the newest
// one unless it is made to fail); one that finds none is not that condition
// but "restore_started_empty".
TEST(KnownFindings, ARestoreAppliesOnlyWithAUsableSnapshot) {
  Trace t;
  for (OpKind k : {OpKind::Restore, OpKind::Snapshot, OpKind::Restore, OpKind::Restore})
    t.steps.push_back({0, Op{k}, {}, {}});
  t.steps[3].op.fail_first_candidate = true;
  const std::vector<std::string> empty{"restore_started_empty"};
  EXPECT_EQ(conditions_met(t, 0), empty);                       // no snapshot yet
  EXPECT_EQ(conditions_met(t, 1), std::vector<std::string>{});  // not a restore
  EXPECT_EQ(conditions_met(t, 2), std::vector<std::string>{"restore_applied"});
  EXPECT_EQ(conditions_met(t, 3), empty);  // its only candidate fails
  const std::vector<KnownFinding> known{{"e.json", "main", {"view/restore/allocated"}, {}, {}, {"restore_applied"}}};
  EXPECT_EQ(match_known(known, "view/restore/allocated", "main", {}, conditions_met(t, 2)), &known[0]);
  EXPECT_EQ(match_known(known, "view/restore/allocated", "main", {}, conditions_met(t, 3)), nullptr);
}

// "start_preempts_write": the failing Start names an object whose write is
// in flight; "unmount_takes_processing": an unmount before the failing step
// takes a segment holding a PROCESSING replica of an object no step names
// since. Neither once the write has ended.
TEST(KnownFindings, APreemptingStartAndAnUnmountOfAWriteInFlight) {
  Trace t;
  t.config.segments = {{ReplicaKind::Memory, 1024}, {ReplicaKind::Memory, 1024}};
  Op put{OpKind::PutStart};
  put.object = {0, 1};
  put.size = 64;
  put.memory_replicas = 2;
  Op end{OpKind::PutEnd};
  end.object = put.object;
  Op unmount{OpKind::Unmount};
  unmount.segment = 1;
  Op upsert = put;
  upsert.kind = OpKind::UpsertStart;
  for (const Op& op : {put, unmount, Op{OpKind::Snapshot}, upsert}) t.steps.push_back({0, op, {}, {}});
  const auto has = [&](size_t step, const char* c) {
    const auto met = conditions_met(t, step);
    return std::count(met.begin(), met.end(), c) > 0;
  };
  EXPECT_TRUE(has(2, "unmount_takes_processing"));
  EXPECT_FALSE(has(0, "unmount_takes_processing"));  // before the unmount
  EXPECT_FALSE(has(2, "start_preempts_write"));      // a snapshot
  EXPECT_TRUE(has(3, "start_preempts_write"));
  EXPECT_FALSE(has(4, "unmount_takes_processing"));  // the upsert names k1 (Mooncake drops the replica then)
  t.steps.push_back({0, Op{OpKind::Snapshot}, {}, {}});
  EXPECT_FALSE(has(4, "unmount_takes_processing"));
  t.steps.insert(t.steps.begin() + 1, {0, end, {}, {}});  // put, end, unmount, snapshot, upsert, snapshot
  EXPECT_FALSE(has(3, "unmount_takes_processing"));
  EXPECT_FALSE(has(4, "start_preempts_write"));
}

// "at_task_timeout": the failing step runs exactly at the release timeout
// after an op that may start a task (here an End, which queues an offload).
TEST(KnownFindings, AtTaskTimeoutIsTheReleaseTimeoutAfterAnEnd) {
  Trace t;
  t.config.put_start_release_timeout_ms = 600'000;
  for (OpKind k : {OpKind::PutStart, OpKind::PutEnd, OpKind::Advance, OpKind::Evict, OpKind::Advance, OpKind::Evict})
    t.steps.push_back({0, Op{k}, {}, {}});
  t.steps[2].op.advance_ms = 600'000;
  t.steps[4].op.advance_ms = 1;
  EXPECT_EQ(conditions_met(t, 1), std::vector<std::string>{});
  EXPECT_EQ(conditions_met(t, 3), std::vector<std::string>{"at_task_timeout"});
  EXPECT_EQ(conditions_met(t, 5), std::vector<std::string>{});  // a millisecond after
}

// "end_after_copy_end": a write's End (single or batch) names a key after a
// copy of that same key ended; an End before the copy's, or of another key,
// is not that condition.
TEST(KnownFindings, EndAfterCopyEndNeedsTheSameKeyAfterTheCopy) {
  Trace t;
  for (OpKind k : {OpKind::PutEnd, OpKind::CopyEnd, OpKind::PutEnd, OpKind::BatchPutEnd, OpKind::Get})
    t.steps.push_back({0, Op{k}, {}, {}});
  t.steps[1].op.object = {0, 1};
  t.steps[0].op.object = {0, 1};  // before the copy ended
  t.steps[2].op.object = {0, 2};  // another key
  t.steps[3].op.keys = {3, 1};    // the copied key, in a batch
  EXPECT_EQ(conditions_met(t, 2), std::vector<std::string>{});
  EXPECT_EQ(conditions_met(t, 4), std::vector<std::string>{"end_after_copy_end"});
  t.steps[3].op.object.tenant = 1;  // the same key of another tenant
  EXPECT_EQ(conditions_met(t, 4), std::vector<std::string>{});
}

// "expected_quota_exceeded": the failing step's expected outcome refuses it
// for quota, as a whole or for one of a batch's keys.
TEST(KnownFindings, ExpectedQuotaExceededReadsTheFailingStepsExpectation) {
  Trace t;
  for (OpKind k : {OpKind::UpsertStart, OpKind::BatchUpsertStart, OpKind::UpsertStart})
    t.steps.push_back({0, Op{k}, {}, {}});
  t.steps[0].expect = Outcome::of(ErrorCode::TENANT_QUOTA_EXCEEDED);
  t.steps[1].expect = Outcome{};
  t.steps[1].expect->results = {{ErrorCode::OK}, {ErrorCode::TENANT_QUOTA_EXCEEDED}};
  t.steps[2].expect = Outcome::of(ErrorCode::NO_AVAILABLE_HANDLE);
  EXPECT_EQ(conditions_met(t, 0), std::vector<std::string>{"expected_quota_exceeded"});
  EXPECT_EQ(conditions_met(t, 1), std::vector<std::string>{"expected_quota_exceeded"});
  EXPECT_EQ(conditions_met(t, 2), std::vector<std::string>{});  // an earlier step's does not count
}

// "model_quota_evicted": the model, replayed, evicts the tenant's memory for
// the failing Start (its first attempt refused for quota), and only there;
// "quota_retry_admitted" when the retry then passes the quota.
TEST(KnownFindings, ModelQuotaEvictedReplaysTheModelToTheFailingStep) {
  Trace t;
  t.config.multi_tenant = true;
  t.config.tenant_quota_bytes = {{0, 64}};
  t.config.segments = {{ReplicaKind::Memory, 1 << 20}};
  const Op write{.kind = OpKind::PutStart, .object = {0, 0}, .size = 64, .memory_replicas = 1};
  Op second = write;
  second.object.key = 1;
  t.steps = {{0, write, {}, {}}, {0, Op{.kind = OpKind::PutEnd, .object = {0, 0}}, {}, {}}, {0, second, {}, {}},
             {0, Op{.kind = OpKind::Get, .object = {0, 1}}, {}, {}}};
  EXPECT_EQ(conditions_met(t, 0), std::vector<std::string>{});  // the first write fits its quota
  const std::vector<std::string> admitted{"model_quota_evicted", "quota_retry_admitted"};
  EXPECT_EQ(conditions_met(t, 2), admitted);                    // k0 makes room for k1
  EXPECT_EQ(conditions_met(t, 3), std::vector<std::string>{"quota_evicted_before"});  // a read evicts nothing
  t.steps.insert(t.steps.begin() + 2, {0, Op{.kind = OpKind::Get, .object = {0, 0}}, {}, {}});
  EXPECT_EQ(conditions_met(t, 3), std::vector<std::string>{"model_quota_evicted"});  // k0's lease: no room
  t.steps.erase(t.steps.begin() + 2);
  t.config.tenant_quota_bytes = {{0, 128}};
  EXPECT_EQ(conditions_met(t, 2), std::vector<std::string>{});  // both fit
}

// The failover conditions: an End that completed nothing (its selector named
// no replica of the object) before the failing step, and a failover that
// meets an object with no COMPLETE replica in the model.
TEST(KnownFindings, FailoverConditionsReadTheModel) {
  Trace t;
  t.config.ha_oplog = true;
  t.config.segments = {{ReplicaKind::Memory, 1 << 20}};
  const Op write{.kind = OpKind::PutStart, .object = {0, 0}, .size = 64, .memory_replicas = 1};
  Op end{.kind = OpKind::PutEnd, .object = {0, 0}};
  end.selector = ReplicaSelector::Nof;  // the object has no NoF replica
  t.steps = {{0, write, {}, {}}, {0, end, {}, {}}, {0, Op{.kind = OpKind::Failover}, {}, {}}};
  const std::vector<std::string> both{"ha_oplog", "failover_drops_uncommitted", "end_completed_nothing"};
  EXPECT_EQ(conditions_met(t, 2), both);
  // A read of the key answered OK writes nothing to the log: the End's PUT_END stands.
  t.steps.insert(t.steps.begin() + 2, {0, Op{.kind = OpKind::Exist, .object = {0, 0}}, {}, {}});
  EXPECT_EQ(conditions_met(t, 3), both);
  t.steps[2].op.kind = OpKind::PutRevoke;  // a revoke answered OK writes the key again
  EXPECT_EQ(conditions_met(t, 3), std::vector<std::string>{"ha_oplog"});
  t.steps.erase(t.steps.begin() + 2);
  t.steps[1].op.selector = ReplicaSelector::All;  // the End completes the write
  EXPECT_EQ(conditions_met(t, 2), std::vector<std::string>{"ha_oplog"});
}

// "reaper_discarded_write": a committed object whose in-place upsert is
// abandoned goes at the eviction pass past the release timeout; not a first
// write that never ended, and not once a later call has written the key.
TEST(KnownFindings, ReaperDiscardedWriteNeedsAnEndedKey) {
  Trace t;
  t.config.ha_oplog = true;
  t.config.segments = {{ReplicaKind::Memory, 1 << 20}};
  const Op write{.kind = OpKind::PutStart, .object = {0, 0}, .size = 64, .memory_replicas = 1};
  Op upsert = write;
  upsert.kind = OpKind::UpsertStart;
  const Op advance{.kind = OpKind::Advance, .advance_ms = 600'001};
  const Op evict{.kind = OpKind::Evict, .evict_target_pct = 100, .evict_lowerbound_pct = 0};
  const Op end{.kind = OpKind::PutEnd, .object = {0, 0}};
  t.steps = {{0, write, {}, {}},         {0, end, {}, {}},           {0, upsert, {}, {}},
             {600'001, advance, {}, {}}, {600'001, evict, {}, {}},   {600'001, Op{.kind = OpKind::Failover}, {}, {}}};
  EXPECT_EQ(conditions_met(t, 5), (std::vector<std::string>{"ha_oplog", "reaper_discarded_write"}));
  Trace first_write = t;  // never ended: the log holds no value for the key
  first_write.steps.erase(first_write.steps.begin() + 1, first_write.steps.begin() + 3);
  EXPECT_EQ(conditions_met(first_write, 3), std::vector<std::string>{"ha_oplog"});
  t.steps.insert(t.steps.begin() + 5, {600'001, write, {}, {}});  // the key written again
  EXPECT_EQ(conditions_met(t, 6), (std::vector<std::string>{"ha_oplog", "failover_drops_uncommitted"}));
}

// "failover_kept_processing": in disk mode an End leaves the disk replica
// PROCESSING and the failover keeps it; the condition holds at the failover
// and after it while the object is there: a second End the model completes
// does not end it (Mooncake's may complete nothing), a removal does.
TEST(KnownFindings, FailoverKeptProcessingLastsWhileTheObjectDoes) {
  Trace t;
  t.config.ha_oplog = true;
  t.config.disk_replica = true;
  t.config.segments = {{ReplicaKind::Memory, 1 << 20}};
  const Op write{.kind = OpKind::PutStart, .object = {0, 0}, .size = 64, .memory_replicas = 1};
  const Op get{.kind = OpKind::Get, .object = {0, 0}};
  const Op end{.kind = OpKind::PutEnd, .object = {0, 0}};
  Op end_disk = end;  // an End of all does not complete the disk replica in disk mode; one naming disk does
  end_disk.selector = ReplicaSelector::Disk;
  const Op remove_all{.kind = OpKind::RemoveAll, .force = true};
  const Op advance{.kind = OpKind::Advance, .advance_ms = 20'000};  // past the read lease
  t.steps = {{0, write, {}, {}}, {0, end, {}, {}},        {0, Op{.kind = OpKind::Failover}, {}, {}},
             {0, get, {}, {}},   {0, end_disk, {}, {}},   {20'000, advance, {}, {}},
             {20'000, remove_all, {}, {}}, {20'000, get, {}, {}}};
  const std::vector<std::string> kept{"ha_oplog", "failover_kept_processing"};
  EXPECT_EQ(conditions_met(t, 1), std::vector<std::string>{"ha_oplog"});
  EXPECT_EQ(conditions_met(t, 2), kept);  // at the failover itself
  EXPECT_EQ(conditions_met(t, 4), kept);  // a read writes nothing
  EXPECT_EQ(conditions_met(t, 5), kept);  // the model's End completed it (and granted a lease)
  EXPECT_EQ(conditions_met(t, 7), std::vector<std::string>{"ha_oplog"});  // the object is gone
}

// names_retiring_key: a step naming a key a logged removal took while the
// log lags, until the log catches up at an advance (rule log.window); a
// RemoveAll names every key of its tenant; without the lag nothing retires.
TEST(KnownFindings, NamesRetiringKeyLastsUntilTheLogCatchesUp) {
  Trace t;
  t.config.ha_oplog = true;
  t.config.oplog_lag = true;
  t.config.segments = {{ReplicaKind::Memory, 1 << 20}};
  const Op write{.kind = OpKind::PutStart, .object = {0, 0}, .size = 64, .memory_replicas = 1};
  const Op revoke{.kind = OpKind::PutRevoke, .object = {0, 0}};
  const Op other{.kind = OpKind::Get, .object = {0, 1}};
  const Op remove_all{.kind = OpKind::RemoveAll, .force = true};
  const Op advance{.kind = OpKind::Advance, .advance_ms = 1'000};
  t.steps = {{0, write, {}, {}},      {0, revoke, {}, {}},         {0, other, {}, {}},
             {0, write, {}, {}},      {0, remove_all, {}, {}},     {1'000, advance, {}, {}},
             {1'000, Op{.kind = OpKind::Get, .object = {0, 0}}, {}, {}}};
  const std::vector<std::string> lag{"ha_oplog", "oplog_lag"}, named{"ha_oplog", "oplog_lag", "names_retiring_key"};
  EXPECT_EQ(conditions_met(t, 1), lag);    // the Revoke itself: nothing retires before it
  EXPECT_EQ(conditions_met(t, 2), lag);    // another key
  EXPECT_EQ(conditions_met(t, 3), named);  // a new write of the revoked key
  EXPECT_EQ(conditions_met(t, 4), named);  // a RemoveAll of its tenant
  EXPECT_EQ(conditions_met(t, 6), lag);    // the advance caught the log up (a read of the key)
  t.config.oplog_lag = false;
  EXPECT_EQ(conditions_met(t, 3), std::vector<std::string>{"ha_oplog"});
}

// reaper_discard_unlogged: the reaper's discard of an expired write whose
// object has a COMPLETE replica is logged; while the log lags it awaits
// the catch-up at an advance (rule log.window); without the lag, nothing.
TEST(KnownFindings, ReaperDiscardUnloggedLastsUntilTheLogCatchesUp) {
  Trace t;
  t.config.ha_oplog = true;
  t.config.oplog_lag = true;
  t.config.disk_replica = true;
  t.config.segments = {{ReplicaKind::Memory, 1 << 20}};
  const Op write{.kind = OpKind::PutStart, .object = {0, 0}, .size = 64, .memory_replicas = 1};
  const Op end{.kind = OpKind::PutEnd, .object = {0, 0}};
  const Op evict{.kind = OpKind::Evict};  // evicts nothing: its census still runs the reaper
  const Op get{.kind = OpKind::Get, .object = {0, 0}};
  const Op past_release{.kind = OpKind::Advance, .advance_ms = 600'001};
  const Op tick{.kind = OpKind::Advance, .advance_ms = 1};
  t.steps = {{0, write, {}, {}},          {0, end, {}, {}},          {600'001, past_release, {}, {}},
             {600'001, evict, {}, {}},    {600'001, get, {}, {}},    {600'002, tick, {}, {}},
             {600'002, get, {}, {}}};
  const std::vector<std::string> lag{"ha_oplog", "oplog_lag"};
  std::vector<std::string> pending = lag;
  pending.push_back("reaper_discard_unlogged");
  EXPECT_EQ(conditions_met(t, 2), lag);      // not expired before the advance
  EXPECT_EQ(conditions_met(t, 3), pending);  // the eviction's reaper discards the disk replica's write
  EXPECT_EQ(conditions_met(t, 4), pending);  // the Get names the discarded write's key (a discard is no removal)
  t.steps[4].op.object = {0, 1};
  EXPECT_EQ(conditions_met(t, 4), lag);      // another key
  EXPECT_EQ(conditions_met(t, 5), lag);      // the advance caught the log up
  t.config.oplog_lag = false;
  EXPECT_EQ(conditions_met(t, 3), std::vector<std::string>{"ha_oplog"});
}

// restore_in_window: a restore that meets a removal awaiting the lagging
// log, before the failing step with no catch-up between (the advance that is
// the failing step itself still counts); a restore with nothing retiring, or
// without the lag, is not one.
TEST(KnownFindings, RestoreInWindowLastsUntilTheLogCatchesUp) {
  Trace t;
  t.config.ha_oplog = true;
  t.config.oplog_lag = true;
  t.config.segments = {{ReplicaKind::Memory, 1 << 20}};
  const Op write{.kind = OpKind::PutStart, .object = {0, 0}, .size = 64, .memory_replicas = 1};
  const Op end{.kind = OpKind::PutEnd, .object = {0, 0}}, remove{.kind = OpKind::Remove, .object = {0, 0}};
  const Op get{.kind = OpKind::Get, .object = {0, 1}};
  const Op restore{.kind = OpKind::Restore}, advance{.kind = OpKind::Advance, .advance_ms = 1};
  t.steps = {{0, restore, {}, {}}, {0, get, {}, {}},     {0, write, {}, {}},     {0, end, {}, {}}, {0, remove, {}, {}},
             {0, restore, {}, {}}, {0, get, {}, {}},     {1, advance, {}, {}},   {1, get, {}, {}}};
  const std::vector<std::string> lag{"ha_oplog", "oplog_lag"}, restored{"ha_oplog", "oplog_lag", "restore_in_window"};
  EXPECT_EQ(conditions_met(t, 1), lag);       // that restore met nothing retiring
  EXPECT_EQ(conditions_met(t, 6), restored);  // this one met the Remove's
  EXPECT_EQ(conditions_met(t, 7), restored);  // the catch-up itself runs what the restore left pending
  EXPECT_EQ(conditions_met(t, 8), lag);
  t.config.oplog_lag = false;
  EXPECT_EQ(conditions_met(t, 6), std::vector<std::string>{"ha_oplog"});
}

// A finding confirmed on another tree (also_on) is recognised there too.
TEST(KnownFindings, AFindingAlsoOnAnotherTreeMatchesThere) {
  const std::vector<KnownFinding> known{{"d.json", "main", {"view/get/hits"}, {}, {"pr-2835"}}};
  EXPECT_EQ(match_known(known, "view/get/hits", "main"), &known[0]);
  EXPECT_EQ(match_known(known, "view/get/hits", "pr-2835"), &known[0]);
  EXPECT_EQ(match_known(known, "view/get/hits", "pre-2909"), nullptr);
}

TEST(KnownFindings, ATraceWithoutFindingIsRefused) {
  const auto dir = std::filesystem::temp_directory_path() / ("pinsim-known-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "x.json") << R"({"format":"pinsim-trace","version":1,"config":{},"steps":[]})";
  try {
    load_known_findings(dir.string());
    FAIL() << "accepted a finding without signatures";
  } catch (const DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("x.json: $.finding: missing"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace pinsim
