// Unit tests of the deadline index (RFC 3028 "Deadline index", "TTL updates
// and stale heap entries"): registration rules, lazy invalidation of
// superseded entries, and the max(4096, 2 * live) compaction bound.
#include <gtest/gtest.h>

#include "deadline_index.h"

namespace pinsim::embedded {
namespace {

TEST(DeadlineIndex, SameRegistrationPushesNothing) {
  DeadlineIndex index;
  index.upsert({0, 1}, 3, 100);
  index.upsert({0, 1}, 3, 100);
  EXPECT_EQ(index.heap_size(), 1u);
  index.upsert({0, 1}, 4, 100);  // same deadline, new shard: a new registration
  EXPECT_EQ(index.heap_size(), 2u);
  EXPECT_EQ(index.registration_count(), 1u);
}

TEST(DeadlineIndex, SupersededEntryIsDroppedWhenPopped) {
  DeadlineIndex index;
  index.upsert({0, 1}, 0, 100);
  index.upsert({0, 1}, 0, 200);
  EXPECT_TRUE(index.pop_expired(150).empty());
  EXPECT_EQ(index.registration_count(), 1u);
  EXPECT_EQ(index.heap_size(), 1u);
  const auto due = index.pop_expired(200);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].deadline, 200);
  EXPECT_EQ(index.registration_count(), 0u);
}

TEST(DeadlineIndex, RemoveIfMatchesNeedsTheExactRegistration) {
  DeadlineIndex index;
  index.upsert({0, 1}, 2, 100);
  index.remove_if_matches({0, 1}, 2, 99);
  index.remove_if_matches({0, 1}, 1, 100);
  EXPECT_EQ(index.registration_count(), 1u);
  index.remove_if_matches({0, 1}, 2, 100);
  EXPECT_EQ(index.registration_count(), 0u);
  EXPECT_TRUE(index.pop_expired(1000).empty());
}

TEST(DeadlineIndex, PopIsInclusiveAtTheDeadline) {
  DeadlineIndex index;
  index.upsert({0, 1}, 0, 100);
  EXPECT_TRUE(index.pop_expired(99).empty());
  EXPECT_EQ(index.pop_expired(100).size(), 1u);
}

TEST(DeadlineIndex, RepeatedUpdatesCompactToTheThreshold) {
  DeadlineIndex index;
  for (Time d = 1; d <= 5000; ++d) {
    index.upsert({0, 1}, 0, 10'000 + d);
    ASSERT_LE(index.heap_size(), DeadlineIndex::kMinCompactionThreshold);
  }
  EXPECT_EQ(index.registration_count(), 1u);
}

TEST(DeadlineIndex, ThresholdGrowsWithLiveRegistrations) {
  DeadlineIndex index;
  for (KeyId k = 0; k < 3000; ++k) index.upsert({0, k}, 0, 1'000'000);
  for (KeyId k = 0; k < 3000; ++k) index.upsert({0, k}, 0, 2'000'000);
  EXPECT_EQ(index.heap_size(), 6000u);  // 6000 <= 2 * 3000: no rebuild
  index.upsert({0, 0}, 0, 3'000'000);
  EXPECT_EQ(index.heap_size(), 3000u);  // 6001 > 6000: one entry per registration
}

}  // namespace
}  // namespace pinsim::embedded
