// P5, RFC 3028 rules 4 and 9: an expired pin gives no protection. With a
// first-pass target of 100%, BatchEvict's pass 1 takes every unpinned
// candidate, so an ungrouped, not hard-pinned object whose lease has expired and whose pin is
// absent or expired (now >= D) must lose its memory replicas, all but the
// source of a copy under way (rule copy.blocks) and of an offload under way
// (rule local.offload).
#include "property.h"

namespace pinsim {

PINSIM_PROPERTY(ExpiredPinUnprotected, "P5", "RFC 3028 rules 4, 9: an expired pin is ordinary cache in eviction",
                kCapObjects | kCapDeadline | kCapLease)

std::optional<std::string> ExpiredPinUnprotected::check(const StepContext& s) const {
  if (s.op.kind != OpKind::Evict || s.op.evict_target_pct != 100) return std::nullopt;
  for (const ObjectView& b : s.before.objects) {
    const bool candidate = b.group == 0 && !b.hard_pinned && s.now >= b.lease && b.complete_memory > 0;
    const bool unpinned = !b.deadline || s.now >= *b.deadline;
    if (!candidate || !unpinned) continue;
    const ObjectView* a = find_object(s.after, b.id);
    if (a && a->complete_memory > (b.copying ? 1u : 0u) + (b.offloading ? 1u : 0u))
      return name(b.id) + " with " + (b.deadline ? "an expired pin " + show(b.deadline) : std::string("no pin")) +
             " survived a 100% first eviction pass";
  }
  return std::nullopt;
}

const StepCheck* p05() { static ExpiredPinUnprotected p; return &p; }

}  // namespace pinsim
