// The model satisfies every property: swarm campaigns against the model with
// all of P1-P14 checked on every step find no violation. (A property that
// the model broke would be a model bug or a wrong property.)
#include <gtest/gtest.h>

#include <cstdlib>

#include "campaign.h"
#include "model_target.h"
#include "property.h"

namespace pinsim {

uint64_t budget(uint64_t base) {
  const char* b = std::getenv("PINSIM_BUDGET");  // scales case counts for nightly runs
  return b ? base * std::max<uint64_t>(1, std::strtoull(b, nullptr, 10)) : base;
}

TEST(Properties, ModelSatisfiesAllProperties) {
  CampaignOptions o;
  o.seed.swarm = true;
  o.last = budget(2000);
  const auto found = first_failure(o, &make_model_target, {}, Checks{all_properties(), true});
  ASSERT_FALSE(found) << "seed " << found->first << ": " << found->second.failure->detail;
}

TEST(Properties, CatalogueHasFourteenInOrder) {
  ASSERT_EQ(all_properties().size(), 14u);
  for (size_t i = 0; i < 14; ++i) EXPECT_EQ(all_properties()[i]->id(), "P" + std::to_string(i + 1));
}

}  // namespace pinsim
