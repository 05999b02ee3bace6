// Model::placement (the segment of every replica, for the concurrent lane)
// and the canonical encoding that ranks replica ids per object: states that
// differ only in the order objects were written in encode alike.
#include "model_fixture.h"

namespace pinsim::test {

TEST_F(ModelTest, PlacementShowsEachReplicasSegmentAndEligibility) {
  config.segments = {{ReplicaKind::Memory, 1024}, {ReplicaKind::Memory, 1024}, {ReplicaKind::Nof, 1024}};
  reset();
  ASSERT_EQ(put_start(1, enable(), 64, 2, 1), ErrorCode::OK);
  const Placement p = m().placement();
  ASSERT_EQ(p.objects.size(), 1u);
  EXPECT_EQ(p.objects[0].id, (ObjectId{0, 1}));
  ASSERT_EQ(p.objects[0].replicas.size(), 3u);
  std::vector<uint32_t> segments;
  for (const ReplicaPlacement& r : p.objects[0].replicas) {
    EXPECT_EQ(r.status, ReplicaStatus::Processing);
    EXPECT_TRUE(r.eligible);
    segments.push_back(r.segment);
  }
  std::sort(segments.begin(), segments.end());
  EXPECT_EQ(segments, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_TRUE(p.discarded.empty());
}

// Which client owns the in-flight write decides whose End or Revoke is
// refused next: the renamed encoding (the explorer's) forgets it, the kept
// one (the linearizability search's) must not.
TEST_F(ModelTest, KeptActorsTellWhichClientOwnsTheWrite) {
  auto after = [&](ClientId first, ClientId second, Model::Actors actors) {
    reset();
    EXPECT_EQ(upsert_start(1, {}, 64, 1, 0, 0, first), ErrorCode::OK);
    EXPECT_EQ(upsert_start(1, {}, 64, 1, 0, 0, second), ErrorCode::OK);  // preempts the first
    std::string out;
    m().canonical_state(now, &out, Model::IdRanks::PerObject, actors);
    return out;
  };
  EXPECT_EQ(after(1, 2, Model::Actors::Renamed), after(2, 1, Model::Actors::Renamed));
  EXPECT_NE(after(1, 2, Model::Actors::Kept), after(2, 1, Model::Actors::Kept));
}

TEST_F(ModelTest, PerObjectIdRanksForgetTheOrderObjectsWereWrittenIn) {
  config.segments = {{ReplicaKind::Memory, 1024}};
  auto after = [&](KeyId first, KeyId second, Model::IdRanks ranks) {
    reset();
    EXPECT_EQ(put_start(first, {}, 32), ErrorCode::OK);
    EXPECT_EQ(put_start(second, {}, 32), ErrorCode::OK);
    std::string out;
    m().canonical_state(now, &out, ranks);
    return out;
  };
  EXPECT_NE(after(1, 2, Model::IdRanks::Global), after(2, 1, Model::IdRanks::Global));
  EXPECT_EQ(after(1, 2, Model::IdRanks::PerObject), after(2, 1, Model::IdRanks::PerObject));
  EXPECT_NE(after(1, 2, Model::IdRanks::PerObject), after(1, 3, Model::IdRanks::PerObject));
}

// A discarded replica's status is in Placement, which the concurrent lane
// compares at a round's end, so the linearizability search's visited set must
// tell it apart: an End that completed the replica before a replacing Upsert
// discarded it, or the Upsert first (lane trace discarded-status-935).
TEST_F(ModelTest, KeptEncodingTellsADiscardedReplicasStatus) {
  config.segments = {{ReplicaKind::Memory, 1024}, {ReplicaKind::Nof, 1024}};
  auto after = [&](bool end_first) {
    reset();
    EXPECT_EQ(upsert_start(1, disable(), 64, 1, 0), ErrorCode::OK);
    if (end_first) {
      EXPECT_EQ(end(1, ReplicaSelector::Memory), ErrorCode::OK);
    }
    EXPECT_EQ(upsert_start(1, disable(), 32, 0, 1), ErrorCode::OK);  // another size: the 64 bytes are discarded
    if (!end_first) {
      EXPECT_EQ(end(1, ReplicaSelector::Memory), ErrorCode::OK);
    }
    EXPECT_EQ(end(1), ErrorCode::OK);  // the NoF replica: from here both orders differ only there
    std::string out;
    m().canonical_state(now, &out, Model::IdRanks::PerObject, Model::Actors::Kept, Model::Counters::Kept);
    return std::pair{out, m().placement()};
  };
  const auto [end_first, upsert_first] = std::pair{after(true), after(false)};
  ASSERT_NE(end_first.second, upsert_first.second);  // the discarded replica: COMPLETE, or PROCESSING
  EXPECT_TRUE(end_first.first != upsert_first.first) << "a discarded replica's status is not in the kept encoding";
}

}  // namespace pinsim::test
