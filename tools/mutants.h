// `pinsim mutants`: the mutation score of the property campaign against the
// embedded target's seeded faults.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace pinsim {

// Runs the default campaign against each fault in turn and prints the table;
// returns 0 when every fault is killed, 1 otherwise.
int run_mutants(uint64_t max_seeds, uint64_t steps, const std::vector<std::string>& only);

}  // namespace pinsim
