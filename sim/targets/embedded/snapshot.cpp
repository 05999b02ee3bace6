// Snapshot and restore in the embedded master under both profiles (RFC 3028
// "Snapshot and HA semantics"; model/profile.cpp). A
// snapshot serialises every object (the committed deadline only under the
// rfc profile). Restore resets the master (index Clear, every object
// destroyed, retention table and counter zeroed), then tries candidates
// newest first; `fail_first_candidate` fails the newest after decoding, which
// resets again (ResetStateAfterFailedRestoreAttempt). Decoding normalises
// expired deadlines, keeps the survivors and rebuilds the index from them;
// the restore then rebuilds the metrics, the soft-pin gauge from the index,
// and (multi-tenant mode) the tenant charges from the surviving objects.
// Hard pins are serialised with the metadata. A segment leaving at the
// snapshot (a graceful unmount) is unmounted once the objects are back. The
// DFS allocator is not serialised: its records are rebuilt from the DFS
// replicas of the objects restored (a discarded one holds no slot).
#include <algorithm>

#include "embedded_master.h"

namespace pinsim::embedded {

Outcome EmbeddedMaster::snapshot() {  // snapshot_mutex_ held exclusively
  const bool keeps_pin = rules_for(config_.profile).snapshot_keeps_soft_pin;
  SnapshotImage image;
  for (const Shard& s : shards_) {
    for (const auto& [id, md] : s.objects) {
      image.objects.push_back({id, md->client, md->size, md->replicas,
                               keeps_pin ? md->committed_deadline() : std::nullopt,  // else false/0 slots
                               md->lease, md->put_start_time, md->group, md->hard_pinned, md->checksum});
    }
  }
  {
    std::lock_guard lock(alloc_mutex_);
    image.next_replica_id = next_replica_id_;
    image.discarded = discarded_;
    image.segments = segments_.records();
  }
  snapshots_.push_back(std::move(image));
  return Outcome{};
}

// MetadataSerializer::Reset: every object destroyed with its tenant state
// (destructors -1), group routes and retention gone, discarded memory freed.
void EmbeddedMaster::reset_state(bool clear_index) {
  if (clear_index) index_.clear();
  for (Shard& s : shards_) {
    s.objects.clear();
    s.group_members.clear();
    s.dirty_groups.clear();
    s.retention.clear();
  }
  {
    std::lock_guard lock(route_mutex_);
    routes_.clear();
  }
  clear_all_dynamic_state();  // the heat windows stay: they are not the objects'
  std::lock_guard lock(alloc_mutex_);
  segments_.clear();
  dfs_.clear();
  discarded_.clear();
  retained_group_count_.store(0);
}

// Deserialize + ApplySnapshotState for one candidate.
// A restore (`restore_rules`) keeps an object whose replicas are all COMPLETE
// and whose lease or pin is live; a failover's standby image keeps one with
// a COMPLETE replica, PROCESSING ones kept as its write left them.
void EmbeddedMaster::decode(const SnapshotImage& image, Time now, bool restore_rules) {
  const ProfileRules rules = rules_for(config_.profile);
  {
    std::lock_guard lock(alloc_mutex_);
    segments_.set_records(image.segments);  // SegmentSerializer: the segments mounted then
    next_replica_id_ = image.next_replica_id;
    discarded_ = image.discarded;  // their memory is held again until released
    for (const Discarded& d : discarded_)
      for (const Replica& r : d.replicas) segments_.hold(r.segment, d.size);
  }
  for (const ObjectRecord& rec : image.objects) {
    // A copy under way is not durable: no task is serialised, and its targets are not restored.
    std::vector<Replica> replicas = rec.replicas;
    std::erase_if(replicas, [](const Replica& r) { return r.copy; });
    std::optional<Time> deadline = rec.deadline;
    // F11: restore skips normalising an expired deadline, so it stays stored
    // and (rfc profile) keeps a lease-expired object alive.
    if (deadline && *deadline <= now && !faults_.f11_restore_keeps_expired_deadline) deadline.reset();
    const bool complete = !replicas.empty() && std::all_of(replicas.begin(), replicas.end(), [](const Replica& r) {
      return r.status == ReplicaStatus::Complete;
    });
    const bool lease_live = now < rec.lease;
    const bool pinned = rules.pinned_object_survives_expired_lease && deadline.has_value();
    const bool committed = std::any_of(replicas.begin(), replicas.end(), [](const Replica& r) {
      return r.status == ReplicaStatus::Complete;
    });
    if (restore_rules ? !complete || !(lease_live || pinned) : !committed) continue;
    const size_t shard = home_shard(rec.id, rec.group);
    Shard& s = shards_[shard];
    auto md = std::make_unique<ObjectMetadata>(gauge_, deadline, faults_.f3_gauge_double_decrement);
    md->client = rec.client;
    md->size = rec.size;
    md->replicas = replicas;
    md->lease = rec.lease;
    md->put_start_time = rec.put_start_time;
    md->group = rec.group;
    md->hard_pinned = rec.hard_pinned;
    md->checksum = rec.checksum;
    md->processing = !complete;  // a failover's: what is left of the write is reaped from now on
    {
      std::lock_guard lock(alloc_mutex_);
      for (const Replica& r : replicas) segments_.hold(r.segment, rec.size);
      for (const Replica& r : replicas)  // the DFS allocator's records, from the objects restored
        if (r.kind == ReplicaKind::Dfs) dfs_.hold(r.id);
    }
    if (rec.group != 0) {  // RebuildGroupRoutingIndex: every restored group is dirty
      set_route(rec.id, rec.group);
      s.group_members[{rec.id.tenant, rec.group}].insert(rec.id.key);
      s.dirty_groups.insert({rec.id.tenant, rec.group});
    }
    s.objects.emplace(rec.id, std::move(md));
    if (deadline) index_.upsert(rec.id, shard, *deadline);  // the index from survivors only
  }
}

Outcome EmbeddedMaster::restore(const Op& op, Time now) {  // snapshot_mutex_ held exclusively
  reset_state(true);
  Outcome out = Outcome::of(ErrorCode::INTERNAL_ERROR);  // no usable candidate: start empty
  for (size_t i = snapshots_.size(), tried = 0; i-- > 0; ++tried) {
    decode(snapshots_[i], now, true);
    if (op.fail_first_candidate && tried == 0) {
      // F12: the reset after a failed candidate skips the index Clear, so the
      // candidate's registrations outlive its objects.
      reset_state(!faults_.f12_failed_restore_leaks_registrations);
      continue;
    }
    out = Outcome{};
    break;
  }
  if (out.code != ErrorCode::OK) {  // an empty master: the clients mount their segments again
    std::lock_guard lock(alloc_mutex_);
    segments_.set_records(std::vector<SegmentRecord>(config_.segments.size()));
  }
  finish_restore();
  return out;
}

// After the objects are back: a segment that was not ready (leaving) is
// unmounted (ApplySnapshotState), and the metrics, the soft-pin gauge and the
// tenant charges are rebuilt from the survivors.
void EmbeddedMaster::finish_restore() {
  std::vector<uint32_t> leaving;
  {
    std::lock_guard lock(alloc_mutex_);
    for (uint32_t s = 0; s < config_.segments.size(); ++s)
      if (segments_.record(s).leaving) leaving.push_back(s);
  }
  for (uint32_t s : leaving) unmount_segment(s);
  if (config_.multi_tenant) quotas_.SetCapacity(memory_capacity());
  gauge_.rebuild(static_cast<int64_t>(index_.registration_count()));
  rebuild_quota_usage();
}

}  // namespace pinsim::embedded
