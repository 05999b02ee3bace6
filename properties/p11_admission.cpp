// P11, PR 2835 admission (and its review): the number of live retained
// groups never exceeds max_retained_groups, across all tenants; the admission
// counter equals the number of stored entries (it never leaks and never goes
// negative); an expired entry never holds a slot.
#include "property.h"

namespace pinsim {

PINSIM_PROPERTY(AdmissionBounded, "P11", "PR 2835 admission: live groups <= cap, counter == entries", kCapRetention)

std::optional<std::string> AdmissionBounded::check(const StepContext& s) const {
  if (s.after.retention.size() > s.config.max_retained_groups)
    return std::to_string(s.after.retention.size()) + " live retained groups exceed the cap " +
           std::to_string(s.config.max_retained_groups);
  if (s.after.retained_group_count != s.after.retention_entries)
    return "admission counter " + std::to_string(s.after.retained_group_count) + " but " +
           std::to_string(s.after.retention_entries) + " entries";
  if (s.op.kind == OpKind::RetainGroups && s.after.retention_entries > s.after.retention.size()) {
    // Right after an admission decision, expired entries must not be holding slots.
    for (size_t i = 0; i < s.outcome.retained.size(); ++i)
      if (s.outcome.retained[i] == RetainResult::Full)
        return "a group was refused while expired entries still held slots";
  }
  return std::nullopt;
}

const StepCheck* p11() { static AdmissionBounded p; return &p; }

}  // namespace pinsim
