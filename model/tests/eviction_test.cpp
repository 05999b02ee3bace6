// Eviction rules: soft pin is a priority (rule 9), expired pins are ordinary cache (rule 4), lazy expiry.
#include "model_fixture.h"

namespace pinsim::test {

// k1 pinned, k2 unpinned, both with expired leases.
class EvictionTest : public ModelTest {
 protected:
  void two_objects() {
    ASSERT_EQ(put(1, enable(60000)), ErrorCode::OK);
    ASSERT_EQ(put(2, preserve()), ErrorCode::OK);
    advance(1);
  }
};

TEST_F(EvictionTest, Rfc9_Pass1NeverTakesActivePin) {
  two_objects();
  evict(100, 0);
  EXPECT_TRUE(exists_in_view(1));
  EXPECT_FALSE(exists_in_view(2));
  EXPECT_EQ(gauge(), 1);
}

TEST_F(EvictionTest, Rfc9_SecondPassTakesActivePinWhenAllowed) {
  two_objects();
  evict(100, 100);  // pass 1 takes 2; pass 2B still owes one and takes the pin
  EXPECT_FALSE(exists_in_view(1));
  EXPECT_FALSE(exists_in_view(2));
  EXPECT_EQ(gauge(), 0);
}

TEST_F(EvictionTest, Rfc9_SecondPassKeepsActivePinWhenDisallowed) {
  config.allow_evict_soft_pinned_objects = false;
  reset();
  two_objects();
  evict(100, 100);
  EXPECT_TRUE(exists_in_view(1));
  EXPECT_FALSE(exists_in_view(2));
  EXPECT_EQ(deadline(1), 1000 + 60000);
  EXPECT_EQ(gauge(), 1);
}

TEST_F(EvictionTest, Rfc4_PinIsOrdinaryVictimFromItsDeadline) {
  ASSERT_EQ(put(1, enable(1000)), ErrorCode::OK);
  const Time d = now + 1000;
  now = d - 1;
  evict(100, 0);
  EXPECT_TRUE(exists_in_view(1));
  EXPECT_EQ(deadline(1), d);
  now = d;
  evict(100, 0);
  EXPECT_FALSE(exists_in_view(1));
  EXPECT_EQ(gauge(), 0);
}

TEST_F(EvictionTest, LazyExpiry_CensusNormalisesStalePinOfCandidate) {
  ASSERT_EQ(put(1, enable(100)), ErrorCode::OK);
  advance(500);
  evict(0, 0);  // evicts nothing, but the census evaluates the candidate
  ASSERT_TRUE(exists_in_view(1));
  EXPECT_EQ(deadline(1), std::nullopt);
  EXPECT_EQ(gauge(), 0);
}

TEST_F(EvictionTest, LazyExpiry_ObjectWithLiveLeaseIsNotEvaluated) {
  ASSERT_EQ(put(1, enable(100)), ErrorCode::OK);
  const Time d = now + 100;
  ASSERT_EQ(get(1).code, ErrorCode::OK);  // lease live: not a candidate
  advance(500);
  evict(100, 100);
  ASSERT_TRUE(exists_in_view(1));
  EXPECT_EQ(deadline(1), d);  // stale but stored: left to cleanup
  EXPECT_EQ(gauge(), 1);
}

// Mooncake's try_evict_group_or_object checks each member in the order hard
// pin, lease, (!allow_soft && IsSoftPinActive), evictable replica: a member
// with no evictable replica is still evaluated, so its stale pin is normalised.
TEST_F(EvictionTest, LazyExpiry_GroupEvictionNormalisesStalePinOfUnevictableMember) {
  ASSERT_EQ(put(1, preserve(), 64, /*group=*/7), ErrorCode::OK);
  ASSERT_EQ(put(2, enable(100), 64, /*group=*/7), ErrorCode::OK);
  ASSERT_EQ(upsert_start(2, preserve()), ErrorCode::OK);  // member 2: all PROCESSING
  advance(500);
  evict(100, 0);
  EXPECT_FALSE(exists_in_view(1));  // evicted through the group
  ASSERT_TRUE(exists_in_view(2));
  EXPECT_EQ(deadline(2), std::nullopt);
  EXPECT_EQ(gauge(), 0);
  EXPECT_EQ(obj(2)->pending, pending_view(SoftPinAction::Preserve, 0, 1));
}

// Pass 2A's scan tests hard pin, lease, lease <= cutoff, IsSoftPinActive, then
// the evictable replica: an unevictable object inside the cutoff is evaluated.
TEST_F(EvictionTest, LazyExpiry_Pass2aNormalisesStalePinOfUnevictableObject) {
  ASSERT_EQ(put(4, preserve(), 64, /*group=*/7), ErrorCode::OK);
  ASSERT_EQ(get(4).code, ErrorCode::OK);          // member 4 alone holds a live lease
  ASSERT_EQ(put(1, preserve()), ErrorCode::OK);   // lease 1000
  ASSERT_EQ(put(2, enable(100)), ErrorCode::OK);  // lease 1000, D 1100
  advance(10);
  ASSERT_EQ(upsert_start(2, preserve()), ErrorCode::OK);  // unevictable from now on
  advance(10);
  for (KeyId k : {5u, 6u}) {  // group 8: memory + NoF, lease 1020
    ASSERT_EQ(put_start(k, preserve(), 64, 1, 1, /*group=*/8), ErrorCode::OK);
    ASSERT_EQ(end(k), ErrorCode::OK);
  }
  advance(10);
  ASSERT_EQ(put(3, preserve(), 64, /*group=*/7), ErrorCode::OK);  // lease 1030
  now = 1100;
  // base = {1, 3, 4, 5, 6}. Pass 1 evicts 1, then 5 takes 6's memory with it
  // (both keep their NoF replica), 6 fails revalidation and is left over, 3 is
  // blocked by member 4's lease. Pass 2A: n = 5 - 3 = 2, capped at 1, cutoff
  // 1020; nothing more can be evicted, so the scan visits every object.
  evict(100, 100);
  EXPECT_FALSE(exists_in_view(1));
  EXPECT_EQ(obj(5)->complete_memory, 0u);
  EXPECT_EQ(obj(6)->complete_memory, 0u);
  EXPECT_EQ(obj(3)->complete_memory, 1u);
  EXPECT_EQ(obj(4)->complete_memory, 1u);
  ASSERT_TRUE(exists_in_view(2));
  EXPECT_EQ(deadline(2), std::nullopt);
  EXPECT_EQ(gauge(), 0);
}

TEST_F(EvictionTest, GroupWithLiveMemberLeaseIsSkipped) {
  ASSERT_EQ(put(1, preserve(), 64, 7), ErrorCode::OK);
  ASSERT_EQ(get(1).code, ErrorCode::OK);  // only member 1 exists yet
  ASSERT_EQ(put(2, preserve(), 64, 7), ErrorCode::OK);
  advance(1);
  evict(100, 100);  // 2 is a candidate, but member 1's lease protects the group
  EXPECT_TRUE(exists_in_view(1));
  EXPECT_TRUE(exists_in_view(2));
}

TEST_F(EvictionTest, Rfc9_Pass1KeepsPinnedGroupMember) {
  ASSERT_EQ(put(1, preserve(), 64, 7), ErrorCode::OK);
  ASSERT_EQ(put(2, enable(60000), 64, 7), ErrorCode::OK);
  advance(1);
  evict(100, 0);
  EXPECT_FALSE(exists_in_view(1));
  EXPECT_TRUE(exists_in_view(2));
  EXPECT_EQ(gauge(), 1);
}

}  // namespace pinsim::test
