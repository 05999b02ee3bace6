// Lockstep execution and comparison; see runner.h.
#include "runner.h"

#include <nlohmann/json.hpp>
#include <variant>

#include "json_codec.h"

namespace pinsim {

namespace {

Model build_model(const Config& config) {
  auto created = Model::create(config);
  if (auto* reason = std::get_if<std::string>(&created)) throw std::invalid_argument(*reason);
  return std::get<Model>(std::move(created));
}

std::string opt(const std::optional<Time>& t) { return t ? std::to_string(*t) : "none"; }

}  // namespace

Lockstep::Lockstep(const Config& config, Target& target) : model_(build_model(config)), target_(target) {}

View masked(View v, Capabilities caps) {
  if (!(caps & kCapObjects)) v.objects.clear();
  for (ObjectView& o : v.objects) {
    if (!(caps & kCapDeadline)) o.deadline.reset();
    if (!(caps & kCapPending)) o.pending.reset();
    if (!(caps & kCapLease)) o.lease = 0;
  }
  if (!(caps & kCapGauge)) v.gauge = 0;
  if (!(caps & kCapRetention)) {
    v.retention.clear();
    v.retained_group_count = 0;
    v.retention_entries = 0;
  }
  return v;
}

Difference describe_difference(const View& e, const View& a) {
  if (e.gauge != a.gauge) return {"gauge", "gauge: expected " + std::to_string(e.gauge) + ", got " + std::to_string(a.gauge)};
  if (e.retained_group_count != a.retained_group_count)
    return {"retained_group_count", "retained_group_count: expected " + std::to_string(e.retained_group_count) +
                                        ", got " + std::to_string(a.retained_group_count)};
  if (e.retention != a.retention) return {"retention", "retention table differs"};
  if (e.retention_entries != a.retention_entries) return {"retention_entries", "retention_entries differs"};
  const size_t n = std::max(e.objects.size(), a.objects.size());
  for (size_t i = 0; i < n; ++i) {
    if (i >= e.objects.size())
      return {"objects", "unexpected object t" + std::to_string(a.objects[i].id.tenant) + "/k" + std::to_string(a.objects[i].id.key)};
    if (i >= a.objects.size() || a.objects[i].id != e.objects[i].id)
      return {"objects", "missing object t" + std::to_string(e.objects[i].id.tenant) + "/k" + std::to_string(e.objects[i].id.key)};
    const ObjectView& x = e.objects[i];
    const ObjectView& y = a.objects[i];
    const std::string who = "object t" + std::to_string(x.id.tenant) + "/k" + std::to_string(x.id.key) + ": ";
    if (x.deadline != y.deadline) return {"deadline", who + "deadline expected " + opt(x.deadline) + ", got " + opt(y.deadline)};
    if (x.pending != y.pending) return {"pending", who + "pending differs"};
    if (x.lease != y.lease) return {"lease", who + "lease expected " + std::to_string(x.lease) + ", got " + std::to_string(y.lease)};
    if (x != y) return {"replicas", who + "replicas, size or group differ"};
  }
  return {};
}

std::optional<Failure> Lockstep::step(const Op& op, const std::optional<Outcome>& expect, Trace* record) {
  const size_t index = index_++;
  if (op.kind == OpKind::Advance)
    now_ = op.advance_ms > static_cast<uint64_t>(kTimeMax - now_) ? kTimeMax : now_ + static_cast<Time>(op.advance_ms);
  const Outcome om = model_.apply(op, now_);
  const Outcome ot = target_.apply(op, now_);
  if (record) record->steps.push_back({now_, op, om});
  ++comparisons_;
  if (expect && *expect != om)
    return Failure{index, "expect", "the model's outcome differs from the trace's expectation",
                   encode_outcome(*expect).dump(), encode_outcome(om).dump(), std::string(to_string(om.code))};
  if (om != ot)
    return Failure{index, "outcome", std::string(target_.name()) + " returned a different outcome",
                   encode_outcome(om).dump(), encode_outcome(ot).dump(), std::string(to_string(ot.code))};
  const Capabilities caps = target_.capabilities();
  const View vm = masked(model_.view(now_), caps);
  const View vt = masked(target_.view(now_), caps);
  ++comparisons_;
  if (vm != vt) {
    Difference d = describe_difference(vm, vt);
    return Failure{index, "view", d.detail, encode_view(vm).dump(), encode_view(vt).dump(), d.field};
  }
  return std::nullopt;
}

}  // namespace pinsim
