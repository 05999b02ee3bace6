// Read-path and removal rules: reads grant only the lease (rule 3); removal ignores pins (rule 10).
#include "model_fixture.h"

namespace pinsim::test {

TEST_F(ModelTest, Rfc3_GetAndExistDoNotRenewActivePin) {
  ASSERT_EQ(put(1, enable(5000)), ErrorCode::OK);
  const Time d = now + 5000;
  advance(1000);
  const Outcome g = get(1);
  ASSERT_EQ(g.code, ErrorCode::OK);
  EXPECT_EQ(g.replicas, 1u);
  EXPECT_TRUE(exist(1));
  EXPECT_EQ(deadline(1), d);
  EXPECT_EQ(obj(1)->lease, now + 10000);
  EXPECT_EQ(gauge(), 1);
}

TEST_F(ModelTest, Rfc3_ReadsDoNotNormaliseOrReactivateStalePin) {
  ASSERT_EQ(put(1, enable(100)), ErrorCode::OK);
  const Time d = now + 100;
  advance(500);
  ASSERT_EQ(get(1).code, ErrorCode::OK);
  EXPECT_TRUE(exist(1));
  EXPECT_EQ(deadline(1), d);  // still stored, not moved, not normalised
  EXPECT_EQ(gauge(), 1);
  advance(10000);  // the read lease has expired
  evict(100, 0);   // the object is an ordinary pass-1 victim
  EXPECT_FALSE(exists_in_view(1));
  EXPECT_EQ(gauge(), 0);
}

TEST_F(ModelTest, Rfc3_GroupReadRefreshChangesLeasesOnly) {
  ASSERT_EQ(put(1, enable(60000), 64, /*group=*/7), ErrorCode::OK);
  ASSERT_EQ(put(2, enable(60000), 64, /*group=*/7), ErrorCode::OK);
  const Time d = now + 60000;
  advance(100);
  View before = m().view(now);
  ASSERT_EQ(get(1).code, ErrorCode::OK);
  View after = m().view(now);
  ASSERT_EQ(after.objects.size(), 2u);
  for (ObjectView& o : after.objects) {
    EXPECT_EQ(o.lease, now + 10000) << "key " << o.id.key;  // every member refreshed
    EXPECT_EQ(o.deadline, d);
  }
  for (size_t i = 0; i < 2; ++i) after.objects[i].lease = before.objects[i].lease;
  EXPECT_EQ(after.memory_hit_bytes, before.memory_hit_bytes + 64);  // the read's hit (rule read.hit)
  EXPECT_EQ(after.reads_served, before.reads_served + 1);
  EXPECT_EQ(after.memory_hits, before.memory_hits + 1);
  after.memory_hit_bytes = before.memory_hit_bytes;
  after.memory_hits = before.memory_hits;
  after.reads_served = before.reads_served;
  EXPECT_EQ(after, before);  // nothing but leases and the hit changed
}

TEST_F(ModelTest, Rfc3_ReadOfUnreadableObjectGrantsNothing) {
  ASSERT_EQ(put_start(1, enable(5000)), ErrorCode::OK);
  const View before = m().view(now);
  EXPECT_EQ(get(1).code, ErrorCode::REPLICA_IS_NOT_READY);
  EXPECT_FALSE(exist(1));
  EXPECT_EQ(m().view(now), before);
}

TEST_F(ModelTest, Rfc10_ForcedRemoveTakesPinnedObjectWithLiveLease) {
  ASSERT_EQ(put(1, enable(60000)), ErrorCode::OK);
  ASSERT_EQ(get(1).code, ErrorCode::OK);
  EXPECT_EQ(remove(1), ErrorCode::OBJECT_HAS_LEASE);
  EXPECT_EQ(gauge(), 1);
  ASSERT_EQ(remove(1, /*force=*/true), ErrorCode::OK);
  EXPECT_FALSE(exists_in_view(1));
  EXPECT_EQ(gauge(), 0);
}

TEST_F(ModelTest, Rfc10_RemoveAfterLeaseExpiryTakesPinnedObject) {
  ASSERT_EQ(put(1, enable(60000)), ErrorCode::OK);
  ASSERT_EQ(get(1).code, ErrorCode::OK);
  advance(9999);
  EXPECT_EQ(remove(1), ErrorCode::OBJECT_HAS_LEASE);
  advance(1);  // now == lease: expired
  ASSERT_EQ(remove(1), ErrorCode::OK);
  EXPECT_FALSE(exists_in_view(1));
  EXPECT_EQ(gauge(), 0);
}

TEST_F(ModelTest, Rfc10_RemoveRefusesProcessingObjectEvenForced) {
  ASSERT_EQ(put(1, enable(60000)), ErrorCode::OK);
  ASSERT_EQ(upsert_start(1, preserve()), ErrorCode::OK);
  EXPECT_EQ(remove(1, true), ErrorCode::REPLICA_IS_NOT_READY);
  EXPECT_TRUE(exists_in_view(1));
  EXPECT_EQ(gauge(), 1);
}

}  // namespace pinsim::test
