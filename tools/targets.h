// Target selection by name for the command line: the only place that knows
// which targets this build has.
#pragma once
#include <string>
#include <vector>

#include "target.h"

namespace pinsim {

TargetFactory find_target(const std::string& name);  // nullptr when unknown
std::vector<std::string> target_names();

}  // namespace pinsim
