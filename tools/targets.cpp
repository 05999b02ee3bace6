// The targets built into this binary.
#include "targets.h"

#include "model_target.h"
#ifdef PINSIM_HAVE_EMBEDDED
#include "embedded_target.h"
#endif
#ifdef PINSIM_HAVE_MOONCAKE
#include "mooncake_target.h"
#endif

namespace pinsim {

namespace {
struct Entry {
  const char* name;
  TargetFactory factory;
};
const Entry kTargets[] = {
    {"model", &make_model_target},
#ifdef PINSIM_HAVE_EMBEDDED
    {"embedded", &make_embedded_target},
#endif
#ifdef PINSIM_HAVE_MOONCAKE
    {"mooncake", &make_mooncake_target},  // only when a Mooncake build is attached
#endif
};
}  // namespace

TargetFactory find_target(const std::string& name) {
  for (const Entry& e : kTargets)
    if (name == e.name) return e.factory;
  return nullptr;
}

std::optional<Profile> default_profile(const std::string& name) {
#ifdef PINSIM_HAVE_MOONCAKE
  if (name == "mooncake") return parse_profile(mooncake_target_profile());
#endif
  (void)name;
  return std::nullopt;
}

std::vector<std::string> target_names() {
  std::vector<std::string> names;
  for (const Entry& e : kTargets) names.push_back(e.name);
  return names;
}

}  // namespace pinsim
