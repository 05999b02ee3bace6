// The bounded exhaustive explorer (`pinsim explore`): breadth-first over
// every op sequence the workload can generate in a small universe, with the
// same generator as campaigns driven by the odometer, so the two can never
// disagree on what an op means. Each distinct model state (canonical
// encoding, actors renamed, times relative to now) is expanded once; every
// transition is checked with P1-P14 on the model, and, when a target is
// given, in lockstep against it. Breadth-first order makes the first
// counterexample a shortest one.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>

#include "campaign.h"
#include "op_universe.h"
#include "workload.h"

namespace pinsim {

struct ExploreOptions {
  Config config;
  WorkloadConfig workload = with_every_op(WorkloadConfig{});
  uint32_t max_depth = 4;
  uint64_t max_memory_bytes = 1ull << 30;  // visited set and state tree
  TargetFactory target = nullptr;           // nullptr: the model alone
  TargetOptions target_options;
  Checks checks;
  // Asked before each state is expanded; true stops cleanly (a time limit:
  // the caller owns the clock, the explorer reads none).
  std::function<bool()> should_stop;
  // Findings already known (--known): a transition that fails as one is
  // counted, not a counterexample, and its state is not expanded (the model
  // and the target have parted there); the explore goes on.
  std::vector<KnownFinding> known;
  // Worker processes that replay each level's transitions ahead of the loop
  // (--jobs): only for a target that cannot be copied (Mooncake's); the
  // result is the same as with 1.
  unsigned jobs = 1;
};

struct ExploreResult {
  uint64_t states = 0;       // distinct states reached (expanded or queued)
  uint64_t expanded = 0;     // states whose every successor was tried
  uint64_t transitions = 0;  // ops applied
  uint32_t depth = 0;        // deepest level completed
  bool capped = false;       // stopped by the memory cap
  bool stopped = false;      // stopped by should_stop
  std::optional<RunResult> counterexample;  // a shortest failing trace
  std::map<std::string, uint64_t> known;    // finding file -> transitions that failed as it
  std::string refused;  // the model or the target refused the configuration: nothing was explored
};

ExploreResult explore(const ExploreOptions& options);

}  // namespace pinsim
