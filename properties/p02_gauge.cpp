// P2, RFC 3028 "Metrics": the soft-pin gauge is never negative, always equals
// the number of stored deadlines (RFC 3028 "Read and eviction paths": the gauge
// counts stale deadlines until they are normalised), and right after a cleanup at
// time t equals the number of objects whose deadline is still > t.
#include "property.h"

namespace pinsim {

PINSIM_PROPERTY(GaugeExact, "P2", "RFC 3028 Metrics: the gauge counts stored deadlines", kCapObjects | kCapDeadline | kCapGauge)

std::optional<std::string> GaugeExact::check(const StepContext& s) const {
  if (s.after.gauge < 0) return "gauge is negative: " + std::to_string(s.after.gauge);
  int64_t stored = 0, active = 0;
  for (const auto* list : {&s.after.objects, &s.after.retiring})  // a retiring object's pin still counts (log.window)
    for (const ObjectView& o : *list) {
      stored += o.deadline.has_value();
      active += o.deadline && *o.deadline > s.now;
    }
  if (s.after.gauge != stored)
    return "gauge " + std::to_string(s.after.gauge) + " but " + std::to_string(stored) + " stored deadlines";
  if (s.op.kind == OpKind::Cleanup && s.after.gauge != active)
    return "after cleanup the gauge is " + std::to_string(s.after.gauge) + " but " + std::to_string(active) + " pins are active";
  return std::nullopt;
}

const StepCheck* p02() { static GaugeExact p; return &p; }

}  // namespace pinsim
