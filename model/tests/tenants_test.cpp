// Tenant rules: keys are scoped per tenant; the per-tenant byte quota refuses writes over it.
#include "model_fixture.h"

namespace pinsim::test {

TEST_F(ModelTest, Tenants_SameKeyInTwoTenantsIsTwoObjects) {
  ASSERT_EQ(put(1, enable(5000), 64, 0, /*tenant=*/0), ErrorCode::OK);
  ASSERT_EQ(put(1, preserve(), 128, 0, /*tenant=*/1), ErrorCode::OK);
  EXPECT_EQ(m().view(now).objects.size(), 2u);
  EXPECT_EQ(deadline(1, 0), now + 5000);
  EXPECT_EQ(deadline(1, 1), std::nullopt);
  EXPECT_EQ(obj(1, 1)->size, 128u);
  EXPECT_EQ(gauge(), 1);
  // A write in one tenant does not touch the other.
  ASSERT_EQ(upsert_start(1, enable(9000), 128, 1, 0, 0, 1, /*tenant=*/1), ErrorCode::OK);
  ASSERT_EQ(end(1, ReplicaSelector::All, 1, /*tenant=*/1), ErrorCode::OK);
  EXPECT_EQ(deadline(1, 0), 1000 + 5000);
  EXPECT_EQ(deadline(1, 1), now + 9000);
  EXPECT_EQ(gauge(), 2);
  ASSERT_EQ(remove(1, true, /*tenant=*/0), ErrorCode::OK);
  EXPECT_FALSE(exists_in_view(1, 0));
  EXPECT_TRUE(exists_in_view(1, 1));
  EXPECT_EQ(gauge(), 1);
}

// Multi-tenant mode with tenant 1 under a 100-byte quota and tenant 0 under
// 1 MiB; soft-pinned objects are not evicted for quota, so a pinned object
// holds its charge.
void multi_tenant(Config& config) {
  config.multi_tenant = true;
  config.tenant_quota_bytes = {{0, 1u << 20}, {1, 100}};
  config.allow_evict_soft_pinned_objects = false;
}

TEST_F(ModelTest, Tenants_QuotaExceededRefusesWrite) {
  multi_tenant(config);
  reset();
  ASSERT_EQ(put(1, enable(5000), 64, 0, /*tenant=*/1), ErrorCode::OK);
  const View before = m().view(now);
  EXPECT_EQ(put_start(2, enable(5000), 64, 1, 0, 0, 1, /*tenant=*/1), ErrorCode::TENANT_QUOTA_EXCEEDED);
  View after = m().view(now);
  EXPECT_EQ(after.quota_rejections, before.quota_rejections + 1);  // once, after the retries
  after.quota_rejections = before.quota_rejections;
  EXPECT_EQ(after, before);
  // Another tenant's quota is its own; a tenant without a policy may not write.
  ASSERT_EQ(put(2, enable(5000), 64, 0, /*tenant=*/0), ErrorCode::OK);
  EXPECT_EQ(put_start(2, enable(5000), 64, 1, 0, 0, 1, /*tenant=*/2), ErrorCode::TENANT_NOT_REGISTERED);
  // Removing frees the tenant's bytes.
  ASSERT_EQ(remove(1, true, /*tenant=*/1), ErrorCode::OK);
  EXPECT_EQ(put_start(2, enable(5000), 64, 1, 0, 0, 1, /*tenant=*/1), ErrorCode::OK);
}

TEST_F(ModelTest, Tenants_QuotaExceededOnSizeChangeKeepsObject) {
  multi_tenant(config);
  reset();
  ASSERT_EQ(put(1, enable(5000), 64, 0, /*tenant=*/1), ErrorCode::OK);
  EXPECT_EQ(gauge(), 1);
  // Failure atomicity: a refused Case C leaves the old object and its pin.
  EXPECT_EQ(upsert_start(1, preserve(), 128, 1, 0, 0, 1, /*tenant=*/1), ErrorCode::TENANT_QUOTA_EXCEEDED);
  EXPECT_TRUE(exists_in_view(1, 1));
  EXPECT_EQ(gauge(), 1);
  EXPECT_EQ(m().view(now).usage, (std::vector<UsageView>{{1, 64}}));
}

TEST_F(ModelTest, Tenants_SizeChangeKeepsTheOldChargeUntilItSettles) {
  multi_tenant(config);
  config.tenant_quota_bytes[1] = 200;
  reset();
  ASSERT_EQ(put(1, enable(5000), 64, 0, /*tenant=*/1), ErrorCode::OK);
  // 64 -> 96 bytes: the old 64 stay charged beside the new 96 until End.
  EXPECT_EQ(upsert_start(1, preserve(), 96, 1, 0, 0, 1, /*tenant=*/1), ErrorCode::OK);
  EXPECT_EQ(m().view(now).usage, (std::vector<UsageView>{{1, 160}}));
  ASSERT_EQ(end(1, ReplicaSelector::All, 1, /*tenant=*/1), ErrorCode::OK);
  EXPECT_EQ(m().view(now).usage, (std::vector<UsageView>{{1, 96}}));
  // 96 -> 128: 96 + 128 > 200, and the pinned object may not be evicted.
  EXPECT_EQ(upsert_start(1, preserve(), 128, 1, 0, 0, 1, /*tenant=*/1), ErrorCode::TENANT_QUOTA_EXCEEDED);
}

TEST_F(ModelTest, Tenants_QuotaEvictionTakesAnUnpinnedObjectAndRetries) {
  multi_tenant(config);
  reset();
  ASSERT_EQ(put(1, preserve(), 64, 0, /*tenant=*/1), ErrorCode::OK);  // lease = now: evictable
  EXPECT_EQ(put_start(2, preserve(), 64, 1, 0, 0, 1, /*tenant=*/1), ErrorCode::OK);
  EXPECT_FALSE(exists_in_view(1, 1));
  EXPECT_EQ(m().view(now).usage, (std::vector<UsageView>{{1, 64}}));
}

}  // namespace pinsim::test
