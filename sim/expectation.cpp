// Matching a step's state expectation against a View; see expectation.h.
#include "expectation.h"

#include <tuple>

namespace pinsim {

namespace {

std::string time_or_none(const std::optional<Time>& t) { return t ? std::to_string(*t) : "none"; }
std::string action_or_none(const std::optional<SoftPinAction>& a) {
  return a ? std::string(to_string(*a)) : "none";
}

// Compares one named field when the capability allows it.
class Matcher {
 public:
  Matcher(Capabilities caps, uint64_t* unchecked) : caps_(caps), unchecked_(unchecked) {}
  template <typename T, typename Show>
  void field(const char* name, Capability need, const std::optional<T>& want, const T& got,
             const std::string& who, Show show) {
    if (first_ || !want) return;
    if ((caps_ & need) != need) {
      ++*unchecked_;
      return;
    }
    if (*want != got)
      first_ = StateMismatch{name, who + name + " expected " + show(*want) + ", got " + show(got),
                             who.substr(0, who.find(':')), show(*want), show(got)};
  }
  std::optional<StateMismatch> first_;

 private:
  Capabilities caps_;
  uint64_t* unchecked_;
};

auto as_number = [](auto v) { return std::to_string(v); };

void match_object(Matcher& m, const ObjectExpectation& e, const View& view) {
  const ObjectView* o = find_object(view, e.id);
  const std::string who = object_name(e.id) + ": ";
  const bool want_present = e.present.value_or(true);
  m.field("present", kCapObjects, std::optional<bool>(want_present), o != nullptr, who,
          [](bool p) { return std::string(p ? "present" : "absent"); });
  if (!o) return;
  std::optional<SoftPinAction> pending;
  if (o->pending) pending = o->pending->action;
  m.field("deadline", kCapDeadline, e.deadline, o->deadline, who, time_or_none);
  m.field("lease", kCapLease, e.lease, o->lease, who, as_number);
  m.field("pending", kCapPending, e.pending, pending, who, action_or_none);
  m.field("complete_memory", kCapObjects, e.complete_memory, o->complete_memory, who, as_number);
  m.field("complete_nof", kCapObjects, e.complete_nof, o->complete_nof, who, as_number);
  m.field("complete_disk", kCapObjects, e.complete_disk, o->complete_disk, who, as_number);
  m.field("complete_dfs", kCapObjects, e.complete_dfs, o->complete_dfs, who, as_number);
  m.field("complete_local", kCapObjects, e.complete_local, o->complete_local, who, as_number);
  m.field("processing", kCapObjects, e.processing, o->processing, who, as_number);
  m.field("group", kCapObjects, e.group, o->group, who, as_number);
  m.field("hard_pinned", kCapObjects, e.hard_pinned, o->hard_pinned, who, as_number);
  m.field("copying", kCapObjects, e.copying, o->copying, who, as_number);
  m.field("offloading", kCapObjects, e.offloading, o->offloading, who, as_number);
  m.field("promoting", kCapObjects, e.promoting, o->promoting, who, as_number);
}

}  // namespace

std::optional<StateMismatch> mismatch(const StateExpectation& e, const View& view, Capabilities caps,
                                      uint64_t* unchecked) {
  Matcher m(caps, unchecked);
  m.field("gauge", kCapGauge, e.gauge, view.gauge, "", as_number);
  m.field("keys", kCapObjects, e.keys, static_cast<uint64_t>(view.objects.size()), "", as_number);
  m.field("memory_hit_bytes", kCapHits, e.memory_hit_bytes, view.memory_hit_bytes, "", as_number);
  m.field("disk_hit_bytes", kCapHits, e.disk_hit_bytes, view.disk_hit_bytes, "", as_number);
  m.field("memory_hits", kCapHits, e.memory_hits, view.memory_hits, "", as_number);
  m.field("disk_hits", kCapHits, e.disk_hits, view.disk_hits, "", as_number);
  m.field("reads_served", kCapHits, e.reads_served, view.reads_served, "", as_number);
  m.field("quota_rejections", kCapRefusals, e.quota_rejections, view.quota_rejections, "", as_number);
  m.field("placement_failures", kCapRefusals, e.placement_failures, view.placement_failures, "", as_number);
  m.field("partial_placements", kCapRefusals, e.partial_placements, view.partial_placements, "", as_number);
  m.field("dfs_slots_used", kCapObjects, e.dfs_slots_used, view.dfs_slots_used, "", as_number);
  for (const ObjectExpectation& o : e.objects) match_object(m, o, view);
  for (const RetentionExpectation& r : e.retention) {
    std::optional<Time> live;
    for (const RetentionView& x : view.retention)
      if (x.tenant == r.tenant && x.group == r.group) live = x.deadline;
    const std::string who = "t" + std::to_string(r.tenant) + "/g" + std::to_string(r.group) + ": ";
    m.field("retention", kCapRetention, std::optional<std::optional<Time>>(r.deadline), live, who, time_or_none);
  }
  // Bytes per tenant (charged, effective quota): a tenant not listed shows 0.
  for (auto [name, expected, shown] : {std::tuple{"usage", &e.usage, &view.usage},
                                       std::tuple{"quotas", &e.quotas, &view.quotas}}) {
    for (const UsageView& u : *expected) {
      uint64_t bytes = 0;
      for (const UsageView& x : *shown)
        if (x.tenant == u.tenant) bytes = x.bytes;
      m.field(name, kCapUsage, std::optional<uint64_t>(u.bytes), bytes, "t" + std::to_string(u.tenant) + ": ",
              as_number);
    }
  }
  return m.first_;
}

}  // namespace pinsim
