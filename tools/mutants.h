// `pinsim mutants`: the mutation score of the property campaign against the
// embedded target's seeded faults.
#pragma once
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace pinsim {

// One seeded fault: killed or not, what it took, and what caught it.
struct MutantResult {
  std::string fault;
  bool killed = false;
  uint64_t seeds = 0, steps = 0;  // seeds and steps run until the kill (or the budget)
  double seconds = 0;             // measured, never asserted
  size_t shrunk_steps = 0;        // the shrunk counterexample's length (0 if not killed)
  std::string caught_by;          // "property P3", "view lease", ... ("" if not killed)
  // Interleaving-lane faults: killed by the concurrent lane (a seed that
  // fails with the fault and passes without it); the shrunk counterexample's
  // size ("3 ops, 2 actors, 1 preemptions, 12 decisions").
  bool interleaving = false;
  std::string shrunk_schedule;
};

// Runs the default campaign against each fault in turn, until its first
// failure or `max_seeds`; `on_result` sees each fault as it finishes. A fault
// of the interleaving lane runs the concurrent lane instead (sched::hunt_lane()).
std::vector<MutantResult> run_mutants(uint64_t max_seeds, uint64_t steps, const std::vector<std::string>& only,
                                      const std::function<void(const MutantResult&)>& on_result = {});

// The text table: a header, one row per fault, and the score line.
void print_mutants_header(std::FILE* out);
void print_mutant(std::FILE* out, const MutantResult& m);
void print_mutation_score(std::FILE* out, const std::vector<MutantResult>& results);

}  // namespace pinsim
