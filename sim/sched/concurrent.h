// Several clients at once against one target, under the deterministic
// scheduler, and the check that what they saw is linearizable: some order of
// the calls, consistent with their real-time order (a call that returned
// before another was invoked comes first), gives every call the outcome it
// got when applied to the model, and ends in the View the target shows.
// This is Wing & Gong's check, with the scheduler knowing real time exactly.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "choices.h"
#include "model.h"
#include "scheduler.h"
#include "target.h"

namespace pinsim::sched {

struct Call {
  uint32_t actor = 0;
  Op op;
  Outcome outcome;
  uint64_t invoked = 0;   // event clock at the invocation
  uint64_t returned = 0;  // event clock at the return
};

struct History {
  std::vector<Call> calls;  // in invocation order
  View final_view;
  RunResult run;  // the schedule, and whether it deadlocked
};

// Runs scripts[i] on actor i, every op at virtual time `now`, against
// `target` (which must be safe to call from several threads), under a
// Scheduler with `preempt_pct`.
History run_concurrent(Target& target, const std::vector<std::vector<Op>>& scripts, Time now, Choices& choices,
                       uint32_t preempt_pct = 100);
// The same under any scheduling policy (policies.h).
History run_concurrent(Target& target, const std::vector<std::vector<Op>>& scripts, Time now, Policy& policy);

// An order of history.calls (indices) that explains the history from `start`
// (as check_linearizable says), or nullopt when none does. The search skips
// a state it has seen (the calls done and the model's canonical state).
std::optional<std::vector<size_t>> linearize(const Model& start, const History& history, Time now, Capabilities caps);

// nullopt when some linearization of `history`, applied to `start`, gives
// every outcome and the final View (as far as `caps` shows it); otherwise a
// one-line account of the history that none explains.
std::optional<std::string> check_linearizable(const Model& start, const History& history, Time now,
                                              Capabilities caps);

}  // namespace pinsim::sched
