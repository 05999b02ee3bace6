// Snapshot and restore under the two profiles (RFC 3028 "Snapshot and HA
// semantics"; the profile table in profile.cpp). Restore tries
// candidates newest first; `fail_first_candidate` makes the newest one fail
// after decoding, and the master falls back to the next: a failed candidate
// leaves nothing behind. With no usable candidate the master starts empty and
// the op returns INTERNAL_ERROR. The PR 2835 retention table is not durable.
// Discarded replicas (memory held after preemption or replacement) are saved
// and restored with the metadata, as Mooncake main does (found by the
// Mooncake lane; docs/interpretations.md).
#include "model.h"

namespace pinsim {

Outcome Model::snapshot() {
  SnapshotImage image{{}, next_replica_id_, discarded_, segments_};
  for (const auto& [id, obj] : objects_) image.objects.emplace_hint(image.objects.end(), id, obj);
  if (!rules_for(config_.profile).snapshot_keeps_soft_pin) {
    for (auto& [id, obj] : image.objects) obj.deadline.reset();  // slots written as false/0
  }
  snapshots_.push_back(std::make_shared<const SnapshotImage>(std::move(image)));
  return Outcome{};
}

// Replicas waiting to be freed are part of the snapshot (Mooncake's
// MetadataSerializer writes discarded_replicas_): their memory is held again
// until their release time and the next eviction pass.
void Model::restore_discarded(const SnapshotImage& image) {
  discarded_ = image.discarded;
  for (const Discarded& d : discarded_)
    for (const Replica& r : d.replicas) hold_replica(r, d.size);
}

// Rule segment.restore: the segments mounted when the snapshot was taken
// (SegmentSerializer) are the ones mounted after the restore, with their
// owners; the master is empty here, so a segment coming back holds nothing
// yet. A segment leaving then is ended after the objects are back (rule
// segment.graceful): restore_leaving.
void Model::restore_segments(const std::vector<MountState>& segments) {
  if (segments == segments_) return;
  hits_.hit(Rule::SegmentRestore);
  segments_ = segments;
  if (config_.multi_tenant) recompute_quotas();
}

// Rule segment.graceful at a restore: the grace timers are not in the
// snapshot, so each segment that was leaving goes now, with the replicas the
// restore put back on it.
void Model::restore_leaving() {
  for (uint32_t s = 0; s < segments_.size(); ++s)
    if (segments_[s].leaving) unmount_segment(s);
}

// MetadataSerializer::Reset: every object goes (destructors -1), the index
// is cleared, and so are group routes and the retention table (PR 2835 rule
// 9: it is not durable). A failover starts its new master the same way.
void Model::reset_for_restore() {
  while (!objects_.empty()) erase_object(&objects_.unordered().back());
  catch_up_log();  // nothing retires past a restore: the master's state is the snapshot's
  groups_needing_refresh_.clear();
  release_discarded(kTimeMax);
  if (!retention_.empty()) hits_.hit(Rule::Pr2835Restore);
  retention_.clear();
  retained_group_count_ = 0;
}

Outcome Model::restore(const Op& op, Time now) {
  const ProfileRules rules = rules_for(config_.profile);
  reset_for_restore();
  size_t skip = 0;
  if (op.fail_first_candidate) {
    hits_.hit(Rule::RestoreFallback);
    skip = 1;
  }
  if (snapshots_.size() <= skip) {  // an empty master: the clients mount their segments again
    restore_segments(std::vector<MountState>(config_.segments.size()));
    return Outcome::of(ErrorCode::INTERNAL_ERROR);
  }
  const SnapshotImage& image = *snapshots_[snapshots_.size() - 1 - skip];
  restore_segments(image.segments);
  next_replica_id_ = image.next_replica_id;
  hits_.hit(rules.snapshot_keeps_soft_pin ? Rule::RestoreRfc : Rule::RestoreMain);
  for (const auto& [id, saved] : image.objects) {
    // What a snapshot carries: no write intent and no processing state.
    Object obj;
    obj.client = saved.client;
    obj.size = saved.size;
    obj.replicas = saved.replicas;
    if (saved.task) {  // a copy under way is not durable: its targets are not restored (rule copy.expiry)
      hits_.hit(Rule::CopyExpiry);
      erase_if(obj.replicas, [](const Replica& r) { return r.copy; });
    }
    for (Replica& r : obj.replicas) r.dynamic = false;  // nor which replicas dynamic copies made (dynrep.cooldown)
    obj.deadline = saved.deadline;
    obj.lease = saved.lease;
    obj.put_start_time = saved.put_start_time;
    obj.group = saved.group;
    obj.hard_pinned = saved.hard_pinned;  // snapshots keep the hard pin
    obj.checksum = saved.checksum;        // and the checksum (rule read.checksum)
    // RFC restore step 1: an expired soft deadline is normalised to Disabled.
    if (obj.deadline && *obj.deadline <= now) obj.deadline.reset();
    // Steps 2-4: a non-COMPLETE object is dropped; an expired lease drops the
    // object unless (rfc profile) its soft pin is still active.
    const bool lease_live = now < obj.lease;
    const bool pinned = rules.pinned_object_survives_expired_lease && obj.deadline.has_value();
    if (!obj.all_complete() || obj.replicas.empty() || !(lease_live || pinned)) continue;
    for (const Replica& r : obj.replicas) hold_replica(r, obj.size);
    if (obj.group != 0) {  // RebuildGroupRoutingIndex: every restored group is dirty
      group_members_[{id.tenant, obj.group}].insert(id.key);
      groups_needing_refresh_.insert({id.tenant, obj.group});
    }
    const std::optional<Time> deadline = obj.deadline;
    obj.deadline.reset();
    Object& stored = insert_object(id, std::move(obj));
    set_deadline(id, stored, deadline);  // step 5: index rebuilt from survivors
  }
  restore_discarded(image);
  restore_leaving();
  return Outcome{};
}

}  // namespace pinsim
