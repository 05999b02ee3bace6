// P8, RFC 3028 "Write API" and "Master configuration": a request that breaks
// a request rule (Preserve or Disable with a TTL, a TTL above the max, an
// unknown action) is rejected with INVALID_PARAMS and changes nothing; an
// Enable(ttl) commit sets exactly now + ttl, saturating at the largest time.
#include "property.h"

namespace pinsim {

PINSIM_PROPERTY(RequestRules, "P8", "RFC 3028 Write API: bad requests change nothing; deadlines saturate",
                kCapObjects | kCapDeadline | kCapPending)

std::optional<std::string> RequestRules::check(const StepContext& s) const {
  if (is_batch(s.op.kind)) return std::nullopt;  // single-key writes only
  if (is_start(s.op.kind)) {
    const SoftPinRequest& r = s.op.soft_pin;
    const bool bad = r.action > 2 || (r.action != static_cast<uint8_t>(SoftPinAction::Enable) && r.ttl_ms) ||
                     (r.action == static_cast<uint8_t>(SoftPinAction::Enable) && r.ttl_ms && *r.ttl_ms > s.config.max_kv_soft_pin_ttl_ms);
    if (bad && s.outcome.code != ErrorCode::INVALID_PARAMS)
      return "a request breaking a request rule returned " + std::string(to_string(s.outcome.code));
    if (bad && !(s.before == s.after)) return "a rejected request changed the state";
  }
  if (is_end(s.op.kind)) {
    const ObjectView* b = find_object(s.before, s.op.object);
    const ObjectView* a = find_object(s.after, s.op.object);
    if (b && a && b->pending && b->pending->action == SoftPinAction::Enable && b->pending->ttl_ms > 0 &&
        complete(*b) == 0 && !a->pending) {
      const Time want = saturating_deadline(s.now, b->pending->ttl_ms);
      if (a->deadline != want)
        return "Enable(" + std::to_string(b->pending->ttl_ms) + ") committed at " + std::to_string(s.now) + " set " +
               show(a->deadline) + ", want " + std::to_string(want);
    }
  }
  return std::nullopt;
}

const StepCheck* p08() { static RequestRules p; return &p; }

}  // namespace pinsim
