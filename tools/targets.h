// Target selection by name for the command line: the only place that knows
// which targets this build has.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "target.h"

namespace pinsim {

TargetFactory find_target(const std::string& name);  // nullptr when unknown
// The profile a target is checked against when the user names none (the
// Mooncake target's comes from the tree it was built against).
std::optional<Profile> default_profile(const std::string& name);
std::vector<std::string> target_names();

}  // namespace pinsim
