// A call that throws out of the target under the scheduler: its actor's
// script ends, the History names it (History::thrown), and the concurrent
// lane fails the round with the exception's type. Left unnamed, the call
// would be missing from the history, and a round without it could pass.
#include <gtest/gtest.h>

#include <stdexcept>

#include "choices.h"
#include "concurrent.h"
#include "concurrent_lane.h"
#include "model_but_at.h"

namespace pinsim::sched {
namespace {

Config one_segment() {
  Config config;
  config.segments = {{ReplicaKind::Memory, 1024}};
  return config;
}

Op cleanup() {
  Op op;
  op.kind = OpKind::Cleanup;
  return op;
}

void throw_invalid() { throw std::invalid_argument("quota out of range"); }

TEST(ThrownCall, EndsItsActorsScriptAndIsNamedInTheHistory) {
  ModelButAt target(one_segment(), 2, throw_invalid, kCapAll | kCapThreadSafe);
  RandomChoices choices(1);
  const History h = run_concurrent(target, {{cleanup(), cleanup()}, {cleanup(), cleanup()}}, 0, choices);
  ASSERT_TRUE(h.thrown.has_value());
  EXPECT_EQ(h.thrown->type, "std::invalid_argument");
  EXPECT_EQ(h.thrown->what, "quota out of range");
  EXPECT_EQ(h.thrown->signature(), "exception/cleanup/std::invalid_argument");
  EXPECT_EQ(h.calls.size(), 3u);  // all but the one that threw: it was its actor's last
}

std::unique_ptr<Target> throwing(const Config& config, const TargetOptions&, std::string*) {
  // The first op is the advance to the round's time; the second, a call of the round.
  return std::make_unique<ModelButAt>(config, 2, throw_invalid, kCapAll | kCapThreadSafe);
}

TEST(ThrownCall, FailsTheConcurrentLanesRound) {
  ConcurrentSettings lane;
  lane.clients = 2;
  lane.rounds = 1;
  const pinsim::RunResult r = run_concurrent_seed(3, {}, lane, throwing, {}, Checks{});
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->what, "exception");
  EXPECT_EQ(r.failure->field, "std::invalid_argument");
  EXPECT_EQ(r.failure->detail.rfind("round 0: actor ", 0), 0u) << r.failure->detail;
  EXPECT_NE(r.failure->detail.find("quota out of range"), std::string::npos) << r.failure->detail;
}

}  // namespace
}  // namespace pinsim::sched
