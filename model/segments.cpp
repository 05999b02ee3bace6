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
//
// `graceful_unmount` (Mooncake's GracefulUnmountSegment) is the owner's
// unmount with a grace period: the segment stays mounted and readable, takes
// no new replica, and its capacity still counts for the quotas, until an
// `unmount` ends it or a restore does (the grace timer is not in a snapshot:
// a segment leaving when the snapshot was taken leaves at the restore, so the
// restored master never hands it out again). A client names one of its own
// mounted segments: any other (another client's, or one already gone) is
// SEGMENT_NOT_FOUND and changes nothing; a call on its segment already
// leaving is OK and changes nothing; mounting a leaving segment is
// UNAVAILABLE_IN_CURRENT_STATUS (docs/interpretations.md, "Segments"). The
// grace period itself never ends within a run: the harness's clock does not
// drive Mooncake's timer, so the model has no deadline for it.
#include "model.h"

namespace pinsim {

// Rules segment.unmount and segment.unmount-keeps.
Outcome Model::unmount(const Op& op) {
  if (op.segment >= config_.segments.size() || !segments_[op.segment].mounted) {
    hits_.hit(Rule::SegmentMount);  // no such segment, or already gone: nothing to do
    return op.segment >= config_.segments.size() ? Outcome::of(ErrorCode::INVALID_PARAMS) : Outcome{};
  }
  unmount_segment(op.segment);
  return Outcome{};
}

// UnmountSegment's first phase (PrepareUnmountSegment): the segment is no
// longer allocatable until the unmount commits, so a concurrent write places
// elsewhere and a copy to it is refused as to a leaving one.
void Model::unmount_prepare_step(const Op& op) {
  if (op.segment < config_.segments.size() && segments_[op.segment].mounted) segments_[op.segment].leaving = true;
}

// The segment goes (an unmount, or a restore ending a graceful unmount).
void Model::unmount_segment(uint32_t segment) {
  hits_.hit(Rule::SegmentUnmount);
  segments_[segment].mounted = false;
  segments_[segment].leaving = false;
  auto on_it = [&](const Replica& r) { return r.segment == segment; };
  std::vector<ObjectId> on_segment;
  for (const auto& [id, obj] : objects_.unordered())
    if (std::any_of(obj.replicas.begin(), obj.replicas.end(), on_it)) on_segment.push_back(id);
  std::sort(on_segment.begin(), on_segment.end());
  for (ObjectId id : on_segment) drop_from_segment(find_object(id), segment);
  // Replicas waiting to be released there go with the segment's memory.
  for (Discarded& d : discarded_) {
    auto first = d.replicas.stable_partition([&](const Replica& r) { return r.segment != segment; });
    for (auto r = first; r != d.replicas.end(); ++r) release_replica(*r, d.size);
    d.replicas.erase(first, d.replicas.end());
  }
  std::erase_if(discarded_, [](const Discarded& d) { return d.replicas.empty(); });
  release_retiring_on(segment);  // and so do the retiring ones' (rule log.window)
  if (config_.multi_tenant) recompute_quotas();
}

// One object that had a replica on `segment`: those replicas go; with none
// left the object goes; otherwise its Pending goes with its last eligible
// PROCESSING replica, and everything else stays.
void Model::drop_from_segment(ObjectTable::Entry* it, uint32_t segment) {
  Object& obj = it->second;
  auto first = obj.replicas.stable_partition([&](const Replica& r) { return r.segment != segment; });
  remove_logged(it->first, obj, first, true);  // the cleanup is logged; the memory went with the segment
  // A promotion whose staged replica went is over (rule local.stage).
  const auto staged = [&](const Replica& r) { return r.id == obj.promotion->staged; };
  if (obj.promotion && obj.promotion->staged != 0 && std::none_of(obj.replicas.begin(), obj.replicas.end(), staged))
    obj.promotion.reset();
  if (obj.replicas.empty()) {
    remove_logged(it);
    return;
  }
  hits_.hit(Rule::SegmentUnmountKeeps);
  if (obj.has_disk()) hits_.hit(Rule::DiskSurvives);
  if (obj.has_local_disk()) hits_.hit(Rule::LocalSurvives);
  if (obj.count(ReplicaKind::Dfs)) hits_.hit(Rule::DfsSurvives);
  if (!obj.pending) return;
  const bool viable = std::any_of(obj.replicas.begin(), obj.replicas.end(), [&](const Replica& r) {
    return r.status == ReplicaStatus::Processing && obj.pending->is_eligible(r.id);
  });
  if (!viable) {
    hits_.hit(Rule::PendingCleared);
    obj.pending.reset();
  }
}

// Rule segment.mount: the segment takes replicas again, starting empty, and
// belongs to the client that mounted it; an index outside the config is
// INVALID_PARAMS; a segment still leaving cannot be mounted again yet.
Outcome Model::mount(const Op& op) {
  hits_.hit(Rule::SegmentMount);
  if (op.segment >= config_.segments.size()) return Outcome::of(ErrorCode::INVALID_PARAMS);
  MountState& seg = segments_[op.segment];
  if (seg.leaving) return Outcome::of(ErrorCode::UNAVAILABLE_IN_CURRENT_STATUS);
  if (seg.mounted) return Outcome{};
  seg = MountState{true, false, op.client};
  if (config_.multi_tenant) recompute_quotas();
  return Outcome{};
}

// Rule segment.graceful: the owner's segment stops taking replicas and stays
// readable until an unmount or a restore ends it.
Outcome Model::graceful_unmount(const Op& op) {
  if (op.segment >= config_.segments.size()) return Outcome::of(ErrorCode::INVALID_PARAMS);
  MountState& seg = segments_[op.segment];
  hits_.hit(Rule::SegmentGraceful);
  if (!seg.mounted || seg.owner != op.client) return Outcome::of(ErrorCode::SEGMENT_NOT_FOUND);
  seg.leaving = true;
  return Outcome{};
}

}  // namespace pinsim
