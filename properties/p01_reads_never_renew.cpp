// P1, RFC 3028 rules 3 and 4: reads (get, exist, and the group lease refresh
// they trigger) never renew or reactivate a soft pin. The pre-#2909 master
// renewed the pin on every read; this property is what catches that.
#include "property.h"

namespace pinsim {

PINSIM_PROPERTY(ReadsNeverRenew, "P1", "RFC 3028 rules 3, 4: reads never renew", kCapObjects | kCapDeadline | kCapGauge)

std::optional<std::string> ReadsNeverRenew::check(const StepContext& s) const {
  if (op_info(s.op.kind).cls != OpClass::Read) return std::nullopt;  // get, exist and their batches
  if (s.before.gauge != s.after.gauge) return "a read moved the gauge";
  for (const ObjectView& o : s.after.objects) {
    const ObjectView* b = find_object(s.before, o.id);
    if (b && b->deadline != o.deadline)
      return "a read changed the deadline of " + name(o.id) + " from " + show(b->deadline) + " to " + show(o.deadline);
    if (b && b->pending != o.pending) return "a read changed the pending action of " + name(o.id);
  }
  return std::nullopt;
}

const StepCheck* p01() { static ReadsNeverRenew p; return &p; }

}  // namespace pinsim
