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

TEST_F(ModelTest, Tenants_QuotaExceededRefusesWrite) {
  config.tenant_quota_bytes = {{1, 100}};
  reset();
  ASSERT_EQ(put(1, enable(5000), 64, 0, /*tenant=*/1), ErrorCode::OK);
  const View before = m().view(now);
  EXPECT_EQ(put_start(2, enable(5000), 64, 1, 0, 0, 1, /*tenant=*/1), ErrorCode::TENANT_QUOTA_EXCEEDED);
  EXPECT_EQ(m().view(now), before);
  // Another tenant has no quota configured and is unaffected.
  ASSERT_EQ(put(2, enable(5000), 64, 0, /*tenant=*/0), ErrorCode::OK);
  // Removing frees the tenant's bytes.
  ASSERT_EQ(remove(1, true, /*tenant=*/1), ErrorCode::OK);
  EXPECT_EQ(put_start(2, enable(5000), 64, 1, 0, 0, 1, /*tenant=*/1), ErrorCode::OK);
}

TEST_F(ModelTest, Tenants_QuotaExceededOnSizeChangeKeepsObject) {
  config.tenant_quota_bytes = {{1, 100}};
  reset();
  ASSERT_EQ(put(1, enable(5000), 64, 0, /*tenant=*/1), ErrorCode::OK);
  EXPECT_EQ(gauge(), 1);
  // Failure atomicity: a refused Case C leaves the old object and its pin.
  EXPECT_EQ(upsert_start(1, preserve(), 128, 1, 0, 0, 1, /*tenant=*/1), ErrorCode::TENANT_QUOTA_EXCEEDED);
  EXPECT_TRUE(exists_in_view(1, 1));
  EXPECT_EQ(gauge(), 1);
  EXPECT_EQ(m().view(now).usage, (std::vector<UsageView>{{1, 64}}));
}

TEST_F(ModelTest, Tenants_QuotaCountsTheChargeAReplacementGivesBack) {
  config.tenant_quota_bytes = {{1, 100}};
  reset();
  ASSERT_EQ(put(1, enable(5000), 64, 0, /*tenant=*/1), ErrorCode::OK);
  // 64 -> 96 bytes fits once the old 64 are given back.
  EXPECT_EQ(upsert_start(1, preserve(), 96, 1, 0, 0, 1, /*tenant=*/1), ErrorCode::OK);
  EXPECT_EQ(m().view(now).usage, (std::vector<UsageView>{{1, 96}}));
}

}  // namespace pinsim::test
