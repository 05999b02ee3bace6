// A target's op that throws ends the run with a failure of its own, named by
// the exception's type, and the op is the trace's last step, so that the
// gate counts it red and the trace replays to it (a mutant of MasterService's
// quota check made set_quota throw instead of answering INVALID_PARAMS).
#include <gtest/gtest.h>

#include <stdexcept>

#include "campaign.h"
#include "model_but_at.h"

namespace pinsim {

namespace {

std::unique_ptr<Target> throwing(const Config& config, const TargetOptions&, std::string*) {
  return std::make_unique<ModelButAt>(config, 5, [] { throw std::invalid_argument("policy out of range"); });
}

TEST(ThrownOp, IsAFailureNamedByTheExceptionsType) {
  const RunResult r = run_seed(7, SeedOptions{}, throwing);
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->what, "exception");
  EXPECT_EQ(r.failure->field, "std::invalid_argument");
  EXPECT_EQ(r.failure->step, 4u);
  EXPECT_NE(r.failure->detail.find("policy out of range"), std::string::npos) << r.failure->detail;
  EXPECT_EQ(r.trace.steps.size(), 5u);
}

}  // namespace

}  // namespace pinsim
