// The model as a target: the first target, and the reference the others are
// compared with. Lockstep of the model against itself checks the harness.
#pragma once
#include <memory>
#include <string>

#include "model.h"
#include "target.h"

namespace pinsim {

std::unique_ptr<Target> make_model_target(const Config& config, const TargetOptions& options,
                                          std::string* error);

}  // namespace pinsim
