// Concurrent clients of the embedded master under the scheduler, checked for
// linearizability against the model. The history: an object whose soft pin
// expired at 1000 is being rewritten with Enable; at 2000 one client ends the
// rewrite (committing a new pin) while another runs the expiry cleanup. Every
// interleaving of the correct master is linearizable; a master whose cleanup
// does not check the stored deadline (F2) is not in some, and a master whose
// cleanup checks it before taking the shard lock (F18) only when the End
// runs between the check and the lock, which no sequential run shows.
#include <gtest/gtest.h>

#include "concurrent.h"
#include "embedded_target.h"
#include "runner.h"

namespace pinsim::sched {
namespace {

Op write(OpKind kind) {
  Op op;
  op.kind = kind;
  op.client = 1;
  op.object = {0, 1};
  op.size = 64;
  op.memory_replicas = 1;
  op.soft_pin.action = static_cast<uint8_t>(SoftPinAction::Enable);
  op.soft_pin.ttl_ms = 1000;
  return op;
}

Op end(OpKind kind) {
  Op op;
  op.kind = kind;
  op.client = 1;
  op.object = {0, 1};
  return op;
}

// A Put of `key` with no pin.
Op unpinned_put(KeyId key) {
  Op op = write(OpKind::PutStart);
  op.object.key = key;
  op.soft_pin = {};
  return op;
}

// A model of one memory segment of 4 KiB, empty.
Model one_segment() {
  Config config;
  config.segments = {{ReplicaKind::Memory, 4096}};
  return std::get<Model>(Model::create(config));
}

Op exist_of(KeyId key) {
  Op op;
  op.kind = OpKind::Exist;
  op.object = {0, key};
  return op;
}

Op put_end_of(KeyId key) {
  Op op = end(OpKind::PutEnd);
  op.object.key = key;
  return op;
}

// BatchEvict at `pct` of the candidates, its lower bound the same.
Op evict_at(uint32_t pct) {
  Op op;
  op.kind = OpKind::Evict;
  op.evict_target_pct = op.evict_lowerbound_pct = pct;
  return op;
}

Op cleanup() {
  Op op;
  op.kind = OpKind::Cleanup;
  return op;
}

struct Outcomes {
  int runs = 0;
  int violations = 0;
  int lock_cycles = 0;
  int deadlocks = 0;
  int cycles_without_deadlock = 0;  // a potential deadlock no schedule of that run hit
  std::string first;
};

// Seeded schedules of {cleanup} || {upsert_end} after the sequential prefix
// (the cleanup locks every shard: far too many schedules to enumerate, so a
// few preemptions per run, at random points, as PCT does).
Outcomes explore(const std::vector<std::string>& faults) {
  Config config;
  config.segments = {{ReplicaKind::Memory, 1024}};
  const std::vector<std::pair<Time, Op>> prefix = {
      {0, write(OpKind::PutStart)}, {0, end(OpKind::PutEnd)}, {2000, write(OpKind::UpsertStart)}};
  Outcomes out;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    RandomChoices choices(seed);
    std::string error;
    auto target = make_embedded_target(config, fault_options(faults), &error);
    auto created = Model::create(config);
    EXPECT_TRUE(target && std::holds_alternative<Model>(created)) << error;
    Model model = std::get<Model>(std::move(created));
    for (const auto& [t, op] : prefix) {
      EXPECT_EQ(target->apply(op, t).code, ErrorCode::OK);
      EXPECT_EQ(model.apply(op, t).code, ErrorCode::OK);
    }
    History h = run_concurrent(*target, {{cleanup()}, {end(OpKind::UpsertEnd)}}, 2000, choices, /*preempt_pct=*/1);
    out.deadlocks += h.run.deadlock;
    out.cycles_without_deadlock += !h.run.deadlock && !h.run.lock_cycle.empty();
    ++out.runs;
    out.lock_cycles += !h.run.lock_cycle.empty();
    if (auto why = check_linearizable(model, h, 2000, target->capabilities())) {
      if (!out.violations++) out.first = *why;
    }
  }
  return out;
}

TEST(Linearizability, EveryScheduleOfTheCorrectMasterIsLinearizable) {
  Outcomes o = explore({});
  EXPECT_GT(o.runs, 2);
  EXPECT_EQ(o.violations, 0) << o.first;
  EXPECT_EQ(o.lock_cycles, 0);
  EXPECT_EQ(o.deadlocks, 0);
}

TEST(Linearizability, CleanupWithoutTheDeadlineCheckIsCaught) {
  Outcomes o = explore({"F2"});
  EXPECT_GT(o.violations, 0);
}

// F18 is invisible to a sequential run (the check and the clear see the same
// state) and shows only when the End runs between them.
TEST(Linearizability, CleanupCheckingOutsideTheShardLockIsCaughtOnlyByAnInterleaving) {
  Outcomes o = explore({"F18"});
  EXPECT_GT(o.violations, 0);
  EXPECT_LT(o.violations, o.runs);
}

// F19 breaks the lock order (index mutex over the shard locks, while an End
// takes the shard lock and then the index). Where the cleanup finds a due
// entry, the lock graph has the cycle; some of those schedules deadlock
// outright, and the others show it as a potential deadlock.
TEST(Linearizability, HoldingTheIndexOverShardLocksIsALockOrderCycle) {
  Outcomes o = explore({"F19"});
  EXPECT_GT(o.deadlocks, 0);
  EXPECT_GT(o.cycles_without_deadlock, 0);
  EXPECT_LE(o.deadlocks, o.lock_cycles);  // every deadlock shows in the graph
}

// The target's Placement is part of what a linearization must end in: two
// starts of two 32-byte memory replicas on two memory segments are accepted
// as the target placed them, but a placement no order gives (one object's
// replicas both on one segment, the other's on the other: the same View) is
// not; without a Placement the View decides.
TEST(Linearizability, APlacementNoOrderGivesIsNotLinearizable) {
  Config config;
  config.segments = {{ReplicaKind::Memory, 1024}, {ReplicaKind::Memory, 1024}};
  std::string error;
  auto target = make_embedded_target(config, {}, &error);
  ASSERT_TRUE(target) << error;
  const Model model = std::get<Model>(Model::create(config));
  Op a = write(OpKind::PutStart), b = write(OpKind::PutStart);
  a.size = b.size = 32;
  a.memory_replicas = b.memory_replicas = 2;
  b.object.key = 2;
  RandomChoices choices(1);
  History h = run_concurrent(*target, {{a}, {b}}, 0, choices);
  ASSERT_TRUE(h.final_placement);
  EXPECT_EQ(check_linearizable(model, h, 0, target->capabilities()), std::nullopt);
  ASSERT_EQ(h.final_placement->objects.size(), 2u);
  uint32_t segment = 0;
  for (ObjectPlacement& o : h.final_placement->objects) {
    for (ReplicaPlacement& r : o.replicas) r.segment = segment;
    ++segment;
  }
  EXPECT_NE(check_linearizable(model, h, 0, target->capabilities()), std::nullopt);
  h.final_placement.reset();
  EXPECT_EQ(check_linearizable(model, h, 0, target->capabilities()), std::nullopt);
}

// The ops applied to a model of two segments of `capacity` bytes one after
// another, as calls of one actor (each with its preference, when it has one),
// and whether the history they make is linearizable with no segment compared
// (a target that shows none, as MasterService). `last` is the last call's
// outcome, which only the given placements give.
bool sequence_linearizable(uint64_t capacity, const std::vector<std::pair<Op, std::vector<uint64_t>>>& ops,
                           ErrorCode* last) {
  Config config;
  config.segments = {{ReplicaKind::Memory, capacity}, {ReplicaKind::Memory, capacity}};
  const Model start = std::get<Model>(Model::create(config));
  Model m = start;
  History h;
  for (const auto& [op, preference] : ops) {
    if (!preference.empty()) m.prefer_in_next_start(preference);
    const uint64_t at = 2 * h.calls.size() + 1;
    h.calls.push_back({0, op, m.apply(op, 0), at, at + 1});
  }
  *last = h.calls.back().outcome.code;
  h.final_view = m.view(0);
  return !check_linearizable(start, h, 0, kCapAll & ~kCapSegments);
}

// A start's placement still decides a later start's room. Two segments of
// 100 bytes: k1 (30) and k2 (30) both on A leave B free for k3 (100), which
// the model's own placement (the most free space: k2 on B) refuses. The
// search keeps trying every order of the segments whenever the history's
// starts could fill a segment; only a history where none can takes the
// model's own placement for all (placement_blind).
TEST(Linearizability, APlacementThatDecidesALaterStartsRoomIsTriedWithoutSegmentsCompared) {
  Op k1 = write(OpKind::PutStart), k2 = k1, k3 = k1;
  k1.size = k2.size = 30, k3.size = 100;
  k2.object.key = 2, k3.object.key = 3;
  ErrorCode last{};
  EXPECT_TRUE(sequence_linearizable(100, {{k1, {}}, {k2, {2, 1}}, {k3, {}}}, &last));  // k2 on A too
  EXPECT_EQ(last, ErrorCode::OK);
}

// The same when a call names a segment: k1 on B survives the unmount of A,
// which the model's own placement (k1 on A, the lowest index of two empty
// segments) does not give, so the search tries B too.
TEST(Linearizability, APlacementThatDecidesWhatAnUnmountTakesIsTriedWithoutSegmentsCompared) {
  Op unmount;
  unmount.kind = OpKind::Unmount;
  unmount.segment = 0;
  ErrorCode last{};
  EXPECT_TRUE(sequence_linearizable(
      1024, {{write(OpKind::PutStart), {1, 2}}, {end(OpKind::PutEnd), {}}, {unmount, {}}, {end(OpKind::Get), {}}},
      &last));  // k1 on B
  EXPECT_EQ(last, ErrorCode::OK);
}

// Two clients start an upsert of one key at once; both are accepted (the
// later preempts the earlier), then the earlier writer's revoke is refused
// and the later's succeeds. Only the order where client 2 starts first
// explains it. The search must not take the state after both starts, with
// client 1 owning the write, for the one with client 2 owning it: the calls
// left belong to particular clients (Model::Actors::Kept).
TEST(Linearizability, WhichClientOwnsAPreemptingWriteIsNotForgotten) {
  Config config;
  config.segments = {{ReplicaKind::Memory, 1024}};
  const Model start = std::get<Model>(Model::create(config));
  Op start1 = write(OpKind::UpsertStart), start2 = start1;
  start2.client = 2;
  Op revoke1 = end(OpKind::UpsertRevoke), revoke2 = revoke1;
  revoke2.client = 2;
  Model m = start;  // the order that explains it: start2, start1, revoke2, revoke1
  History h;
  h.calls = {{0, start1, {}, 1, 6}, {1, start2, {}, 2, 5}, {1, revoke2, {}, 7, 8}, {0, revoke1, {}, 9, 10}};
  for (size_t i : {1, 0, 2, 3}) h.calls[i].outcome = m.apply(h.calls[i].op, 0);
  ASSERT_EQ(h.calls[2].outcome.code, ErrorCode::ILLEGAL_CLIENT);
  ASSERT_EQ(h.calls[3].outcome.code, ErrorCode::OK);
  h.final_view = m.view(0);
  EXPECT_EQ(check_linearizable(start, h, 0, kCapAll), std::nullopt);
}

// Two clients upsert keys 1 and 2 in one batch each, in opposite orders, and
// the batches overlap; then each ends its batch. Key by key the writes
// interleave (client 1's k1, client 2's k2, then each preempts the other's
// other key), so each End is accepted for one key and refused for the
// other, which no order of whole batches gives (the later batch would own
// both keys). A batch is not atomic (concurrent.h): the history is
// linearizable, and with the second End's answers swapped it is not.
TEST(Linearizability, TwoBatchesMayInterleaveKeyByKey) {
  Config config;
  config.segments = {{ReplicaKind::Memory, 1024}};
  const Model start = std::get<Model>(Model::create(config));
  Op a = write(OpKind::BatchUpsertStart);
  a.keys = {1, 2};
  a.sizes = {64, 64};
  Op b = a;
  b.client = 2;
  b.keys = {2, 1};
  Op end_a = end(OpKind::BatchUpsertEnd), end_b = end_a;
  end_a.keys = {1, 2};
  end_b.client = 2;
  end_b.keys = {2, 1};
  Model m = start;
  Outcome oa, ob, oea, oeb;
  oa.results.resize(2), ob.results.resize(2);
  oa.results[0] = m.apply(batch_element(a, 0), 0).as_key_result();  // a's k1
  ob.results[0] = m.apply(batch_element(b, 0), 0).as_key_result();  // b's k2
  oa.results[1] = m.apply(batch_element(a, 1), 0).as_key_result();  // a's k2 preempts b's
  ob.results[1] = m.apply(batch_element(b, 1), 0).as_key_result();  // b's k1 preempts a's
  oea = m.apply(end_a, 0);
  oeb = m.apply(end_b, 0);
  ASSERT_EQ(oea.results.size(), 2u);
  ASSERT_NE(oea.results[0].code, oea.results[1].code);  // one key refused, the other ended
  History h;
  h.calls = {{0, a, oa, 1, 4}, {1, b, ob, 2, 3}, {0, end_a, oea, 5, 6}, {1, end_b, oeb, 7, 8}};
  h.final_view = m.view(0);
  EXPECT_EQ(check_linearizable(start, h, 0, kCapAll), std::nullopt);
  std::swap(h.calls[3].outcome.results[0], h.calls[3].outcome.results[1]);
  EXPECT_NE(check_linearizable(start, h, 0, kCapAll), std::nullopt);
}

// A RemoveAll runs while k1's write ends and k2 is upserted: it met k1 before
// the End and k2 after the Start, so it removed nothing and both stay. Any
// single instant would have found one of them, or both, COMPLETE. RemoveAll
// is not atomic (concurrent.h): linearizable in its steps; a count of 2 is not.
TEST(Linearizability, RemoveAllMayMissObjectsWrittenWhileItRuns) {
  Config config;
  config.segments = {{ReplicaKind::Memory, 1024}};
  Model start = std::get<Model>(Model::create(config));
  Op put1 = write(OpKind::PutStart), put2 = put1;
  put2.client = 2;
  put2.object.key = 2;
  Op end1 = end(OpKind::PutEnd), end2 = end1;
  end2.client = 2;
  end2.object.key = 2;
  for (const Op& op : {put1, put2, end2}) ASSERT_EQ(start.apply(op, 0).code, ErrorCode::OK);
  Op upsert2 = put2;
  upsert2.kind = OpKind::UpsertStart;
  Op all;
  all.kind = OpKind::RemoveAll;
  all.client = 3;
  all.force = true;
  Model m = start;
  History h;
  h.calls = {{2, all, {}, 1, 6}, {0, end1, m.apply(end1, 0), 2, 3}, {1, upsert2, m.apply(upsert2, 0), 4, 5}};
  h.calls[0].outcome.removed = 0;
  h.final_view = m.view(0);
  EXPECT_EQ(check_linearizable(start, h, 0, kCapAll), std::nullopt);
  h.calls[0].outcome.removed = 2;
  EXPECT_NE(check_linearizable(start, h, 0, kCapAll), std::nullopt);
}

// An eviction below 100% is taken in its steps even when no call overlaps
// it: k1 and k2 are soft-pinned with the same lease, pass 1 has no unpinned
// candidate, and pass 2 may take one pinned object (rule 9, pinned ones
// allowed). Mooncake takes the first it meets from a random shard, k2 here,
// where the model's key order takes k1: one Evict in key order does not
// explain it, the steps do. An eviction of both is still not linearizable.
TEST(Linearizability, AnEvictionBelowEveryCandidateMayTakeItsObjectsInAnyOrder) {
  Config config;
  config.segments = {{ReplicaKind::Memory, 1024}};
  config.allow_evict_soft_pinned_objects = true;
  Model start = std::get<Model>(Model::create(config));
  for (KeyId k : {1, 2}) {
    Op put = write(OpKind::PutStart), put_end = end(OpKind::PutEnd);
    put.object.key = put_end.object.key = k;
    start.apply(put, 0);
    start.apply(put_end, 0);
  }
  Op evict;
  evict.kind = OpKind::Evict;
  evict.evict_target_pct = evict.evict_lowerbound_pct = 50;
  Model k2_taken = start;
  k2_taken.scan_first_in_next_eviction({{0, 2}});
  History h;
  h.calls = {{0, evict, k2_taken.apply(evict, 0), 1, 2}};
  h.final_view = k2_taken.view(0);
  ASSERT_EQ(h.final_view.objects.size(), 1u);
  ASSERT_EQ(h.final_view.objects.front().id.key, 1u);
  EXPECT_EQ(check_linearizable(start, h, 0, kCapAll | kCapEvictionInSteps), std::nullopt);
  EXPECT_NE(check_linearizable(start, h, 0, kCapAll), std::nullopt);  // one Evict, in key order
  Op all = evict;
  all.evict_target_pct = all.evict_lowerbound_pct = 100;
  Model both_taken = start;
  both_taken.apply(all, 0);
  h.final_view = both_taken.view(0);
  EXPECT_NE(check_linearizable(start, h, 0, kCapAll | kCapEvictionInSteps), std::nullopt);
}

// An eviction's steps follow the holds the scheduler saw (Call::census_at,
// release_after). k2, written at this instant, is a candidate; k4 is still
// being written. While BatchEvict runs, an ExistKey leases k2 and k4's Put
// ends, both after the census held their shards and before the release. So
// pass 1 skips k2, and pass 2 may take k4 (its lease is k2's census lease),
// as Mooncake does. A master that then keeps k4 is explained when the steps
// may go anywhere inside the call (k2's census after the Exist, k4's pass-2
// step before its End), and not once they follow the holds.
TEST(Linearizability, AnEvictionsStepsFollowTheHoldsTheSchedulerSaw) {
  const Time now = 1000;
  Model start = one_segment();
  start.apply(unpinned_put(2), now);
  start.apply(put_end_of(2), now);
  start.apply(unpinned_put(4), now);
  const Op exist = exist_of(2), end4 = put_end_of(4), evict = evict_at(100);
  Model m = start;
  const Outcome exist_out = m.apply(exist, now), end_out = m.apply(end4, now);
  const View kept = m.view(now);
  m.apply(evict, now);
  const View taken = m.view(now);
  ASSERT_EQ(kept.objects.size(), 2u);
  ASSERT_EQ(taken.objects.size(), 1u);
  History h;
  h.calls = {{1, evict, Outcome{}, 1, 10}, {0, exist, exist_out, 3, 4}, {0, end4, end_out, 5, 6}};
  h.final_view = kept;
  const Capabilities caps = kCapAll | kCapEvictionInSteps;
  EXPECT_EQ(check_linearizable(start, h, now, caps), std::nullopt);
  h.calls[0].census_at = {{{0, 2}, 2}, {{0, 4}, 2}};
  h.calls[0].release_after = 7;
  EXPECT_NE(check_linearizable(start, h, now, caps), std::nullopt);
  h.final_view = taken;
  EXPECT_EQ(check_linearizable(start, h, now, caps), std::nullopt);
}

// k1 is the census's one candidate at 5%; k4 is still being written. After
// the census an ExistKey leases k1 (calls[1]) and k4's Put ends (calls[2]),
// while BatchEvict (calls[0]) runs; the census held both shards at clock 2
// and the release came at 7. `kept`: nothing taken; `k4_taken`: k4 taken.
struct LeasedCandidateAndEndedWrite {
  static constexpr Time now = 1000;
  Model start = one_segment();
  History h;
  View kept, k4_taken;
  LeasedCandidateAndEndedWrite() {
    start.apply(unpinned_put(1), 0);
    start.apply(put_end_of(1), 0);
    start.apply(unpinned_put(4), now);
    const Op exist = exist_of(1), end4 = put_end_of(4), evict = evict_at(5);
    Model m = start;
    const Outcome exist_out = m.apply(exist, now), end_out = m.apply(end4, now);
    kept = m.view(now);
    m.apply(evict, now);
    k4_taken = m.view(now);
    h.calls = {{1, evict, Outcome{}, 1, 10}, {0, exist, exist_out, 3, 4}, {0, end4, end_out, 5, 6}};
    h.calls[0].census_at = {{{0, 1}, 2}, {{0, 4}, 2}};
    h.calls[0].release_after = 7;
  }
  bool explained() const {
    return check_linearizable(start, h, now, kCapAll | kCapEvictionInSteps) == std::nullopt;
  }
};

// Below 10/44 of the objects BatchEvict works from a second scan, the
// collect, and refills pass 1 when it falls short (Mooncake's compact
// frontier; Model::evict_collect_step, evict_refill_step). Pass 1 skips k1,
// and Mooncake then takes k4: by its full collect when the Exist came before
// the collect, by the refill when it came after. At 25% there is no second
// scan: pass 2A's cutoff is k1's old lease, and k4, leased at this instant,
// stays. (At this size the full collect placed at the first Pass1 step
// explains it alone too; the Collect and Refill steps follow the compact
// path Mooncake takes here.)
TEST(Linearizability, BelowTenFortyFourthsTheEvictionCollectsAndRefillsAfterItsCensus) {
  LeasedCandidateAndEndedWrite x;
  ASSERT_EQ(x.kept.objects.size(), 2u);
  ASSERT_EQ(x.k4_taken.objects.size(), 1u);
  ASSERT_EQ(x.k4_taken.objects.front().id.key, 1u);
  x.h.final_view = x.k4_taken;
  EXPECT_TRUE(x.explained());
  x.h.calls[0].op.evict_target_pct = x.h.calls[0].op.evict_lowerbound_pct = 25;
  EXPECT_FALSE(x.explained());
}

// The collect follows its holds too (Call::collect_at). Here the Exist and
// the End return before the collect holds their shards. The collect then
// finds no candidate up to the reserve cutoff (k1 is leased, k4's lease is
// later), so the shortfall guard collects every candidate, k4, and pass 1
// takes it. A master whose full collect took nothing keeps both, which is
// explained while the Collect steps may go anywhere after the census (k1
// collected before the Exist, the refill before the End), and not once they
// follow the holds.
TEST(Linearizability, BelowTenFortyFourthsTheCollectFollowsItsHolds) {
  LeasedCandidateAndEndedWrite x;
  x.h.final_view = x.kept;
  EXPECT_TRUE(x.explained());
  x.h.calls[0].collect_at = {{{0, 1}, 6}, {{0, 4}, 6}};
  EXPECT_FALSE(x.explained());
  x.h.final_view = x.k4_taken;
  EXPECT_TRUE(x.explained());
}

// And the refill no earlier than its scan (Call::refill_after). Now the
// collect holds k1's shard before the ExistKey, so it collects k1, and pass
// 1, after the Exist, skips it: it falls short, and the refill's scan, after
// k4's End, finds k4 with a later lease, which pass 1 then takes. A master
// that never refills keeps both, which is explained while a Refill step may
// go before the End, and not once it comes after the scan.
TEST(Linearizability, BelowTenFortyFourthsTheRefillFollowsItsScan) {
  LeasedCandidateAndEndedWrite x;
  x.h.calls[0].collect_at = x.h.calls[0].census_at;
  x.h.final_view = x.kept;
  EXPECT_TRUE(x.explained());
  x.h.calls[0].refill_after = {{{0, 1}, 6}, {{0, 4}, 6}};
  EXPECT_FALSE(x.explained());
  x.h.final_view = x.k4_taken;
  EXPECT_TRUE(x.explained());
}

// A start's quota eviction follows Mooncake's scan, which starts at a random
// shard. Tenant 0's quota holds two objects; k1 and k2 are written, their
// leases expired, and a Put of k3 is refused for quota once, evicts one of
// them and is admitted. The model's key order takes k1, Mooncake may take k2
// (lane seed 86's shrunk trace): the search tries each order of the tenant's
// candidates. A master that took both is still not linearizable.
TEST(Linearizability, AStartsQuotaEvictionMayTakeAnyOfItsTenantsCandidates) {
  Config config;
  config.segments = {{ReplicaKind::Memory, 1024}};
  config.multi_tenant = true;
  config.tenant_quota_bytes = {{0, 128}};
  Model start = std::get<Model>(Model::create(config));
  for (KeyId k : {1, 2}) {
    Op put = write(OpKind::PutStart), put_end = end(OpKind::PutEnd);
    put.object.key = put_end.object.key = k;
    put.soft_pin = {};
    ASSERT_EQ(start.apply(put, 0).code, ErrorCode::OK);
    ASSERT_EQ(start.apply(put_end, 0).code, ErrorCode::OK);
  }
  Op put3 = write(OpKind::PutStart);
  put3.object.key = 3;
  put3.soft_pin = {};
  Model k2_taken = start;
  k2_taken.scan_first_in_next_eviction({{0, 2}});
  History h;
  h.calls = {{0, put3, k2_taken.apply(put3, 0), 1, 2}};
  ASSERT_EQ(h.calls[0].outcome.code, ErrorCode::OK);
  h.final_view = k2_taken.view(0);
  ASSERT_EQ(h.final_view.objects.size(), 2u);
  ASSERT_EQ(h.final_view.objects.front().id.key, 1u);
  EXPECT_EQ(check_linearizable(start, h, 0, kCapAll), std::nullopt);
  Model both_taken = k2_taken;
  both_taken.scan_first_in_next_eviction({{0, 1}});
  both_taken.apply(evict_at(100), 0);
  h.final_view = both_taken.view(0);
  ASSERT_EQ(h.final_view.objects.size(), 1u);
  EXPECT_NE(check_linearizable(start, h, 0, kCapAll), std::nullopt);
}

}  // namespace
}  // namespace pinsim::sched
