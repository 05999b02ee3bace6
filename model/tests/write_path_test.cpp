// Write-path rules: commit at End, Pending and revoke, each Upsert case, allocation.
#include "model_fixture.h"

namespace pinsim::test {

constexpr uint64_t kTooBig = 2u << 20;  // larger than any default segment

// ---- RFC rules 1, 2, 5, 6, 7, 8 -------------------------------------------

TEST_F(ModelTest, Rfc1_CommitOnlyOnFirstCompleteViaCurrentWrite) {
  ASSERT_EQ(put_start(1, enable(5000)), ErrorCode::OK);
  EXPECT_EQ(obj(1)->pending, pending_view(SoftPinAction::Enable, 5000, 1));
  EXPECT_EQ(deadline(1), std::nullopt);
  // A processing key whose selector targets no replica: OK, lease only, no commit.
  advance(10);
  ASSERT_EQ(end(1, ReplicaSelector::Nof), ErrorCode::OK);
  EXPECT_EQ(deadline(1), std::nullopt);
  EXPECT_EQ(obj(1)->pending, pending_view(SoftPinAction::Enable, 5000, 1));
  EXPECT_EQ(obj(1)->lease, now);
  EXPECT_EQ(gauge(), 0);
  advance(10);
  ASSERT_EQ(end(1, ReplicaSelector::Memory), ErrorCode::OK);
  EXPECT_EQ(deadline(1), now + 5000);
  EXPECT_EQ(obj(1)->pending, std::nullopt);
  EXPECT_EQ(gauge(), 1);
}

TEST_F(ModelTest, Rfc2_DeadlineCountsFromCompletionNotStart) {
  ASSERT_EQ(put_start(1, enable(5000)), ErrorCode::OK);
  advance(700);
  ASSERT_EQ(end(1), ErrorCode::OK);
  EXPECT_EQ(deadline(1), 1700 + 5000);
}

TEST_F(ModelTest, Rfc5_LaterEnableStartsNewLifetime) {
  ASSERT_EQ(put(1, enable(1000)), ErrorCode::OK);
  const Time d1 = now + 1000;
  advance(500);
  ASSERT_EQ(upsert_start(1, enable(5000)), ErrorCode::OK);
  EXPECT_EQ(deadline(1), d1);
  advance(100);
  ASSERT_EQ(end(1), ErrorCode::OK);
  EXPECT_EQ(deadline(1), now + 5000);
  EXPECT_EQ(gauge(), 1);  // Active -> Active: 0
}

TEST_F(ModelTest, Rfc6_DisableAcrossSizeChangeRemovesPinAtEnd) {
  ASSERT_EQ(put(1, enable(5000)), ErrorCode::OK);
  const Time d = now + 5000;
  advance(100);
  ASSERT_EQ(upsert_start(1, disable(), 128), ErrorCode::OK);  // Case C
  EXPECT_EQ(deadline(1), d);  // carried whatever the action
  EXPECT_EQ(gauge(), 1);
  ASSERT_EQ(end(1), ErrorCode::OK);
  EXPECT_EQ(deadline(1), std::nullopt);
  EXPECT_EQ(gauge(), 0);
}

TEST_F(ModelTest, Rfc7_PreserveKeepsUnexpiredDeadlineInPlace) {
  ASSERT_EQ(put(1, enable(5000)), ErrorCode::OK);
  const Time d = now + 5000;
  advance(100);
  ASSERT_EQ(upsert_start(1, preserve()), ErrorCode::OK);
  advance(100);
  ASSERT_EQ(end(1), ErrorCode::OK);
  EXPECT_EQ(deadline(1), d);
  EXPECT_EQ(gauge(), 1);
}

TEST_F(ModelTest, Rfc7_PreserveDropsExpiredDeadlineAcrossSizeChange) {
  ASSERT_EQ(put(1, enable(1000)), ErrorCode::OK);
  advance(2000);  // stale, still stored and counted
  EXPECT_EQ(gauge(), 1);
  ASSERT_EQ(upsert_start(1, preserve(), 128), ErrorCode::OK);
  EXPECT_EQ(deadline(1), std::nullopt);
  EXPECT_EQ(gauge(), 0);
  ASSERT_EQ(end(1), ErrorCode::OK);
  EXPECT_EQ(deadline(1), std::nullopt);
  EXPECT_EQ(gauge(), 0);
}

TEST_F(ModelTest, Rfc7_PreserveDropsDeadlineExpiringBetweenStartAndEnd) {
  ASSERT_EQ(put(1, enable(1000)), ErrorCode::OK);
  const Time d = now + 1000;
  advance(500);
  ASSERT_EQ(upsert_start(1, preserve(), 128), ErrorCode::OK);  // Case C, D > now: carried
  EXPECT_EQ(deadline(1), d);
  EXPECT_EQ(gauge(), 1);
  advance(600);  // now >= D
  ASSERT_EQ(end(1), ErrorCode::OK);
  EXPECT_EQ(deadline(1), std::nullopt);  // the commit drops it
  EXPECT_EQ(gauge(), 0);
}

TEST_F(ModelTest, Rfc8_EnableTtlZeroCommitsOrdinaryCache) {
  ASSERT_EQ(put(1, enable(0)), ErrorCode::OK);
  EXPECT_EQ(deadline(1), std::nullopt);
  EXPECT_EQ(gauge(), 0);
  ASSERT_EQ(put(2, enable(5000)), ErrorCode::OK);
  const Time d = now + 5000;
  advance(100);
  ASSERT_EQ(upsert_start(2, enable(0)), ErrorCode::OK);
  EXPECT_EQ(deadline(2), d);  // untouched until End
  ASSERT_EQ(end(2), ErrorCode::OK);
  EXPECT_EQ(deadline(2), std::nullopt);
  EXPECT_EQ(gauge(), 0);
}

// ---- Pending and revoke ----------------------------------------------------

TEST_F(ModelTest, Pending_PartialRevokeKeepsPendingThenNofEndCommits) {
  ASSERT_EQ(put_start(1, enable(5000), 64, 1, 1), ErrorCode::OK);
  EXPECT_EQ(obj(1)->pending, pending_view(SoftPinAction::Enable, 5000, 2));
  ASSERT_EQ(revoke(1, ReplicaSelector::Memory), ErrorCode::OK);
  ASSERT_TRUE(exists_in_view(1));
  EXPECT_EQ(obj(1)->processing, 1u);
  EXPECT_EQ(obj(1)->pending, pending_view(SoftPinAction::Enable, 5000, 1));
  EXPECT_EQ(gauge(), 0);
  advance(100);
  ASSERT_EQ(end(1, ReplicaSelector::Nof), ErrorCode::OK);
  EXPECT_EQ(obj(1)->complete_nof, 1u);
  EXPECT_EQ(deadline(1), now + 5000);
  EXPECT_EQ(obj(1)->pending, std::nullopt);
  EXPECT_EQ(gauge(), 1);
}

TEST_F(ModelTest, Pending_RevokeOfAllReplicasClearsWithObject) {
  ASSERT_EQ(put_start(1, enable(5000), 64, 1, 1), ErrorCode::OK);
  ASSERT_EQ(revoke(1, ReplicaSelector::Memory), ErrorCode::OK);
  ASSERT_EQ(revoke(1, ReplicaSelector::Nof), ErrorCode::OK);
  EXPECT_FALSE(exists_in_view(1));
  EXPECT_EQ(gauge(), 0);
  // Revoking an in-place Upsert erases the whole object, pin included (Mooncake
  // main UpsertRevoke, unchanged path; RFC 3028 "Revoke, preemption, and
  // processing cleanup": deleting the object clears Pending).
  ASSERT_EQ(put(2, enable(5000)), ErrorCode::OK);
  ASSERT_EQ(upsert_start(2, enable(9000)), ErrorCode::OK);
  EXPECT_EQ(gauge(), 1);
  ASSERT_EQ(apply(key_op(OpKind::UpsertRevoke, 2)).code, ErrorCode::OK);
  EXPECT_FALSE(exists_in_view(2));
  EXPECT_EQ(gauge(), 0);
}

TEST_F(ModelTest, Pending_PreemptionClearsPending) {
  ASSERT_EQ(put_start(1, enable(5000), 64, 1, 0, 0, /*client=*/1), ErrorCode::OK);
  ASSERT_EQ(upsert_start(1, preserve(), 64, 1, 0, 0, /*client=*/2), ErrorCode::OK);
  EXPECT_EQ(obj(1)->pending, pending_view(SoftPinAction::Preserve, 0, 1));
  EXPECT_EQ(obj(1)->processing, 1u);  // the preempted replica is discarded
  EXPECT_EQ(end(1, ReplicaSelector::All, /*client=*/1), ErrorCode::ILLEGAL_CLIENT);
  ASSERT_EQ(end(1, ReplicaSelector::All, /*client=*/2), ErrorCode::OK);
  EXPECT_EQ(deadline(1), std::nullopt);  // the Enable never committed
  EXPECT_EQ(gauge(), 0);
}

// ---- Upsert cases A, B, C --------------------------------------------------

TEST_F(ModelTest, UpsertA_PreemptionCarriesUnexpiredDeadline) {
  ASSERT_EQ(put(1, enable(10000)), ErrorCode::OK);
  const Time d = now + 10000;
  advance(100);
  ASSERT_EQ(upsert_start(1, preserve(), 64, 1, 0, 0, 1), ErrorCode::OK);  // Case B
  advance(100);
  ASSERT_EQ(upsert_start(1, preserve(), 64, 1, 0, 0, 2), ErrorCode::OK);  // preempt -> Case A
  EXPECT_EQ(deadline(1), d);
  EXPECT_EQ(gauge(), 1);  // -1 old, +1 carried
  EXPECT_EQ(obj(1)->pending, pending_view(SoftPinAction::Preserve, 0, 1));
  ASSERT_EQ(end(1, ReplicaSelector::All, 2), ErrorCode::OK);
  EXPECT_EQ(deadline(1), d);
  EXPECT_EQ(gauge(), 1);
}

TEST_F(ModelTest, UpsertA_PreemptionDropsExpiredDeadline) {
  ASSERT_EQ(put(1, enable(1000)), ErrorCode::OK);
  advance(100);
  ASSERT_EQ(upsert_start(1, preserve(), 64, 1, 0, 0, 1), ErrorCode::OK);  // Case B
  advance(1000);  // now >= D
  ASSERT_EQ(upsert_start(1, preserve(), 64, 1, 0, 0, 2), ErrorCode::OK);
  EXPECT_EQ(deadline(1), std::nullopt);
  EXPECT_EQ(gauge(), 0);
  ASSERT_EQ(end(1, ReplicaSelector::All, 2), ErrorCode::OK);
  EXPECT_EQ(deadline(1), std::nullopt);
  EXPECT_EQ(gauge(), 0);
}

// RFC 3028 Revoke: "An Upsert that has not yet become readable does not
// immediately consume or replace the previous committed deadline." A refused
// Start never becomes readable: nothing changes, the write in flight included.
TEST_F(ModelTest, UpsertA_AllocationFailureKeepsObjectAndPin) {
  ASSERT_EQ(put(1, enable(5000)), ErrorCode::OK);
  const Time d = now + 5000;
  ASSERT_EQ(upsert_start(1, preserve(), 64, 1, 0, 0, 1), ErrorCode::OK);  // Case B: all PROCESSING
  EXPECT_EQ(upsert_start(1, preserve(), kTooBig, 1, 0, 0, 2), ErrorCode::NO_AVAILABLE_HANDLE);
  ASSERT_TRUE(exists_in_view(1));
  EXPECT_EQ(deadline(1), d);
  EXPECT_EQ(gauge(), 1);
  EXPECT_EQ(obj(1)->processing, 1u);
  EXPECT_EQ(obj(1)->pending, pending_view(SoftPinAction::Preserve, 0, 1));
  EXPECT_EQ(m().hits()[Rule::StartFailureAtomic], 1u);
}

TEST_F(ModelTest, UpsertB_InPlaceLeavesDeadlineUntilEnd) {
  ASSERT_EQ(put(1, enable(5000)), ErrorCode::OK);
  const Time d = now + 5000;
  advance(100);
  ASSERT_EQ(upsert_start(1, enable(9000)), ErrorCode::OK);
  EXPECT_EQ(deadline(1), d);
  EXPECT_EQ(gauge(), 1);
  EXPECT_EQ(obj(1)->processing, 1u);
  EXPECT_EQ(obj(1)->complete_memory, 0u);
  EXPECT_EQ(obj(1)->pending, pending_view(SoftPinAction::Enable, 9000, 1));
  EXPECT_EQ(get(1).code, ErrorCode::REPLICA_IS_NOT_READY);
  EXPECT_FALSE(exist(1));
  advance(100);
  EXPECT_EQ(deadline(1), d);
  ASSERT_EQ(apply(key_op(OpKind::UpsertEnd, 1)).code, ErrorCode::OK);
  EXPECT_EQ(deadline(1), now + 9000);
  EXPECT_EQ(gauge(), 1);
}

TEST_F(ModelTest, UpsertB_DisableTakesEffectOnlyAtEnd) {
  ASSERT_EQ(put(1, enable(5000)), ErrorCode::OK);
  const Time d = now + 5000;
  advance(100);
  ASSERT_EQ(upsert_start(1, disable()), ErrorCode::OK);
  EXPECT_EQ(deadline(1), d);
  EXPECT_EQ(gauge(), 1);
  EXPECT_EQ(obj(1)->pending, pending_view(SoftPinAction::Disable, 0, 1));
  advance(100);
  ASSERT_EQ(end(1), ErrorCode::OK);
  EXPECT_EQ(deadline(1), std::nullopt);
  EXPECT_EQ(gauge(), 0);
}

TEST_F(ModelTest, UpsertC_SizeChangeCarriesUnexpiredDeadline) {
  ASSERT_EQ(put(1, enable(5000)), ErrorCode::OK);
  const Time d = now + 5000;
  advance(100);
  ASSERT_EQ(upsert_start(1, preserve(), 128), ErrorCode::OK);
  EXPECT_EQ(obj(1)->size, 128u);
  EXPECT_EQ(deadline(1), d);
  EXPECT_EQ(gauge(), 1);  // old destructor -1, new constructor +1
  EXPECT_EQ(obj(1)->pending, pending_view(SoftPinAction::Preserve, 0, 1));
  advance(100);
  ASSERT_EQ(end(1), ErrorCode::OK);
  EXPECT_EQ(deadline(1), d);
  EXPECT_EQ(gauge(), 1);
}

TEST_F(ModelTest, UpsertC_EnableCarriesOldDeadlineUntilEnd) {
  ASSERT_EQ(put(1, enable(5000)), ErrorCode::OK);
  const Time d = now + 5000;
  advance(100);
  ASSERT_EQ(upsert_start(1, enable(20000), 256), ErrorCode::OK);
  EXPECT_EQ(deadline(1), d);
  advance(100);
  ASSERT_EQ(end(1), ErrorCode::OK);
  EXPECT_EQ(deadline(1), now + 20000);
  EXPECT_EQ(gauge(), 1);
}

TEST_F(ModelTest, UpsertC_AllocationFailureKeepsObjectAndPin) {
  ASSERT_EQ(put(1, enable(5000)), ErrorCode::OK);
  const Time d = now + 5000;
  EXPECT_EQ(gauge(), 1);
  EXPECT_EQ(upsert_start(1, preserve(), kTooBig), ErrorCode::NO_AVAILABLE_HANDLE);
  ASSERT_TRUE(exists_in_view(1));
  EXPECT_EQ(deadline(1), d);
  EXPECT_EQ(obj(1)->complete_memory, 1u);
  EXPECT_EQ(gauge(), 1);
}

// ---- B10, B11 ---------------------------------------------------------------

TEST_F(ModelTest, B10_GaugeUnchangedAtStart) {
  ASSERT_EQ(put_start(1, enable(5000)), ErrorCode::OK);
  EXPECT_EQ(gauge(), 0);
  ASSERT_EQ(revoke(1), ErrorCode::OK);
  EXPECT_FALSE(exists_in_view(1));
  EXPECT_EQ(gauge(), 0);
  ASSERT_EQ(put(2, enable(5000)), ErrorCode::OK);
  ASSERT_EQ(upsert_start(2, disable()), ErrorCode::OK);
  EXPECT_EQ(gauge(), 1);  // the pin stays until End
}

TEST_F(ModelTest, B11_DuplicateEndNeverRefreshes) {
  ASSERT_EQ(put(1, enable(5000)), ErrorCode::OK);
  const Time d = now + 5000;
  const Time lease = obj(1)->lease;
  advance(1000);
  ASSERT_EQ(end(1), ErrorCode::OK);  // idempotent retry
  EXPECT_EQ(deadline(1), d);
  EXPECT_EQ(obj(1)->lease, lease);  // the idempotent path grants nothing
  EXPECT_EQ(gauge(), 1);
}

TEST_F(ModelTest, B11_LaterReplicaEndNeverRefreshes) {
  ASSERT_EQ(put_start(1, enable(5000), 64, 1, 1), ErrorCode::OK);
  ASSERT_EQ(end(1, ReplicaSelector::Memory), ErrorCode::OK);
  const Time d = now + 5000;
  EXPECT_EQ(deadline(1), d);
  advance(1000);
  ASSERT_EQ(end(1, ReplicaSelector::Nof), ErrorCode::OK);
  EXPECT_EQ(deadline(1), d);
  EXPECT_EQ(obj(1)->complete_nof, 1u);
  EXPECT_EQ(obj(1)->lease, now);  // GrantReadLease(0) on the processing path
  EXPECT_EQ(gauge(), 1);
}

// ---- PutStart over a stale write (Mooncake main PutStart) -------------------

TEST_F(ModelTest, PutStart_StaleWriteReplacedWithoutCarry) {
  ASSERT_EQ(put(1, enable(60000)), ErrorCode::OK);
  ASSERT_EQ(upsert_start(1, preserve(), 64, 1, 0, 0, 1), ErrorCode::OK);  // all PROCESSING
  const Time start = now;
  now = start + 30000;  // inclusive: still OBJECT_ALREADY_EXISTS
  EXPECT_EQ(put_start(1, preserve(), 64, 1, 0, 0, 2), ErrorCode::OBJECT_ALREADY_EXISTS);
  EXPECT_EQ(gauge(), 1);
  now = start + 30001;
  ASSERT_EQ(put_start(1, preserve(), 64, 1, 0, 0, 2), ErrorCode::OK);
  EXPECT_EQ(deadline(1), std::nullopt);  // not carried, unlike Upsert Case A
  EXPECT_EQ(gauge(), 0);
}

// ---- Allocation --------------------------------------------------------------

TEST_F(ModelTest, NoHandle_SmallSegmentRefusesSecondObject) {
  config.segments = {{ReplicaKind::Memory, 100}};
  reset();
  ASSERT_EQ(put(1, enable(5000)), ErrorCode::OK);
  const View before = m().view(now);
  EXPECT_EQ(put_start(2, enable(5000)), ErrorCode::NO_AVAILABLE_HANDLE);
  View after = m().view(now);
  EXPECT_EQ(after.placement_failures, before.placement_failures + 1);  // rule alloc.no-handle's count
  after.placement_failures = before.placement_failures;
  EXPECT_EQ(after, before);
  ASSERT_EQ(remove(1, true), ErrorCode::OK);  // memory freed at once
  EXPECT_EQ(put_start(2, enable(5000)), ErrorCode::OK);
}

TEST_F(ModelTest, NoHandle_MemoryOnlyPlacementIsBestEffort) {
  config.segments = {{ReplicaKind::Memory, 1u << 20}};
  reset();
  ASSERT_EQ(put_start(1, enable(5000), 64, /*mem=*/2), ErrorCode::OK);
  EXPECT_EQ(obj(1)->processing, 1u);
  EXPECT_EQ(obj(1)->pending, pending_view(SoftPinAction::Enable, 5000, 1));
  ASSERT_EQ(end(1), ErrorCode::OK);
  EXPECT_EQ(obj(1)->complete_memory, 1u);
  EXPECT_EQ(get(1).replicas, 1u);
}

TEST_F(ModelTest, NoHandle_StrictNofWriteNeedsEveryReplica) {
  config.segments = {{ReplicaKind::Memory, 1u << 20}, {ReplicaKind::Nof, 1u << 20}};
  reset();
  const View before = m().view(now);
  EXPECT_EQ(put_start(1, enable(5000), 64, /*mem=*/2, /*nof=*/1), ErrorCode::NO_AVAILABLE_HANDLE);
  EXPECT_EQ(put_start(1, enable(5000), 64, /*mem=*/1, /*nof=*/2), ErrorCode::NO_AVAILABLE_HANDLE);
  View after = m().view(now);
  EXPECT_EQ(after.placement_failures, before.placement_failures + 2);
  after.placement_failures = before.placement_failures;
  EXPECT_EQ(after, before);
}

// HasExpectedReplicaAllocation: 1 memory + 1 NoF (FLEXIBLE_DUAL_REPLICA) is
// satisfied by either side alone (Mooncake main's allocation check, unchanged path).
TEST_F(ModelTest, NoHandle_FlexibleDualAcceptsEitherSide) {
  config.segments = {{ReplicaKind::Memory, 1u << 20}};
  reset();
  ASSERT_EQ(put_start(1, enable(5000), 64, 1, 1), ErrorCode::OK);
  EXPECT_EQ(obj(1)->processing, 1u);
  EXPECT_EQ(obj(1)->pending, pending_view(SoftPinAction::Enable, 5000, 1));
  ASSERT_EQ(end(1, ReplicaSelector::Memory), ErrorCode::OK);
  EXPECT_EQ(obj(1)->complete_memory, 1u);
  EXPECT_EQ(deadline(1), now + 5000);
  config.segments = {{ReplicaKind::Nof, 1u << 20}};
  reset();
  ASSERT_EQ(put_start(1, enable(5000), 64, 1, 1), ErrorCode::OK);
  ASSERT_EQ(end(1, ReplicaSelector::Nof), ErrorCode::OK);
  EXPECT_EQ(obj(1)->complete_nof, 1u);
  EXPECT_EQ(deadline(1), now + 5000);
  config.segments = {{ReplicaKind::Memory, 32}, {ReplicaKind::Nof, 32}};
  reset();
  EXPECT_EQ(put_start(1, enable(5000), 64, 1, 1), ErrorCode::NO_AVAILABLE_HANDLE);
}

}  // namespace pinsim::test
