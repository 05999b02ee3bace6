// The mutation table: for each seeded fault of the embedded target, the
// campaign (swarm seeds, lockstep with the model, P1-P14 every step) runs
// until the first failure; the failing trace is shrunk. Times are measured
// here and printed, never asserted.
#include "mutants.h"

#include <algorithm>

#include "campaign.h"
#include "embedded_target.h"
#include "fault_hunt.h"
#include "faults.h"
#include "presets.h"
#include "property.h"
#include "shrink.h"
#include "wall_clock.h"

namespace pinsim {

namespace {

// The concurrent lane against one fault (sim/sched/fault_hunt.h): the first
// seed that fails with it and passes without it, shrunk to a minimal schedule.
void run_interleaving(const embedded::FaultInfo& f, uint64_t max_seeds, const Checks& checks, MutantResult* m) {
  const TargetOptions with = fault_options({std::string(f.name)}), without{};
  m->interleaving = true;
  const RunFlags run{"embedded", "", {std::string(f.name)}, {}, true};
  const sched::Hunt h =
      sched::hunt_fault(sched::hunt_lane(), sched::hunt_seeds(f.hunt_preset), &make_embedded_target, with, without,
                        checks, max_seeds, run);
  m->seeds = h.seeds;
  m->steps = h.calls;
  if (!h.seed) return;
  const Failure& why = h.shrunk ? h.shrunk->failure : *h.failing.failure;
  m->killed = true;
  m->shrunk_steps = h.shrunk ? h.shrunk->size.ops : h.failing.calls;
  m->shrunk_schedule = !h.shrunk ? "" : h.shrunk->not_shrunk.empty() ? sched::describe_size(h.shrunk->size) : "as run, not shrunk (undecided)";
  m->caught_by = why.what + " " + why.field;
}

}  // namespace

std::vector<MutantResult> run_mutants(uint64_t max_seeds, uint64_t steps, const std::vector<std::string>& only,
                                      const std::function<void(const MutantResult&)>& on_result) {
  CampaignOptions options;
  options.seed.swarm = true;
  options.seed.steps = steps;
  options.last = max_seeds;
  const Checks checks{all_properties(), true};
  std::vector<MutantResult> results;
  for (const embedded::FaultInfo& f : embedded::fault_catalogue()) {
    if (!only.empty() && std::find(only.begin(), only.end(), f.name) == only.end()) continue;
    const TargetOptions target = fault_options({std::string(f.name)});
    const WallClock clock;
    MutantResult m{std::string(f.name)};
    if (f.lane == embedded::FaultLane::Interleaving) {  // a lockstep campaign cannot interleave
      run_interleaving(f, max_seeds, checks, &m);
      m.seconds = clock.seconds();
      if (on_result) on_result(m);
      results.push_back(std::move(m));
      continue;
    }
    std::optional<RunResult> failing;
    CampaignOptions aimed = options;  // a fault that needs a feature is hunted on the preset that draws it
    if (!f.hunt_preset.empty()) aimed.seed.preset = find_preset(f.hunt_preset);
    run_campaign(aimed, &make_embedded_target, target, checks, [&](uint64_t, RunResult& r, const KnownFinding*) {
      ++m.seeds;
      m.steps += r.trace.steps.size();
      if (r.failure) failing = std::move(r);
      return !failing;
    });
    m.seconds = clock.seconds();
    if (failing) {
      const auto small = shrink(failing->trace, &make_embedded_target, target, checks);
      const Failure& why = small ? small->failure : *failing->failure;
      m.killed = true;
      m.shrunk_steps = small ? small->trace.steps.size() : failing->trace.steps.size();
      m.caught_by = why.what + " " + why.field;
    }
    if (on_result) on_result(m);
    results.push_back(std::move(m));
  }
  return results;
}

void print_mutants_header(std::FILE* out) {
  std::fprintf(out, "%-5s %-7s %7s %9s %10s %7s  %s\n", "fault", "killed", "seeds", "steps", "time (s)", "shrunk",
               "caught by");
}

void print_mutant(std::FILE* out, const MutantResult& m) {
  std::fprintf(out, "%-5s %-7s %7llu %9llu %10.3f %7s  %s\n", m.fault.c_str(), m.killed ? "yes" : "no",
               static_cast<unsigned long long>(m.seeds), static_cast<unsigned long long>(m.steps), m.seconds,
               m.killed ? std::to_string(m.shrunk_steps).c_str() : "-", m.killed ? m.caught_by.c_str() : "-");
  if (m.interleaving)
    std::fprintf(out, "%-5s %-7s  interleaving lane: %s\n", "", "",
                 m.killed ? ("minimal schedule: " + m.shrunk_schedule).c_str() : "not found in the seed budget");
}

void print_mutation_score(std::FILE* out, const std::vector<MutantResult>& results) {
  std::vector<double> times;
  for (const MutantResult& m : results)
    if (m.killed) times.push_back(m.seconds);
  std::sort(times.begin(), times.end());
  const double median = times.empty() ? 0 : times[times.size() / 2];
  std::fprintf(out, "mutation score: %zu/%zu killed; median time to kill %.3f s, max %.3f s\n", times.size(),
               results.size(), median, times.empty() ? 0 : times.back());
}

}  // namespace pinsim
