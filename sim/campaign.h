// One seed of a random campaign, and replay of a trace: the two ways a run is
// driven. Both go through Lockstep, so a recorded seed replays identically.
#pragma once
#include <cstdint>
#include <optional>

#include "presets.h"
#include "runner.h"
#include "target.h"
#include "trace.h"
#include "workload.h"

namespace pinsim {

struct SeedOptions {
  uint64_t steps = 200;
  bool swarm = false;
  std::optional<Profile> profile;  // overrides the drawn/default profile
  const Preset* preset = nullptr;  // reshapes the swarm draw (implies swarm)
};

struct RunResult {
  Trace trace;  // every step applied, with the model's outcome as expectation
  std::optional<Failure> failure;
  uint64_t comparisons = 0;
  RuleHits hits;  // the rules the model applied during the run
  std::string error;  // the target refused the configuration
  uint64_t unchecked_expectations = 0;  // expected fields the target cannot show
  std::string variant;  // Target::variant() of the target run against
};

RunResult run_seed(uint64_t seed, const SeedOptions& options, TargetFactory factory,
                   const TargetOptions& target_options = {}, const Checks& checks = {});
RunResult replay(const Trace& trace, TargetFactory factory, const TargetOptions& target_options = {},
                 const Checks& checks = {});

}  // namespace pinsim
