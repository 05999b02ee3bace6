// The embedded master as a pinsim target: `pinsim run --target
// embedded [--fault F#]`. The concrete class is EmbeddedMaster
// (embedded_master.h); its faults are listed in faults.h.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "config.h"
#include "target.h"

namespace pinsim {

// Options: `fault` (repeatable), a seeded fault by name.
std::unique_ptr<Target> make_embedded_target(const Config& config, const TargetOptions& options,
                                             std::string* error);
// The options that switch on `faults` (for tests and the mutation table).
TargetOptions fault_options(const std::vector<std::string>& faults);

}  // namespace pinsim
