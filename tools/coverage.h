// The rule-coverage report: for each rule, the model code that marks it and
// how often a run applied it; a rule the run never hit is said so.
#pragma once
#include <cstdio>

#include "rules.h"

namespace pinsim {

// Prints the report; returns how many rules were never hit.
int print_coverage(const RuleHits& hits, std::FILE* out);

}  // namespace pinsim
