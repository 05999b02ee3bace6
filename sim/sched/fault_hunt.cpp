// The concurrent lane's fault hunt; see fault_hunt.h.
#include "fault_hunt.h"

#include "concurrent_lane.h"
#include "presets.h"

namespace pinsim::sched {

ConcurrentSettings hunt_lane() {
  ConcurrentSettings s;
  s.clients = 2;
  s.background = {"cleanup"};
  s.ops_per_round = 4;
  s.rounds = 10;
  return s;
}

SeedOptions hunt_seeds(std::string_view preset) {
  SeedOptions o;
  o.swarm = true;
  if (!preset.empty()) o.preset = find_preset(preset);
  return o;
}

Hunt hunt_fault(const ConcurrentSettings& settings, const SeedOptions& seed_options, TargetFactory factory,
                const TargetOptions& with, const TargetOptions& without, const Checks& checks, uint64_t max_seeds,
                const RunFlags& run) {
  Hunt h;
  for (uint64_t seed = 1; seed <= max_seeds; ++seed) {
    ++h.seeds;
    pinsim::RunResult r = run_concurrent_seed(seed, seed_options, settings, factory, with, checks);
    h.calls += r.calls;
    if (!r.failure) continue;
    // The same scripts under the same schedule must pass without the fault.
    if (replay_concurrent(r.trace, factory, without, checks).failure) continue;
    r.trace.run = run;
    h.seed = seed;
    h.shrunk = shrink_schedule(r.trace, factory, with, checks);
    h.failing = std::move(r);
    return h;
  }
  return h;
}

}  // namespace pinsim::sched
