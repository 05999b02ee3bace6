// The transition table of RFC 3028 "Metrics" and "Object state model", one test
// per row: committed, pending and gauge after each event.
#include "model_fixture.h"

namespace pinsim::test {

// Row: PutStart(a, ttl) -> Disabled, Pending(a, ttl, E = new ids), G 0.
TEST_F(ModelTest, AppendixB_PutStartRecordsPendingOnly) {
  ASSERT_EQ(put_start(1, enable(5000), 64, 2, 1), ErrorCode::OK);
  EXPECT_EQ(deadline(1), std::nullopt);
  EXPECT_EQ(obj(1)->pending, pending_view(SoftPinAction::Enable, 5000, 3));
  EXPECT_EQ(gauge(), 0);
}

// Row: UpsertStart Case B -> committed unchanged (stale allowed), Pending(a,
// ttl, E = previously COMPLETE ids), G 0.
TEST_F(ModelTest, AppendixB_UpsertCaseBKeepsStaleDeadlineAndRecordsPending) {
  ASSERT_EQ(put(1, enable(100)), ErrorCode::OK);
  const Time d = now + 100;
  advance(500);  // stale
  ASSERT_EQ(upsert_start(1, enable(5000)), ErrorCode::OK);
  EXPECT_EQ(deadline(1), d);  // not normalised at Start
  EXPECT_EQ(obj(1)->pending, pending_view(SoftPinAction::Enable, 5000, 1));
  EXPECT_EQ(gauge(), 1);
}

// Row: UpsertStart Case C or Case A after preempt -> carried D if D > now,
// else Disabled; Pending with new ids; G -1 for the old deadline (even
// stale), +1 if carried.
TEST_F(ModelTest, AppendixB_ReplacementCarriesOnlyUnexpiredDeadline) {
  ASSERT_EQ(put(1, enable(5000)), ErrorCode::OK);  // will be carried
  ASSERT_EQ(put(2, enable(100)), ErrorCode::OK);   // will be stale
  const Time d1 = now + 5000;
  advance(100);  // now == D2: expired
  ASSERT_EQ(upsert_start(1, disable(), 128), ErrorCode::OK);  // Case C
  EXPECT_EQ(deadline(1), d1);
  EXPECT_EQ(obj(1)->pending, pending_view(SoftPinAction::Disable, 0, 1));
  EXPECT_EQ(gauge(), 2);
  ASSERT_EQ(upsert_start(2, enable(7000), 128), ErrorCode::OK);  // Case C
  EXPECT_EQ(deadline(2), std::nullopt);
  EXPECT_EQ(obj(2)->pending, pending_view(SoftPinAction::Enable, 7000, 1));
  EXPECT_EQ(gauge(), 1);
  // Case A after preemption: key 1 is PROCESSING with no COMPLETE replica.
  ASSERT_EQ(upsert_start(1, preserve(), 64, 1, 0, 0, /*client=*/2), ErrorCode::OK);
  EXPECT_EQ(deadline(1), d1);
  EXPECT_EQ(obj(1)->size, 64u);
  EXPECT_EQ(obj(1)->pending, pending_view(SoftPinAction::Preserve, 0, 1));
  EXPECT_EQ(gauge(), 1);
}

// Row: Preempt (processing key) -> Pending None, then replaced.
TEST_F(ModelTest, AppendixB_PreemptDropsPendingBeforeCaseB) {
  // Memory COMPLETE (committed), NoF still PROCESSING: preemption leaves a
  // COMPLETE replica, so the Upsert continues as Case B on it.
  ASSERT_EQ(put_start(1, enable(5000), 64, 1, 1), ErrorCode::OK);
  ASSERT_EQ(end(1, ReplicaSelector::Memory), ErrorCode::OK);
  const Time d = now + 5000;
  EXPECT_EQ(obj(1)->pending, std::nullopt);
  ASSERT_EQ(upsert_start(1, disable(), 64, 1, 0, 0, /*client=*/2), ErrorCode::OK);
  EXPECT_EQ(obj(1)->complete_nof, 0u);
  EXPECT_EQ(obj(1)->processing, 1u);  // the memory replica, now E
  EXPECT_EQ(obj(1)->pending, pending_view(SoftPinAction::Disable, 0, 1));
  EXPECT_EQ(deadline(1), d);
  EXPECT_EQ(gauge(), 1);
  EXPECT_EQ(end(1, ReplicaSelector::Nof, /*client=*/1), ErrorCode::ILLEGAL_CLIENT);
}

// Row: PutEnd (first COMPLETE, via an E replica) -> the commit table of 1.2;
// pending None.
TEST_F(ModelTest, AppendixB_FirstCompleteEndAppliesCommitTable) {
  enum class Before { None, Active, Stale };
  struct Row {
    SoftPinRequest req;
    Before before;
    bool pinned_after;  // deadline == commit time + 5000 when set
    bool keeps_old;     // PRESERVE on Active keeps the old deadline
    int gauge_delta;
  };
  const Row rows[] = {
      {enable(5000), Before::None, true, false, +1},
      {enable(5000), Before::Active, true, false, 0},
      {enable(5000), Before::Stale, true, false, 0},
      {enable(0), Before::None, false, false, 0},
      {enable(0), Before::Active, false, false, -1},
      {enable(0), Before::Stale, false, false, -1},
      {disable(), Before::None, false, false, 0},
      {disable(), Before::Active, false, false, -1},
      {disable(), Before::Stale, false, false, -1},
      {preserve(), Before::None, false, false, 0},
      {preserve(), Before::Active, false, true, 0},
      {preserve(), Before::Stale, false, false, -1},
  };
  int i = 0;
  for (const Row& row : rows) {
    SCOPED_TRACE(::testing::Message() << "row " << i++);
    now = 1000;
    reset();
    const SoftPinRequest first = row.before == Before::None     ? preserve()
                                 : row.before == Before::Active ? enable(60000)
                                                                : enable(100);
    ASSERT_EQ(put(1, first), ErrorCode::OK);
    const std::optional<Time> old = deadline(1);
    advance(500);
    ASSERT_EQ(upsert_start(1, row.req), ErrorCode::OK);
    const int64_t g0 = gauge();
    advance(100);
    ASSERT_EQ(end(1), ErrorCode::OK);
    std::optional<Time> expected;
    if (row.pinned_after) expected = now + 5000;
    if (row.keeps_old) expected = old;
    EXPECT_EQ(deadline(1), expected);
    EXPECT_EQ(obj(1)->pending, std::nullopt);
    EXPECT_EQ(gauge() - g0, row.gauge_delta);
  }
}

// Row: PutEnd (other cases) -> committed, pending unchanged; G 0.
TEST_F(ModelTest, AppendixB_OtherEndsChangeNothing) {
  // A later End after the commit.
  ASSERT_EQ(put_start(1, enable(5000), 64, 1, 1), ErrorCode::OK);
  ASSERT_EQ(end(1, ReplicaSelector::Memory), ErrorCode::OK);
  const Time d = now + 5000;
  advance(100);
  ASSERT_EQ(end(1, ReplicaSelector::Nof), ErrorCode::OK);
  EXPECT_EQ(deadline(1), d);
  EXPECT_EQ(obj(1)->pending, std::nullopt);
  EXPECT_EQ(gauge(), 1);
  // An End that completes nothing keeps Pending as it was.
  ASSERT_EQ(put_start(2, enable(7000)), ErrorCode::OK);
  ASSERT_EQ(end(2, ReplicaSelector::Nof), ErrorCode::OK);
  EXPECT_EQ(deadline(2), std::nullopt);
  EXPECT_EQ(obj(2)->pending, pending_view(SoftPinAction::Enable, 7000, 1));
  EXPECT_EQ(gauge(), 1);
  // A duplicate End on a finished write.
  ASSERT_EQ(end(1), ErrorCode::OK);
  EXPECT_EQ(deadline(1), d);
  EXPECT_EQ(gauge(), 1);
}

// Row: PutRevoke (partial) -> committed unchanged; pending kept iff a viable E
// replica remains; G 0.
TEST_F(ModelTest, AppendixB_PartialRevokeKeepsViablePending) {
  ASSERT_EQ(put(1, enable(60000)), ErrorCode::OK);
  const Time d = now + 60000;
  ASSERT_EQ(upsert_start(1, preserve(), 256, 1, 1), ErrorCode::OK);  // Case C, mem + NoF
  EXPECT_EQ(deadline(1), d);
  ASSERT_EQ(revoke(1, ReplicaSelector::Nof), ErrorCode::OK);
  EXPECT_EQ(deadline(1), d);
  EXPECT_EQ(obj(1)->pending, pending_view(SoftPinAction::Preserve, 0, 1));
  EXPECT_EQ(gauge(), 1);
}

// Row: PutRevoke leaving the object invalid -> object erased; G -1 if a
// deadline was stored.
TEST_F(ModelTest, AppendixB_RevokeLeavingNothingErasesObject) {
  ASSERT_EQ(put(1, enable(60000)), ErrorCode::OK);
  ASSERT_EQ(upsert_start(1, enable(5000), 256), ErrorCode::OK);  // carried D
  EXPECT_EQ(gauge(), 1);
  ASSERT_EQ(revoke(1), ErrorCode::OK);
  EXPECT_FALSE(exists_in_view(1));
  EXPECT_EQ(gauge(), 0);
}

// Row: eviction evaluation with now >= D -> Disabled; G -1.
TEST_F(ModelTest, AppendixB_EvictionEvaluationNormalisesAtDeadline) {
  ASSERT_EQ(put(1, enable(100)), ErrorCode::OK);
  now += 100;  // exactly D
  evict(0, 0);
  ASSERT_TRUE(exists_in_view(1));
  EXPECT_EQ(deadline(1), std::nullopt);
  EXPECT_EQ(obj(1)->pending, std::nullopt);
  EXPECT_EQ(gauge(), 0);
}

// Row: Cleanup(now >= D), registration matches -> Disabled; G -1 (aggregate).
TEST_F(ModelTest, AppendixB_CleanupNormalisesDueDeadlines) {
  ASSERT_EQ(put(1, enable(100)), ErrorCode::OK);
  ASSERT_EQ(put(2, enable(100)), ErrorCode::OK);
  ASSERT_EQ(put_start(3, enable(50)), ErrorCode::OK);  // pending only: untouched
  now += 100;
  cleanup();
  EXPECT_EQ(deadline(1), std::nullopt);
  EXPECT_EQ(deadline(2), std::nullopt);
  EXPECT_EQ(obj(3)->pending, pending_view(SoftPinAction::Enable, 50, 1));
  EXPECT_EQ(gauge(), 0);
}

// Row: Reads -> nothing but the lease.
TEST_F(ModelTest, AppendixB_ReadsChangeOnlyTheLease) {
  ASSERT_EQ(put(1, enable(100)), ErrorCode::OK);
  ASSERT_EQ(put(2, enable(60000)), ErrorCode::OK);
  ASSERT_EQ(put_start(3, enable(60000)), ErrorCode::OK);
  advance(500);
  View before = m().view(now);
  for (KeyId k : {1u, 2u, 3u, 4u}) {
    get(k);
    exist(k);
  }
  View after = m().view(now);
  ASSERT_EQ(after.objects.size(), before.objects.size());
  for (size_t i = 0; i < after.objects.size(); ++i) after.objects[i].lease = before.objects[i].lease;
  EXPECT_EQ(after.memory_hit_bytes, before.memory_hit_bytes + 2 * 64);  // the reads of k1, k2 (rule read.hit)
  EXPECT_EQ(after.reads_served, before.reads_served + 2);
  EXPECT_EQ(after.memory_hits, before.memory_hits + 2);
  after.memory_hit_bytes = before.memory_hit_bytes;
  after.memory_hits = before.memory_hits;
  after.reads_served = before.reads_served;
  EXPECT_EQ(after, before);
}

// Row: Remove / evict-to-empty -> object gone; G -1 if a deadline was stored.
TEST_F(ModelTest, AppendixB_RemoveAndEvictToEmptyDropTheGauge) {
  ASSERT_EQ(put(1, enable(60000)), ErrorCode::OK);
  ASSERT_EQ(put(2, enable(60000)), ErrorCode::OK);
  ASSERT_EQ(put(3, enable(100)), ErrorCode::OK);
  advance(200);  // key 3 stale, still counted
  EXPECT_EQ(gauge(), 3);
  ASSERT_EQ(remove(1), ErrorCode::OK);
  EXPECT_EQ(gauge(), 2);
  ASSERT_EQ(remove(3), ErrorCode::OK);  // a stale deadline is counted too
  EXPECT_EQ(gauge(), 1);
  evict(100, 100);  // pass 2B takes the active pin
  EXPECT_FALSE(exists_in_view(2));
  EXPECT_EQ(gauge(), 0);
}

// Row: Snapshot restore (Mooncake main) -> all Disabled, all None, restored
// objects add 0.
TEST_F(ModelTest, AppendixB_RestoreLeavesEveryObjectDisabled) {
  config.profile = Profile::MooncakeMain;
  reset();
  for (KeyId k : {1u, 2u, 3u}) {
    ASSERT_EQ(put(k, enable(60000)), ErrorCode::OK);
    ASSERT_EQ(get(k).code, ErrorCode::OK);
  }
  ASSERT_EQ(snapshot(), ErrorCode::OK);
  EXPECT_EQ(gauge(), 3);
  ASSERT_EQ(restore(), ErrorCode::OK);
  const View v = m().view(now);
  EXPECT_EQ(v.objects.size(), 3u);
  for (const ObjectView& o : v.objects) {
    EXPECT_EQ(o.deadline, std::nullopt);
    EXPECT_EQ(o.pending, std::nullopt);
  }
  EXPECT_EQ(gauge(), 0);
}

}  // namespace pinsim::test
