// The embedded target's factory: validates the configuration as the master's
// constructor does and switches on the named faults.
#include "embedded_target.h"

#include "embedded_master.h"

namespace pinsim {

std::unique_ptr<Target> make_embedded_target(const Config& config, const TargetOptions& options,
                                             std::string* error) {
  if (auto reason = validate(config)) {
    *error = *reason;
    return nullptr;
  }
  embedded::Faults faults;
  if (!embedded::parse_faults(options.faults, &faults, error)) return nullptr;
  return std::make_unique<embedded::EmbeddedMaster>(config, faults);
}

}  // namespace pinsim
