// The mutation check (the seeded faults of faults.h): lockstep against the model
// must kill every seeded fault of the embedded target within a fixed seed
// budget (swarm seeds 1..kSeedBudget, kSteps steps each), and with no fault
// every one of those seeds must pass. The first failing seed and step of each
// fault are printed and recorded as test properties.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "campaign.h"
#include "embedded_target.h"
#include "faults.h"

namespace pinsim {
namespace {

constexpr uint64_t kSeedBudget = 2000;
constexpr uint64_t kSteps = 200;

class FaultKill : public testing::TestWithParam<std::string_view> {};

TEST_P(FaultKill, KilledWithinSeedBudget) {
  const std::string fault(GetParam());
  const SeedOptions options{.steps = kSteps, .swarm = true};
  for (uint64_t seed = 1; seed <= kSeedBudget; ++seed) {
    const RunResult r = run_seed(seed, options, &make_embedded_target, TargetOptions{{fault}});
    ASSERT_TRUE(r.error.empty()) << r.error;
    if (!r.failure) continue;
    std::printf("%s killed: seed %llu, step %zu (%s: %s)\n", fault.c_str(), static_cast<unsigned long long>(seed),
                r.failure->step, r.failure->what.c_str(), r.failure->detail.c_str());
    RecordProperty("first_failing_seed", static_cast<int>(seed));
    RecordProperty("first_failing_step", static_cast<int>(r.failure->step));
    return;
  }
  FAIL() << fault << " survived seeds 1.." << kSeedBudget;
}

std::vector<std::string_view> fault_names() {
  std::vector<std::string_view> names;
  for (const embedded::FaultInfo& f : embedded::fault_catalogue()) names.push_back(f.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Catalogue, FaultKill, testing::ValuesIn(fault_names()),
                         [](const testing::TestParamInfo<std::string_view>& info) { return std::string(info.param); });

void expect_all_pass(std::optional<Profile> profile) {
  const SeedOptions options{.steps = kSteps, .swarm = true, .profile = profile};
  for (uint64_t seed = 1; seed <= kSeedBudget; ++seed) {
    const RunResult r = run_seed(seed, options, &make_embedded_target);
    ASSERT_TRUE(r.error.empty()) << r.error;
    ASSERT_FALSE(r.failure) << "seed " << seed << " step " << r.failure->step << ": " << r.failure->what << ": "
                            << r.failure->detail;
  }
}

TEST(NoFault, SwarmSeedsPassUnderRfcProfile) { expect_all_pass(std::nullopt); }
TEST(NoFault, SwarmSeedsPassUnderMooncakeMainProfile) { expect_all_pass(Profile::MooncakeMain); }

TEST(NoFault, UnknownFaultIsRefused) {
  std::string error;
  EXPECT_EQ(make_embedded_target(Config{}, TargetOptions{{"F99"}}, &error), nullptr);
  EXPECT_EQ(error.rfind("unknown fault 'F99' (known: F1, F2", 0), 0u) << error;
}

}  // namespace
}  // namespace pinsim
