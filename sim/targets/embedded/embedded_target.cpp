// The embedded target's factory: validates the configuration as the master's
// constructor does, and reads its one option, `fault` (repeatable): the
// seeded faults to switch on, by name.
#include "embedded_target.h"

#include "embedded_master.h"

namespace pinsim {

TargetOptions fault_options(const std::vector<std::string>& faults) {
  TargetOptions options;
  for (const std::string& f : faults) options.emplace_back("fault", f);
  return options;
}

std::unique_ptr<Target> make_embedded_target(const Config& config, const TargetOptions& options,
                                             std::string* error) {
  if (std::string refused = untaken_option("embedded", options, {"fault"}); !refused.empty()) {
    *error = refused;
    return nullptr;
  }
  if (auto reason = validate(config)) {
    *error = *reason;
    return nullptr;
  }
  if (config.oplog_lag) {  // docs/interpretations.md, "The log's window"
    *error = "oplog_lag: the embedded master keeps no operation log that could lag (Mooncake's and the model's do)";
    return nullptr;
  }
  std::vector<std::string> names;
  for (const TargetOption& o : options) names.push_back(o.value);
  embedded::Faults faults;
  if (!embedded::parse_faults(names, &faults, error)) return nullptr;
  return std::make_unique<embedded::EmbeddedMaster>(config, faults);
}

}  // namespace pinsim
