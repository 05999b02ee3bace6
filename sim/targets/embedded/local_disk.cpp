// The embedded master's local-disk tier (rules local.*), built as Mooncake
// main's MasterService builds offload and promotion on a hit: PutEnd queues an
// offload of a COMPLETE memory replica in the holder's mailbox, pinning that
// replica (refcnt) so no eviction takes it; the holder's heartbeat takes the
// mailbox into its hand (OffloadObjectHeartbeat), its report of an offload in
// hand ends it (NotifyOffloadSuccess), adding the LOCAL_DISK replica; a read
// of an object left on that disk alone queues a promotion task, which the
// holder stages (a PROCESSING memory replica placed as a one-replica write)
// and settles; DiscardExpiredProcessingReplicas cancels both at the release
// timeout. Where the model's rule differs from Mooncake, this follows the model.
#include <algorithm>

#include "embedded_master.h"

namespace pinsim::embedded {

namespace {

bool has_memory(const ObjectMetadata& md) {
  return std::any_of(md.replicas.begin(), md.replicas.end(),
                     [](const Replica& r) { return r.kind == ReplicaKind::Memory; });
}

bool has_local_disk(const ObjectMetadata& md) {
  return std::any_of(md.replicas.begin(), md.replicas.end(),
                     [](const Replica& r) { return r.kind == ReplicaKind::LocalDisk; });
}

void unpin(ObjectMetadata& md, ReplicaId id) {
  auto it = md.refcnt.find(id);
  if (it != md.refcnt.end() && --it->second == 0) md.refcnt.erase(it);
}

}  // namespace

// PutEnd's offload (rule local.offload): not after a DFS End nor while a DFS
// replica is PROCESSING, not while one is under way; the first COMPLETE
// memory replica on a mounted segment of the holder (the setup client).
void EmbeddedMaster::queue_offload(ObjectId id, const Op& op, ObjectMetadata& md, Time now) {
  if (!config_.local_disk || md.offload || op.selector == ReplicaSelector::Dfs) return;
  for (const Replica& r : md.replicas)
    if (r.kind == ReplicaKind::Dfs && r.status == ReplicaStatus::Processing) return;
  std::lock_guard lock(alloc_mutex_);
  for (const Replica& r : md.replicas) {
    if (r.kind != ReplicaKind::Memory || r.status != ReplicaStatus::Complete || r.copy) continue;
    const SegmentRecord& seg = segments_.record(r.segment);
    if (!seg.mounted || seg.owner != kSetupClient) continue;
    ++md.refcnt[r.id];
    md.offload = OffloadMarker{holder_.queue(id), r.id, now};
    return;
  }
}

// OffloadObjectHeartbeat: the holder takes every queued offload. Every shard
// is held, so an Upsert between its check and its cancel never sees one taken.
Outcome EmbeddedMaster::offload_take() {
  AllShards all = lock_all_shards();
  holder_.take_all();
  return Outcome{};
}

// The holder's report of the offload it took for the key: none in hand is
// OBJECT_NOT_FOUND; the object's own offload ends (its source unpinned), a
// success adding the LOCAL_DISK replica unless there is one; a report of an
// offload no longer the object's changes nothing.
Outcome EmbeddedMaster::offload_end(const Op& op) {
  ShardLock lock;
  const size_t shard = lock_home_shard(op.object, &lock);
  const std::optional<uint64_t> taken = holder_.report(op.object);
  if (!taken) return Outcome::of(ErrorCode::OBJECT_NOT_FOUND);
  ObjectMetadata* md = find_in(shard, op.object);
  if (!md || !md->offload || md->offload->id != *taken) return Outcome{};
  unpin(*md, md->offload->source);
  md->offload.reset();
  if (op.fail || has_local_disk(*md)) return Outcome{};
  std::lock_guard alloc(alloc_mutex_);
  md->replicas.push_back({.id = next_replica_id_++, .segment = kNoSegment, .kind = ReplicaKind::LocalDisk,
                          .status = ReplicaStatus::Complete});
  return Outcome{};
}

// UpsertStart (rule local.blocks): a promotion task, or an offload the holder
// took (no longer in its mailbox), refuses it.
std::optional<ErrorCode> EmbeddedMaster::local_disk_refuses(ObjectId id, const ObjectMetadata& md) const {
  if (md.promotion || (md.offload && !holder_.queued(id, md.offload->id)))
    return ErrorCode::OBJECT_HAS_REPLICATION_TASK;
  return std::nullopt;
}

void EmbeddedMaster::cancel_offload(ObjectId id, ObjectMetadata& md) {
  if (!md.offload) return;
  unpin(md, md.offload->source);
  holder_.drop(id, md.offload->id);
  md.offload.reset();
}

// The high watermark (0.90 of the mounted memory segments' capacity).
bool EmbeddedMaster::memory_at_watermark() const {
  std::lock_guard lock(alloc_mutex_);
  uint64_t used = 0;
  std::vector<uint64_t> per_segment;
  segments_.memory_used(&per_segment);
  for (uint64_t u : per_segment) used += u;
  const uint64_t capacity = segments_.memory_capacity();
  return capacity > 0 && static_cast<double>(used) / static_cast<double>(capacity) >= 0.90;
}

// Promotion on a hit (rule local.promote): an object with a LOCAL_DISK
// replica, no memory replica, no write in flight and no task queues one.
void EmbeddedMaster::queue_promotion(ObjectMetadata& md, Time now) {
  if (!config_.local_disk || md.promotion || md.processing || has_memory(md) || memory_at_watermark()) return;
  for (const Replica& r : md.replicas) {
    if (r.kind != ReplicaKind::LocalDisk) continue;
    md.promotion = PromotionTask{r.id, 0, now};
    return;
  }
}

// The holder stages the promotion (rule local.stage): one PROCESSING memory
// replica, placed as a one-replica write's, the promotion's own (`copy`).
Outcome EmbeddedMaster::promotion_start(const Op& op, Time now) {
  ShardLock lock;
  const size_t shard = lock_home_shard(op.object, &lock);
  ObjectMetadata* md = find_in(shard, op.object);
  if (!md) return Outcome::of(ErrorCode::OBJECT_NOT_FOUND);
  if (md->processing || !md->promotion || has_memory(*md) || md->promotion->staged != 0)
    return Outcome::of(ErrorCode::REPLICA_IS_NOT_READY);
  const PreferredSegments preferred = preferred_segments();
  std::lock_guard alloc(alloc_mutex_);
  const std::vector<uint32_t> placed = segments_.allocate(ReplicaKind::Memory, md->size, 1, preferred.memory);
  if (placed.empty()) return Outcome::of(ErrorCode::NO_AVAILABLE_HANDLE);
  const ReplicaId staged = next_replica_id_++;
  md->replicas.push_back({.id = staged, .segment = placed.front(), .kind = ReplicaKind::Memory, .copy = true});
  md->promotion->staged = staged;
  md->promotion->start = now;
  return Outcome{};
}

// The holder settles the promotion (rule local.stage): a success completes
// the staged replica (REPLICA_IS_NOT_READY with none staged, or gone); a
// failure frees it (OK with no promotion under way). Either ends the task.
Outcome EmbeddedMaster::promotion_end(const Op& op) {
  ShardLock lock;
  const size_t shard = lock_home_shard(op.object, &lock);
  ObjectMetadata* md = find_in(shard, op.object);
  if (!md) return Outcome::of(ErrorCode::OBJECT_NOT_FOUND);
  if (op.fail) {
    if (md->promotion) end_promotion(*md);
    return Outcome{};
  }
  if (!md->promotion || md->promotion->staged == 0) return Outcome::of(ErrorCode::REPLICA_IS_NOT_READY);
  const ReplicaId staged = md->promotion->staged;
  md->promotion.reset();
  auto r = std::find_if(md->replicas.begin(), md->replicas.end(), [&](const Replica& x) { return x.id == staged; });
  if (r == md->replicas.end()) return Outcome::of(ErrorCode::REPLICA_IS_NOT_READY);
  r->status = ReplicaStatus::Complete;
  r->copy = false;  // an ordinary memory replica from now on
  return Outcome{};
}

void EmbeddedMaster::end_promotion(ObjectMetadata& md) {
  const ReplicaId staged = md.promotion->staged;
  md.promotion.reset();
  if (staged == 0) return;
  free_replicas(md, std::stable_partition(md.replicas.begin(), md.replicas.end(),
                                          [&](const Replica& r) { return r.id != staged; }));
}

// DiscardExpiredProcessingReplicas' part for the tier (rule local.expiry): an
// offload or a promotion older than the release timeout is cancelled. The
// holder keeps an offload it took; its report then changes nothing.
void EmbeddedMaster::discard_expired_local(size_t shard, Time now) {
  if (!config_.local_disk) return;
  const uint64_t timeout = config_.put_start_release_timeout_ms;
  for (auto& [id, md] : shards_[shard].objects) {
    if (md->offload && saturating_deadline(md->offload->start, timeout) < now) cancel_offload(id, *md);
    if (!md->promotion || saturating_deadline(md->promotion->start, timeout) >= now) continue;
    // F29: the expired promotion's task goes, its staged replica stays (PROCESSING, never settled).
    if (faults_.f29_reaper_keeps_staged_replica) md->promotion.reset();
    else end_promotion(*md);
  }
}

}  // namespace pinsim::embedded
