// The mutation table: for each seeded fault of the embedded target, the
// campaign (swarm seeds, lockstep with the model, P1-P14 every step) runs
// until the first failure; the failing trace is shrunk. Times are measured
// here and printed, never asserted.
#include "mutants.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "campaign.h"
#include "embedded_target.h"
#include "faults.h"
#include "property.h"
#include "shrink.h"

namespace pinsim {

int run_mutants(uint64_t max_seeds, uint64_t steps, const std::vector<std::string>& only) {
  using clock = std::chrono::steady_clock;
  CampaignOptions options;
  options.seed.swarm = true;
  options.seed.steps = steps;
  options.last = max_seeds;
  const Checks checks{all_properties(), true};
  std::printf("%-5s %-7s %7s %9s %10s %7s  %s\n", "fault", "killed", "seeds", "steps", "time (s)", "shrunk", "caught by");
  int killed = 0, total = 0;
  std::vector<double> times;
  for (const embedded::FaultInfo& f : embedded::fault_catalogue()) {
    if (!only.empty() && std::find(only.begin(), only.end(), f.name) == only.end()) continue;
    if (f.lane != embedded::FaultLane::Sequential) {  // a campaign cannot interleave: ctest's sched_tests kill it
      std::printf("%-5s %-7s  found only by an interleaving (ctest -R Linearizability)\n",
                  std::string(f.name).c_str(), "-");
      continue;
    }
    ++total;
    const TargetOptions target{{std::string(f.name)}};
    const auto start = clock::now();
    uint64_t seeds = 0, total_steps = 0;
    std::optional<RunResult> failing;
    run_campaign(options, &make_embedded_target, target, checks, [&](uint64_t, RunResult& r, const KnownFinding*) {
      ++seeds;
      total_steps += r.trace.steps.size();
      if (r.failure) failing = std::move(r);
      return !failing;
    });
    const double secs = std::chrono::duration<double>(clock::now() - start).count();
    if (!failing) {
      std::printf("%-5s %-7s %7llu %9llu %10.3f %7s  -\n", std::string(f.name).c_str(), "no",
                  static_cast<unsigned long long>(seeds), static_cast<unsigned long long>(total_steps), secs, "-");
      continue;
    }
    ++killed;
    times.push_back(secs);
    const auto small = shrink(failing->trace, &make_embedded_target, target, checks);
    const Failure& why = small ? small->failure : *failing->failure;
    std::printf("%-5s %-7s %7llu %9llu %10.3f %7zu  %s %s\n", std::string(f.name).c_str(), "yes",
                static_cast<unsigned long long>(seeds), static_cast<unsigned long long>(total_steps), secs,
                small ? small->trace.steps.size() : failing->trace.steps.size(), why.what.c_str(), why.field.c_str());
  }
  std::sort(times.begin(), times.end());
  const double median = times.empty() ? 0 : times[times.size() / 2];
  std::printf("mutation score: %d/%d killed; median time to kill %.3f s, max %.3f s\n", killed, total, median,
              times.empty() ? 0 : times.back());
  return killed == total ? 0 : 1;
}

}  // namespace pinsim
