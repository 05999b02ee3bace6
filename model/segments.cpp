// Segments leaving and joining the master: `unmount` (a client takes its
// segment away, Mooncake's UnmountSegment) and `mount` (it brings the segment
// back, empty: MountSegment). RFC 3028 and PR 2835 say nothing of segments,
// so the model states what a user expects (docs/interpretations.md,
// "Segments"): the replicas on an unmounted segment are gone with it; an
// object left with no replica is gone too, through the one erase every
// removal uses (so the gauge drops by one for a stored deadline, the group
// loses a member, the tenant its charge); an object with replicas elsewhere
// keeps them, its soft pin, its lease and its group, and its write in flight
// keeps its Pending while an eligible PROCESSING replica remains (RFC 3028
// "Revoke, preemption, and processing cleanup": Pending is cleared when no
// eligible and valid PROCESSING replica remains). Placement never picks an
// unmounted segment, and in multi-tenant mode the effective quotas follow the
// mounted memory. Both calls are idempotent, as Mooncake's are.
#include "model.h"

namespace pinsim {

// Rules segment.unmount and segment.unmount-keeps.
Outcome Model::unmount(const Op& op) {
  if (op.segment >= config_.segments.size() || !mounted_[op.segment]) {
    hits_.hit(Rule::SegmentMount);  // no such segment, or already gone: nothing to do
    return op.segment >= config_.segments.size() ? Outcome::of(ErrorCode::INVALID_PARAMS) : Outcome{};
  }
  hits_.hit(Rule::SegmentUnmount);
  mounted_[op.segment] = false;
  auto on_it = [&](const Replica& r) { return r.segment == op.segment; };
  std::vector<ObjectId> on_segment;
  for (const auto& [id, obj] : objects_.unordered())
    if (std::any_of(obj.replicas.begin(), obj.replicas.end(), on_it)) on_segment.push_back(id);
  std::sort(on_segment.begin(), on_segment.end());
  for (ObjectId id : on_segment) drop_from_segment(find_object(id), op.segment);
  // Replicas waiting to be released there go with the segment's memory.
  for (Discarded& d : discarded_) {
    auto first = std::stable_partition(d.replicas.begin(), d.replicas.end(),
                                       [&](const Replica& r) { return r.segment != op.segment; });
    for (auto r = first; r != d.replicas.end(); ++r) release_replica(*r, d.size);
    d.replicas.erase(first, d.replicas.end());
  }
  std::erase_if(discarded_, [](const Discarded& d) { return d.replicas.empty(); });
  if (config_.multi_tenant) recompute_quotas();
  return Outcome{};
}

// One object that had a replica on `segment`: those replicas go; with none
// left the object goes; otherwise its Pending goes with its last eligible
// PROCESSING replica, and everything else stays.
void Model::drop_from_segment(ObjectTable::Entry* it, uint32_t segment) {
  Object& obj = it->second;
  auto first = std::stable_partition(obj.replicas.begin(), obj.replicas.end(),
                                     [&](const Replica& r) { return r.segment != segment; });
  free_replicas(it->first, obj, first);
  if (obj.replicas.empty()) {
    erase_object(it);
    return;
  }
  hits_.hit(Rule::SegmentUnmountKeeps);
  if (!obj.pending) return;
  const bool viable = std::any_of(obj.replicas.begin(), obj.replicas.end(), [&](const Replica& r) {
    return r.status == ReplicaStatus::Processing && obj.pending->is_eligible(r.id);
  });
  if (!viable) {
    hits_.hit(Rule::PendingCleared);
    obj.pending.reset();
  }
}

// Rule segment.mount: the segment takes replicas again, starting empty; an
// index outside the config is INVALID_PARAMS.
Outcome Model::mount(const Op& op) {
  hits_.hit(Rule::SegmentMount);
  if (op.segment >= config_.segments.size()) return Outcome::of(ErrorCode::INVALID_PARAMS);
  if (mounted_[op.segment]) return Outcome{};
  mounted_[op.segment] = true;
  if (config_.multi_tenant) recompute_quotas();
  return Outcome{};
}

}  // namespace pinsim
