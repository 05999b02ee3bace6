// Finding a fault with the concurrent lane: seeds in order until one fails
// with the fault AND its trace (the same scripts under the same schedule)
// passes without it (a run the correct target fails too proves nothing about
// the fault), then that run shrunk to a minimal schedule. One hunt shared by
// `pinsim mutants` (its interleaving lane) and the concurrency suite
// (sim/sched/tests/concurrency_suite_test.cpp).
#pragma once
#include <cstdint>
#include <optional>

#include "campaign.h"
#include "schedule_shrink.h"

namespace pinsim::sched {

// The lane a hunt runs by default: two clients and the cleanup actor, ten
// rounds of four ops, on swarm draws, or on a preset's (F18 needs a due pin
// and an End committing a new one on the same object in one round with the
// cleanup: about one seed in a thousand of any draw, so its hunt runs the
// `pins` preset, where it shows at seed 995; F19 and F20 show on the swarm
// at seeds 13 and 183, session 14).
ConcurrentSettings hunt_lane();
SeedOptions hunt_seeds(std::string_view preset = "");

struct Hunt {
  uint64_t seeds = 0;  // seeds run with the fault
  uint64_t calls = 0;  // calls those runs made
  std::optional<uint64_t> seed;  // the seed that showed the fault (nullopt: none in the budget)
  pinsim::RunResult failing;     // its run with the fault (trace.run: the `run` flags given)
  std::optional<ScheduleShrinkResult> shrunk;  // the minimal trace, which replays as written
};

// Seeds 1..max_seeds of the lane (`settings`, `seed_options`) against
// `factory` with `with` (the fault), each failure replayed with `without`.
// `run` goes into the failing trace (what replay and shrink read back).
Hunt hunt_fault(const ConcurrentSettings& settings, const SeedOptions& seed_options, TargetFactory factory,
                const TargetOptions& with, const TargetOptions& without, const Checks& checks, uint64_t max_seeds,
                const RunFlags& run);

}  // namespace pinsim::sched
