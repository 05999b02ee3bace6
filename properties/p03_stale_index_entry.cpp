// P3, RFC 3028 "Deadline index" and "Expiration cleanup": a cleanup at time t
// clears only deadlines <= t. A stale heap entry (from an earlier, shorter
// deadline of a re-enabled pin) must never clear the newer deadline; the
// exact-deadline comparison in the cleanup cycle is what guarantees it.
#include "property.h"

namespace pinsim {

PINSIM_PROPERTY(StaleEntryNeverClears, "P3", "RFC 3028 Deadline index: cleanup clears only due deadlines", kCapObjects | kCapDeadline)

std::optional<std::string> StaleEntryNeverClears::check(const StepContext& s) const {
  if (s.op.kind != OpKind::Cleanup) return std::nullopt;
  for (const ObjectView& b : s.before.objects) {
    if (!b.deadline || *b.deadline <= s.now) continue;
    const ObjectView* a = find_object(s.after, b.id);
    if (!a || a->deadline != b.deadline)
      return "cleanup at " + std::to_string(s.now) + " changed the unexpired deadline " + show(b.deadline) + " of " + name(b.id);
  }
  return std::nullopt;
}

const StepCheck* p03() { static StaleEntryNeverClears p; return &p; }

}  // namespace pinsim
