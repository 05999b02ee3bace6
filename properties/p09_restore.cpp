// P9, RFC 3028 "Snapshot and HA semantics": after a restore no expired
// deadline is active (they are normalised), the index and the gauge are
// rebuilt from the surviving deadlines only, no write intent survives, and a
// failed candidate leaves nothing behind (the gauge matches the survivors).
// Under mooncake-main soft pin is runtime-only: no deadline survives at all.
// A failover (HA-OpLog mode's standby becoming the primary) is held to the
// same: its objects come back as a restore's do (rule failover.standby).
#include "property.h"

namespace pinsim {

PINSIM_PROPERTY(RestoreNormalises, "P9", "RFC 3028 Snapshot: restore normalises, rebuilds, leaks nothing",
                kCapObjects | kCapDeadline | kCapPending | kCapGauge)

std::optional<std::string> RestoreNormalises::check(const StepContext& s) const {
  if (s.op.kind != OpKind::Restore && s.op.kind != OpKind::Failover) return std::nullopt;
  if (s.op.kind == OpKind::Failover && s.outcome.code != ErrorCode::OK) return std::nullopt;  // none happened (P13)
  const std::string op(to_string(s.op.kind));
  int64_t stored = 0;
  for (const ObjectView& o : s.after.objects) {
    if (o.deadline && *o.deadline <= s.now)
      return op + " kept the expired deadline " + show(o.deadline) + " of " + name(o.id);
    if (o.deadline && !rules_for(s.config.profile).snapshot_keeps_soft_pin)
      return op + " kept a soft pin under a profile where it is runtime-only (" + name(o.id) + ")";
    if (o.pending) return op + " kept a pending action on " + name(o.id);
    stored += o.deadline.has_value();
  }
  if (s.after.gauge != stored)
    return "after " + op + " the gauge is " + std::to_string(s.after.gauge) + " for " + std::to_string(stored) +
           " deadlines kept";
  return std::nullopt;
}

const StepCheck* p09() { static RestoreNormalises p; return &p; }

}  // namespace pinsim
