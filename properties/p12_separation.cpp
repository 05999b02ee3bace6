// P12, RFC 3028 "Separation from group retention": group retention and
// object soft pin are separate priority sources. RetainGroups never writes a
// soft pin, a pending action or the gauge, and soft-pin writes never move a
// group's retention deadline.
#include "property.h"

namespace pinsim {

PINSIM_PROPERTY(Separation, "P12", "RFC 3028 Separation: retention and soft pin never write each other",
                kCapObjects | kCapDeadline | kCapRetention | kCapGauge)

std::optional<std::string> Separation::check(const StepContext& s) const {
  if (s.op.kind == OpKind::RetainGroups) {
    if (s.before.gauge != s.after.gauge) return "RetainGroups moved the soft-pin gauge";
    for (const ObjectView& a : s.after.objects) {
      const ObjectView* b = find_object(s.before, a.id);
      if (b && (b->deadline != a.deadline || b->pending != a.pending))
        return "RetainGroups changed the soft pin of " + name(a.id) + " from " + show(b->deadline) + " to " + show(a.deadline);
    }
  }
  if (is_start(s.op.kind) || is_end(s.op.kind) || is_revoke(s.op.kind)) {
    for (const RetentionView& a : s.after.retention) {
      for (const RetentionView& b : s.before.retention)
        if (a.tenant == b.tenant && a.group == b.group && a.deadline != b.deadline)
          return "a soft-pin write moved the retention deadline of group t" + std::to_string(a.tenant) + "/g" + std::to_string(a.group);
    }
  }
  return std::nullopt;
}

const StepCheck* p12() { static Separation p; return &p; }

}  // namespace pinsim
