// Every property can fail: for each of P1-P14, a campaign against the
// embedded target with one seeded fault, checking that property alone and
// without the model comparison, must report it within a fixed seed budget.
// (A property no fault can break is redundant or missing a fault.)
#include <gtest/gtest.h>

#include "campaign.h"
#include "property.h"

#ifdef PINSIM_HAVE_EMBEDDED
#include "embedded_target.h"

namespace pinsim {

struct Breaker {
  const char* property;
  const char* fault;
};

// Stable test names and messages: "P3 under F2", never the struct's bytes.
void PrintTo(const Breaker& b, std::ostream* os) { *os << b.property << " under " << b.fault; }

class PropertyFails : public ::testing::TestWithParam<Breaker> {};

TEST_P(PropertyFails, UnderItsFault) {
  const Breaker b = GetParam();
  const StepCheck* p = property_by_id(b.property);
  ASSERT_NE(p, nullptr);
  CampaignOptions o;
  o.seed.swarm = true;
  o.last = 3000;
  const auto found = first_failure(o, &make_embedded_target, fault_options({b.fault}), Checks{{p}, false});
  ASSERT_TRUE(found) << b.property << " never failed under " << b.fault << " in 3000 seeds";
  EXPECT_EQ(found->second.failure->what, "property");
  EXPECT_EQ(found->second.failure->field, b.property);
}

INSTANTIATE_TEST_SUITE_P(EachProperty, PropertyFails,
                         ::testing::Values(Breaker{"P1", "F1"}, Breaker{"P2", "F3"}, Breaker{"P3", "F2"},
                                           Breaker{"P4", "F10"}, Breaker{"P5", "F14"}, Breaker{"P6", "F4"},
                                           Breaker{"P7", "F5"}, Breaker{"P8", "F6"}, Breaker{"P9", "F11"},
                                           Breaker{"P10", "F7"}, Breaker{"P11", "F8"}, Breaker{"P12", "F15"},
                                           Breaker{"P13", "F16"}, Breaker{"P14", "F17"}),
                         [](const auto& info) { return std::string(info.param.property) + "_" + info.param.fault; });

TEST(PropertyFails, WithoutFaultsNothingFails) {
  CampaignOptions o;
  o.seed.swarm = true;
  o.last = 500;
  const auto found = first_failure(o, &make_embedded_target, {}, Checks{all_properties(), true});
  ASSERT_FALSE(found) << "seed " << found->first << ": " << found->second.failure->detail;
}

}  // namespace pinsim
#endif
