// P7, RFC 3028 rule 7: Preserve carries only an unexpired deadline across an
// Upsert, size-changing included. At Upsert Start an unexpired deadline stays;
// an expired one may stay only in place (Case B, same size, normalised at
// End) and is never carried into replacement metadata. At the commit of a
// Preserve, the deadline is kept if unexpired and dropped if expired.
#include "property.h"

namespace pinsim {

PINSIM_PROPERTY(PreserveCarriesUnexpiredOnly, "P7", "RFC 3028 rule 7: Preserve carries only an unexpired deadline",
                kCapObjects | kCapDeadline | kCapPending)

std::optional<std::string> PreserveCarriesUnexpiredOnly::check(const StepContext& s) const {
  if (is_batch(s.op.kind)) return std::nullopt;  // single-key writes only
  const ObjectView* b = find_object(s.before, s.op.object);
  const ObjectView* a = find_object(s.after, s.op.object);
  if (!b || !a || !b->deadline || s.outcome.code != ErrorCode::OK) return std::nullopt;
  // Evicted for the write's own quota first, then written anew (tenant.quota-eviction).
  if (quota_evictable(s.config, s.op, *b, s.now)) return std::nullopt;
  const bool expired = s.now >= *b->deadline;
  if (s.op.kind == OpKind::UpsertStart) {
    if (!expired && a->deadline != b->deadline)
      return "Upsert Start lost the unexpired deadline " + show(b->deadline) + " of " + name(a->id);
    if (expired && a->deadline && a->size != b->size)
      return "Upsert Start carried the expired deadline " + show(b->deadline) + " of " + name(a->id) + " into new metadata";
  }
  if (is_end(s.op.kind) && b->pending && b->pending->action == SoftPinAction::Preserve && complete(*b) == 0 && a->pending != b->pending) {
    const std::optional<Time> want = expired ? std::nullopt : b->deadline;
    if (a->deadline != want)
      return "Preserve commit left " + name(a->id) + " at " + show(a->deadline) + ", want " + show(want);
  }
  return std::nullopt;
}

const StepCheck* p07() { static PreserveCarriesUnexpiredOnly p; return &p; }

}  // namespace pinsim
