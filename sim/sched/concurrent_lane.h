// The concurrent lane: a seed of the one seed loop (campaign.h) run as rounds
// of several actors at once against one thread-safe target under the
// deterministic scheduler, and the replay of such a run from its trace.
// Each round draws every client actor's script from the workload (background
// actors repeat evict or cleanup, as the eviction thread and the task-cleanup
// cycle call them), runs them under the chosen schedule, and checks, at the
// quiescent point that ends it: no deadlock, no cycle in the lock graph, a
// linearization of the calls against the model that ends in the target's
// View, placement included (the segment of every replica, when the target
// shows it: Target::placement), and P1-P14 along the first such
// linearization (on the target's View at its end). Every distinct model
// state the linearizations end in (up to a bound) starts the next round:
// orders that end in the same View may still differ in state it does not
// show.
#pragma once
#include <cstdint>
#include <string>

#include "campaign.h"
#include "concurrent.h"
#include "concurrent_trace.h"

namespace pinsim::sched {

// The concurrent part of `trace` (its rounds, with scripts and schedules)
// after its sequential steps; the returned trace records the schedules run.
// `last`, when given, receives the history of the last round run (the
// failing one, if any), for a picture (history_html.h).
pinsim::RunResult replay_concurrent(const Trace& trace, TargetFactory factory, const TargetOptions& options,
                                    const Checks& checks, History* last = nullptr);

// One seed: the configuration drawn as a lockstep seed draws it, then
// `settings.rounds` rounds drawn and checked. The failing round ends the run.
pinsim::RunResult run_concurrent_seed(uint64_t seed, const SeedOptions& seed_options,
                                      const ConcurrentSettings& settings, TargetFactory factory,
                                      const TargetOptions& options, const Checks& checks);

// "" when `target` may run in the lane; otherwise the one-line reason.
std::string lane_refusal(const Target& target);
// True when a run's `error` is lane_refusal's (a usage error, not a refused draw).
bool is_lane_refusal(const std::string& error);


}  // namespace pinsim::sched
