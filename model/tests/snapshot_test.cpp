// Snapshot and restore under both profiles (RFC "Snapshot and HA semantics" vs Mooncake main).
#include "model_fixture.h"

namespace pinsim::test {

// Keys: 1 pinned + live lease, 2 pinned + expired lease, 3 unpinned + expired
// lease, 4 short pin (expires before restore) + live lease, 5 still PROCESSING.
class SnapshotTest : public ModelTest {
 protected:
  void populate() {
    ASSERT_EQ(put(1, enable(60000)), ErrorCode::OK);
    ASSERT_EQ(put(2, enable(60000)), ErrorCode::OK);
    ASSERT_EQ(put(3, preserve()), ErrorCode::OK);
    ASSERT_EQ(put(4, enable(50)), ErrorCode::OK);
    ASSERT_EQ(put_start(5, enable(60000)), ErrorCode::OK);
    ASSERT_EQ(get(1).code, ErrorCode::OK);
    ASSERT_EQ(get(4).code, ErrorCode::OK);
    ASSERT_EQ(snapshot(), ErrorCode::OK);
    advance(100);
  }
  void expect_gauge_consistent() { EXPECT_EQ(gauge(), stored_deadlines(m().view(now))); }
};

TEST_F(SnapshotTest, RestoreRfc_KeepsUnexpiredDeadlineAndPinnedLeaseExpiredObject) {
  config.profile = Profile::Rfc;
  reset();
  populate();
  ASSERT_EQ(restore(), ErrorCode::OK);
  EXPECT_EQ(deadline(1), 1000 + 60000);
  ASSERT_TRUE(exists_in_view(2));  // lease expired but pinned: survives
  EXPECT_EQ(deadline(2), 1000 + 60000);
  EXPECT_FALSE(exists_in_view(3));  // lease and pin both absent
  ASSERT_TRUE(exists_in_view(4));   // expired pin normalised, live lease keeps it
  EXPECT_EQ(deadline(4), std::nullopt);
  EXPECT_FALSE(exists_in_view(5));  // not COMPLETE
  EXPECT_EQ(gauge(), 2);
  expect_gauge_consistent();
  for (const ObjectView& o : m().view(now).objects) EXPECT_EQ(o.pending, std::nullopt);
  // The rebuilt index expires restored pins on time.
  now = 1000 + 60000;
  cleanup();
  EXPECT_EQ(gauge(), 0);
  expect_gauge_consistent();
}

TEST_F(SnapshotTest, RestoreMain_DropsEveryPinAndLeaseExpiredObjects) {
  config.profile = Profile::MooncakeMain;
  reset();
  populate();
  ASSERT_EQ(restore(), ErrorCode::OK);
  ASSERT_TRUE(exists_in_view(1));
  EXPECT_EQ(deadline(1), std::nullopt);  // ordinary cache
  EXPECT_FALSE(exists_in_view(2));       // lease expired: dropped, pinned or not
  EXPECT_FALSE(exists_in_view(3));
  ASSERT_TRUE(exists_in_view(4));
  EXPECT_EQ(deadline(4), std::nullopt);
  EXPECT_FALSE(exists_in_view(5));
  EXPECT_EQ(gauge(), 0);
  expect_gauge_consistent();
}

TEST_F(SnapshotTest, RestoreFallback_FailedCandidateLeaksNothing) {
  config.profile = Profile::Rfc;
  config.segments = {{ReplicaKind::Memory, 128}};
  reset();
  ASSERT_EQ(put(1, enable(60000)), ErrorCode::OK);
  ASSERT_EQ(snapshot(), ErrorCode::OK);  // older candidate: key 1 only
  ASSERT_EQ(put(2, enable(5000)), ErrorCode::OK);  // fills the segment
  ASSERT_EQ(snapshot(), ErrorCode::OK);  // newest candidate: keys 1 and 2
  ASSERT_EQ(restore(/*fail_first=*/true), ErrorCode::OK);
  EXPECT_TRUE(exists_in_view(1));
  EXPECT_EQ(deadline(1), 1000 + 60000);
  EXPECT_FALSE(exists_in_view(2));
  EXPECT_EQ(gauge(), 1);
  expect_gauge_consistent();
  // Nothing of the failed candidate holds memory or an index entry.
  EXPECT_EQ(put(3, preserve()), ErrorCode::OK);
  now = 1000 + 5000;
  cleanup();
  EXPECT_EQ(deadline(1), 1000 + 60000);
  EXPECT_EQ(gauge(), 1);
  expect_gauge_consistent();
}

TEST_F(SnapshotTest, RestoreFallback_NoUsableCandidateStartsEmpty) {
  config.profile = Profile::Rfc;
  reset();
  ASSERT_EQ(put(1, enable(60000)), ErrorCode::OK);
  ASSERT_EQ(snapshot(), ErrorCode::OK);
  EXPECT_EQ(restore(/*fail_first=*/true), ErrorCode::INTERNAL_ERROR);
  EXPECT_TRUE(m().view(now).objects.empty());
  EXPECT_EQ(gauge(), 0);
  ASSERT_EQ(put(1, preserve()), ErrorCode::OK);
}

TEST_F(SnapshotTest, RestoreMain_FallbackLeaksNothing) {
  config.profile = Profile::MooncakeMain;
  reset();
  ASSERT_EQ(put(1, enable(60000)), ErrorCode::OK);
  ASSERT_EQ(get(1).code, ErrorCode::OK);
  ASSERT_EQ(snapshot(), ErrorCode::OK);
  ASSERT_EQ(put(2, enable(60000)), ErrorCode::OK);
  ASSERT_EQ(get(2).code, ErrorCode::OK);
  ASSERT_EQ(snapshot(), ErrorCode::OK);
  ASSERT_EQ(restore(true), ErrorCode::OK);
  EXPECT_TRUE(exists_in_view(1));
  EXPECT_FALSE(exists_in_view(2));
  EXPECT_EQ(gauge(), 0);
  expect_gauge_consistent();
}

}  // namespace pinsim::test

namespace pinsim::test {

// Profile mooncake-main may differ from the rules only where Mooncake states
// the difference as intended: every row names its rule and carries a quote.
TEST(ProfileTable, EveryDifferenceCitesMooncakesIntent) {
  ASSERT_FALSE(profile_deltas().empty());
  for (const ProfileDelta& d : profile_deltas()) {
    SCOPED_TRACE(std::string(d.rule));
    EXPECT_TRUE(d.rule.starts_with("RFC 3028") || d.rule.starts_with("PR 2835"));
    EXPECT_NE(d.citation.find("Mooncake"), std::string_view::npos);
    EXPECT_FALSE(d.rfc.empty());
    EXPECT_FALSE(d.mooncake_main.empty());
    EXPECT_FALSE(d.source.empty());
  }
}

}  // namespace pinsim::test
