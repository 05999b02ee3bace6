// The rule-coverage report: for each rule, the model code that marks it and
// how often a run applied it; a rule the run never hit is said so.
#pragma once
#include <cstdio>

#include "rules.h"

namespace pinsim {

// Prints the report; returns how many rules were never hit. With
// `seeds_hitting` and the number of seeds run, it also says in what share of
// the seeds each rule applied.
int print_coverage(const RuleHits& hits, std::FILE* out, const RuleHits* seeds_hitting = nullptr, uint64_t seeds = 0);

}  // namespace pinsim
