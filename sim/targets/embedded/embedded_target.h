// The embedded master as a pinsim target: `pinsim run --target
// embedded [--fault F#]`. The concrete class is EmbeddedMaster
// (embedded_master.h); its faults are listed in faults.h.
#pragma once
#include <memory>
#include <string>

#include "config.h"
#include "target.h"

namespace pinsim {

std::unique_ptr<Target> make_embedded_target(const Config& config, const TargetOptions& options,
                                             std::string* error);

}  // namespace pinsim
