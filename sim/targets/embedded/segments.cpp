// Segments leaving and joining the embedded master, the way Mooncake's
// MasterService handles them: UnmountSegment prepares the unmount (the
// allocator leaves its manager, so nothing is placed there and its buffers
// free nothing), then ClearInvalidHandles sweeps the metadata, dropping the
// replicas whose handle is invalid (Mooncake's sweep drops the COMPLETE ones
// and any later access to the key drops the PROCESSING ones; here both go in
// the sweep), giving back their committed charge (Mooncake gives back only
// the COMPLETE ones'), clearing a Pending left
// with no viable replica (ClearPendingSoftPinIfNoViableReplica) and erasing
// an object with no valid replica through EraseMetadata; the effective
// quotas are then recomputed. MountSegment adds a new, empty allocator.
// Both are idempotent. The sweep holds every shard, so an unmount is one
// step to a concurrent Start (which reserves under its shard lock).
// GracefulUnmountSegment (rule segment.graceful) takes only the segment's
// allocator out of its manager: the owner's segment stays mounted and
// readable, its buffers valid, until an unmount or a restore ends it.
#include <algorithm>

#include "embedded_master.h"

namespace pinsim::embedded {

Outcome EmbeddedMaster::unmount(const Op& op) {
  if (op.segment >= config_.segments.size()) return Outcome::of(ErrorCode::INVALID_PARAMS);
  unmount_segment(op.segment);  // SEGMENT_NOT_FOUND is OK
  return Outcome{};
}

void EmbeddedMaster::unmount_segment(uint32_t segment) {
  AllShards all = lock_all_shards();
  {
    std::lock_guard lock(alloc_mutex_);
    if (!segments_.unmount(segment)) return;
    for (Discarded& d : discarded_)  // their buffers' allocator is gone
      std::erase_if(d.replicas, [&](const Replica& r) { return r.segment == segment; });
    std::erase_if(discarded_, [](const Discarded& d) { return d.replicas.empty(); });
  }
  for (size_t shard = 0; shard < kShardCount; ++shard)
    for (ObjectId id : ids_in(shard)) clear_invalid_handles(shard, id, segment);
  if (config_.multi_tenant) quotas_.SetCapacity(memory_capacity());
}

// One object's part of the sweep (CleanupStaleHandles, then EraseMetadata
// when no valid replica is left).
void EmbeddedMaster::clear_invalid_handles(size_t shard, ObjectId id, uint32_t segment) {
  ObjectMetadata* md = find_in(shard, id);
  auto stale = std::stable_partition(md->replicas.begin(), md->replicas.end(),
                                     [&](const Replica& r) { return r.segment != segment; });
  if (stale == md->replicas.end()) return;
  // The committed charge of the memory replicas dropped: the COMPLETE ones,
  // and those an in-place Upsert made PROCESSING again (still charged as
  // committed until its write settles). A new write's replicas hold a
  // pending charge instead, kept until it settles (rule tenant.charge).
  // A copy's targets hold the copy's charge instead, which goes with them
  // (the copy itself stays: its End reports what it lost).
  auto is_memory = [](const Replica& r) { return r.kind == ReplicaKind::Memory && !r.copy; };
  const auto memory = std::count_if(stale, md->replicas.end(), is_memory);
  const auto targets = std::count_if(stale, md->replicas.end(), [](const Replica& r) { return r.copy; });
  const uint64_t committed = std::min(md->size * static_cast<uint64_t>(memory), md->quota.CommittedBytes());
  if (TenantQuotaAccount* account = quotas_.FindAny(id.tenant); account && committed != 0)
    md->quota.ReleaseCommitted(*account, committed);
  release_copy_charge(id, *md, static_cast<size_t>(targets));
  record_dynamic_removal(*md, stale);
  md->replicas.erase(stale, md->replicas.end());  // nothing to free: the allocator went with the segment
  // A promotion whose staged replica went is over (rule local.stage).
  const auto staged = [&](const Replica& r) { return r.id == md->promotion->staged; };
  if (md->promotion && md->promotion->staged != 0 && std::none_of(md->replicas.begin(), md->replicas.end(), staged))
    md->promotion.reset();
  if (md->pending && md->viable_pending_replicas() == 0) md->pending.reset();
  if (md->replicas.empty()) erase_object(shard, id);
}

Outcome EmbeddedMaster::mount(const Op& op) {
  if (op.segment >= config_.segments.size()) return Outcome::of(ErrorCode::INVALID_PARAMS);
  {
    std::lock_guard lock(alloc_mutex_);
    if (segments_.record(op.segment).leaving) return Outcome::of(ErrorCode::UNAVAILABLE_IN_CURRENT_STATUS);
    if (!segments_.mount(op.segment, op.client)) return Outcome{};  // SEGMENT_ALREADY_EXISTS is OK
  }
  if (config_.multi_tenant) quotas_.SetCapacity(memory_capacity());
  return Outcome{};
}

Outcome EmbeddedMaster::graceful_unmount(const Op& op) {
  if (op.segment >= config_.segments.size()) return Outcome::of(ErrorCode::INVALID_PARAMS);
  std::lock_guard lock(alloc_mutex_);
  const SegmentRecord& r = segments_.record(op.segment);
  if (!r.mounted || r.owner != op.client) return Outcome::of(ErrorCode::SEGMENT_NOT_FOUND);  // not among its segments
  segments_.start_leaving(op.segment);
  return Outcome{};
}

uint64_t EmbeddedMaster::memory_capacity() const {
  std::lock_guard lock(alloc_mutex_);
  return segments_.memory_capacity();
}

}  // namespace pinsim::embedded
