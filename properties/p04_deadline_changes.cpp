// P4, RFC 3028 rules 1 and 2 and "Object state model": a committed deadline
// changes only by an explicit write commit (the End that makes the object go
// from zero to one complete replica), by removal, or by expiry once now >= D.
// Duplicate and later Ends never refresh it; an Upsert Start only carries it
// (same value) or drops it when expired; restore and failover are P9's business.
#include "property.h"

namespace pinsim {

PINSIM_PROPERTY(DeadlineChangesOnlyByCommit, "P4", "RFC 3028 rules 1, 2: a deadline changes only at commit, removal or expiry",
                kCapObjects | kCapDeadline)

std::optional<std::string> DeadlineChangesOnlyByCommit::check(const StepContext& s) const {
  if (s.op.kind == OpKind::Restore || s.op.kind == OpKind::Failover) return std::nullopt;
  for (const ObjectView& a : s.after.objects) {
    const ObjectView* b = find_object(s.before, a.id);
    const std::optional<Time> old = b ? b->deadline : std::nullopt;
    if (old == a.deadline) continue;
    const bool same_key = touches(s.op, a.id);  // a batch: any of its keys
    const bool expired_drop = old && *old <= s.now && !a.deadline;
    if (is_end(s.op.kind) && same_key && b && complete(*b) == 0) continue;  // the commit
    if ((s.op.kind == OpKind::Cleanup || s.op.kind == OpKind::Evict) && expired_drop) continue;
    // A quota eviction's pass 1 normalises the expired pins it meets.
    const bool quota_scan = s.config.multi_tenant && is_start(element_kind(s.op.kind)) &&
                            a.id.tenant == s.op.object.tenant && !a.hard_pinned && b && s.now >= b->lease;
    if (quota_scan && expired_drop) continue;
    if (is_start(s.op.kind) && same_key && (expired_drop || s.op.kind == OpKind::PutStart) && !a.deadline) continue;
    // Evicted for the write's own quota, then written anew (tenant.quota-eviction).
    if (is_start(element_kind(s.op.kind)) && same_key && !a.deadline && b && quota_evictable(s.config, s.op, *b, s.now))
      continue;
    return std::string(to_string(s.op.kind)) + " changed the deadline of " + name(a.id) + " from " + show(old) + " to " +
           show(a.deadline);
  }
  return std::nullopt;
}

const StepCheck* p04() { static DeadlineChangesOnlyByCommit p; return &p; }

}  // namespace pinsim
