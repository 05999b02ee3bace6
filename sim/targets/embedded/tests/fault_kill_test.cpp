// The mutation check (the seeded faults of faults.h): lockstep against the model
// must kill every seeded fault of the embedded target within a fixed seed
// budget (swarm seeds 1..kSeedBudget, kSteps steps each; a fault's preset's
// seeds where it names one, FaultInfo::hunt_preset), and with no fault
// every one of those seeds must pass. The first failing seed and step of each
// fault are printed and recorded as test properties.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "campaign.h"
#include "embedded_target.h"
#include "faults.h"
#include "presets.h"

namespace pinsim {
namespace {

constexpr uint64_t kSeedBudget = 2000;
constexpr uint64_t kSteps = 200;

class FaultKill : public testing::TestWithParam<std::string_view> {};

TEST_P(FaultKill, KilledWithinSeedBudget) {
  const std::string fault(GetParam());
  CampaignOptions options;
  options.seed = {.steps = kSteps, .swarm = true};
  if (const std::string_view preset = embedded::find_fault(fault)->hunt_preset; !preset.empty())
    options.seed.preset = find_preset(preset);  // a fault the plain swarm never shows (no config it needs)
  options.last = kSeedBudget;
  uint64_t refused = 0;
  const auto found = first_failure(options, &make_embedded_target, fault_options({fault}), {}, &refused);
  ASSERT_EQ(refused, 0u);
  ASSERT_TRUE(found) << fault << " survived seeds 1.." << kSeedBudget;
  const auto& [seed, r] = *found;
  std::printf("%s killed: seed %llu, step %zu (%s: %s)\n", fault.c_str(), static_cast<unsigned long long>(seed),
              r.failure->step, r.failure->what.c_str(), r.failure->detail.c_str());
  RecordProperty("first_failing_seed", static_cast<int>(seed));
  RecordProperty("first_failing_step", static_cast<int>(r.failure->step));
}

std::vector<std::string_view> fault_names() {
  std::vector<std::string_view> names;
  for (const embedded::FaultInfo& f : embedded::fault_catalogue())
    if (f.lane == embedded::FaultLane::Sequential) names.push_back(f.name);  // the others: sim/sched's tests
  return names;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, FaultKill, testing::ValuesIn(fault_names()),
                         [](const testing::TestParamInfo<std::string_view>& info) { return std::string(info.param); });

void expect_all_pass(std::optional<Profile> profile) {
  CampaignOptions options;
  options.seed = {.steps = kSteps, .swarm = true, .profile = profile};
  options.last = kSeedBudget;
  uint64_t refused = 0;
  const auto found = first_failure(options, &make_embedded_target, {}, {}, &refused);
  ASSERT_EQ(refused, 0u);
  ASSERT_FALSE(found) << "seed " << found->first << " step " << found->second.failure->step << ": "
                      << found->second.failure->what << ": " << found->second.failure->detail;
}

TEST(NoFault, SwarmSeedsPassUnderRfcProfile) { expect_all_pass(std::nullopt); }
TEST(NoFault, SwarmSeedsPassUnderMooncakeMainProfile) { expect_all_pass(Profile::MooncakeMain); }

TEST(NoFault, UnknownFaultIsRefused) {
  std::string error;
  EXPECT_EQ(make_embedded_target(Config{}, fault_options({"F99"}), &error), nullptr);
  EXPECT_EQ(error.rfind("unknown fault 'F99' (known: F1, F2", 0), 0u) << error;
}

TEST(NoFault, OptionItDoesNotTakeIsRefused) {
  std::string error;
  EXPECT_EQ(make_embedded_target(Config{}, {{"fault", "F2"}, {"tree", "main"}}, &error), nullptr);
  EXPECT_EQ(error, "the embedded target takes no 'tree' option (given 'main'; it takes fault)");
}

}  // namespace
}  // namespace pinsim
