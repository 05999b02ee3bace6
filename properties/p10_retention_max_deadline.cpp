// P10, PR 2835 max-deadline and intent: a group's retention deadline never
// decreases while it is live, and an object that joins a group inherits a
// lease only from a live retention deadline (an expired intent grants
// nothing: the new member's lease is the epoch or that live deadline).
#include "property.h"

namespace pinsim {

PINSIM_PROPERTY(RetentionNeverShortens, "P10", "PR 2835: max-deadline; future members inherit only unexpired intent",
                kCapObjects | kCapLease | kCapRetention)

std::optional<std::string> RetentionNeverShortens::check(const StepContext& s) const {
  for (const RetentionView& b : s.before.retention) {
    if (b.deadline <= s.now) continue;
    for (const RetentionView& a : s.after.retention)
      if (a.tenant == b.tenant && a.group == b.group && a.deadline < b.deadline)
        return "group t" + std::to_string(a.tenant) + "/g" + std::to_string(a.group) + " retention went from " +
               std::to_string(b.deadline) + " down to " + std::to_string(a.deadline);
  }
  if (is_start(s.op.kind) && !is_batch(s.op.kind) && s.op.group != 0 && s.outcome.code == ErrorCode::OK && !find_object(s.before, s.op.object)) {
    const ObjectView* a = find_object(s.after, s.op.object);
    if (!a || a->lease == 0) return std::nullopt;
    for (const RetentionView& r : s.after.retention)
      if (r.tenant == a->id.tenant && r.group == a->group && r.deadline == a->lease && r.deadline > s.now) return std::nullopt;
    return "new member " + name(a->id) + " got lease " + std::to_string(a->lease) + " without a live retention deadline";
  }
  return std::nullopt;
}

const StepCheck* p10() { static RetentionNeverShortens p; return &p; }

}  // namespace pinsim
