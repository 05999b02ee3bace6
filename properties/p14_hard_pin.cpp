// P14, hard pin: no eviction takes a hard-pinned object's memory, and only a
// write that creates or replaces an object sets its hard pin. Eviction here
// is an evict op, or a write whose quota refusal made the master evict the
// tenant's own objects (rule tenant.quota-eviction). Every other op leaves
// each present object's hard pin as it was (a remove may still take it, and
// an unmount takes its replicas on the segment that leaves).
#include "property.h"

namespace pinsim {

PINSIM_PROPERTY(HardPin, "P14", "hard pin: never evicted, set only by the write that creates the object",
                kCapObjects)

namespace {

// The object a write (or a batch's element) writes: its own replacement or
// in-place rewrite is not an eviction, and may set its hard pin.
bool written_by(const Op& op, ObjectId id) { return is_start(element_kind(op.kind)) && touches(op, id); }

}  // namespace

std::optional<std::string> HardPin::check(const StepContext& s) const {
  if (s.op.kind == OpKind::Restore || s.op.kind == OpKind::Failover) return std::nullopt;  // objects come back (P9)
  for (const ObjectView& b : s.before.objects) {
    if (written_by(s.op, b.id)) continue;
    const ObjectView* a = find_object(s.after, b.id);
    const bool removal =
        op_info(s.op.kind).cls == OpClass::Remove || is_revoke(s.op.kind) || s.op.kind == OpKind::Unmount;
    if (b.hard_pinned && !removal && (a ? a->complete_memory : 0) < b.complete_memory)
      return name(b.id) + " is hard-pinned but lost memory replicas in " + std::string(to_string(s.op.kind));
    if (a && a->hard_pinned != b.hard_pinned)
      return name(b.id) + "'s hard pin changed from " + (b.hard_pinned ? "set" : "unset") + " in " +
             std::string(to_string(s.op.kind));
  }
  return std::nullopt;
}

const StepCheck* p14() { static HardPin p; return &p; }

}  // namespace pinsim
