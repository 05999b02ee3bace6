// P6, RFC 3028 "Revoke, preemption, and processing cleanup": Pending survives
// a partial revoke while an eligible PROCESSING replica remains, and is
// cleared when none remains. While Pending exists every PROCESSING replica
// belongs to the current write, so after a revoke Pending must exist exactly
// when PROCESSING replicas remain, and count them all as viable.
#include "property.h"

namespace pinsim {

PINSIM_PROPERTY(PendingFollowsRevoke, "P6", "RFC 3028 Revoke: Pending kept iff a viable eligible replica remains",
                kCapObjects | kCapPending)

std::optional<std::string> PendingFollowsRevoke::check(const StepContext& s) const {
  if (!is_revoke(s.op.kind) || is_batch(s.op.kind) || s.outcome.code != ErrorCode::OK) return std::nullopt;  // one key's revoke
  const ObjectView* b = find_object(s.before, s.op.object);
  const ObjectView* a = find_object(s.after, s.op.object);
  if (!b || !a || !b->pending) return std::nullopt;
  if (a->processing > 0 && !a->pending)
    return "revoke dropped Pending of " + name(a->id) + " while " + std::to_string(a->processing) + " PROCESSING replicas remain";
  if (a->processing == 0 && a->pending) return "revoke kept Pending of " + name(a->id) + " with no PROCESSING replica left";
  if (a->pending && a->pending->viable != a->processing) return "Pending of " + name(a->id) + " lost eligible replicas";
  return std::nullopt;
}

const StepCheck* p06() { static PendingFollowsRevoke p; return &p; }

}  // namespace pinsim
