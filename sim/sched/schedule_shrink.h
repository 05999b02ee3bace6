// Shrinking a failing concurrent trace (concurrent_trace.h): fewer rounds and
// ops, fewer sequential steps before them, fewer actors (a round's script handed to an actor idle in it, so the
// other can go), fewer preemptions, keeping the same failure (the same
// kind and field: a linearizability failure on the same View field, the same
// property, a deadlock, a lock-order cycle). Every candidate is replayed from
// scratch under its schedule, and the schedule the replay actually took is
// what the result records, so the minimal trace replays as written. The idea
// of sim/shrink.h (replay each candidate, keep it only if it fails the same
// way), over a concurrent run's dimensions.
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "campaign.h"

namespace pinsim::sched {

// How big a concurrent run is, in the order the shrinker reduces it.
struct ScheduleSize {
  size_t ops = 0;          // calls in the rounds' scripts
  size_t actors = 0;       // actors with at least one op
  size_t preemptions = 0;  // switches away from an actor that could have gone on
  size_t decisions = 0;    // recorded scheduling decisions
  size_t steps = 0;        // sequential steps before the rounds (advances not counted)
  auto operator<=>(const ScheduleSize&) const = default;
};
// Replays `trace` for its preemption count.
ScheduleSize size_of(const Trace& trace, TargetFactory factory, const TargetOptions& options, const Checks& checks);
std::string describe_size(const ScheduleSize& size);  // "12 ops, 3 actors, 2 preemptions, 40 decisions, 4 steps"

struct ScheduleShrinkResult {
  Trace trace;
  Failure failure;
  ScheduleSize original, size;
  size_t replays = 0;
  // Why `trace` is the failing run as run, or "". An undecided failure
  // (kUndecided, concurrent.h) is never shrunk: a smaller candidate fails the
  // same way only when it is undecided too, so each replay could spend the
  // whole search budget again.
  std::string not_shrunk;
};

// nullopt when `failing` does not fail.
std::optional<ScheduleShrinkResult> shrink_schedule(const Trace& failing, TargetFactory factory,
                                                    const TargetOptions& options, const Checks& checks);

// The same over any lane that replays a concurrent trace from scratch: the
// trace as run (the schedule actually taken), its failure (what and field
// say "the same way") and its preemptions. The Mooncake lane shrinks this way.
using ConcurrentReplayer = std::function<pinsim::RunResult(const Trace&)>;
std::optional<ScheduleShrinkResult> shrink_schedule(const Trace& failing, const ConcurrentReplayer& replay);

}  // namespace pinsim::sched
