// The local-disk tier (Mooncake's offload and promotion on a hit; rules
// local.*). RFC 3028 states one thing about it: storage promotion is no
// soft-pin activation point and extends no deadline (Summary; Non-goals),
// rule local.no-pin. The rest is what a user of the tier expects
// (docs/interpretations.md, "The local-disk tier"): an End queues one offload
// of the object's memory to the holder's disk; the holder takes the queued
// offloads and reports each, and only the offload it took may add the disk
// replica; a read of an object left on that disk alone queues one promotion
// back to memory, which the holder stages and settles; both end at the
// release timeout; a request the tier refuses changes nothing.
#include "model.h"

namespace pinsim {

namespace {

bool has_memory(const Object& obj) {
  return std::any_of(obj.replicas.begin(), obj.replicas.end(),
                     [](const Replica& r) { return r.kind == ReplicaKind::Memory; });
}

}  // namespace

// Rule local.offload: after an End that completed replicas (not a DFS End,
// and no DFS replica still PROCESSING), one offload of the first COMPLETE
// memory replica on a segment the holder mounted, unless one is under way.
void Model::queue_offload(const Op& op, Object& obj, Time now) {
  if (!config_.local_disk || obj.offload || op.selector == ReplicaSelector::Dfs) return;
  for (const Replica& r : obj.replicas)
    if (r.kind == ReplicaKind::Dfs && r.status == ReplicaStatus::Processing) return;
  for (const Replica& r : obj.replicas) {
    if (!r.complete_memory() || r.copy || !segments_[r.segment].mounted || segments_[r.segment].owner != kSetupClient)
      continue;
    hits_.hit(Rule::LocalOffload);
    obj.offload = OffloadTask{next_offload_++, r.id, now, false};
    return;
  }
}

// offload_take (rule local.complete): the holder's heartbeat takes every
// queued offload; it keeps what it took until it reports it.
Outcome Model::offload_take() {
  for (auto& [id, obj] : objects_.unordered()) {
    if (!obj.offload || obj.offload->taken) continue;
    obj.offload->taken = true;
    hand_[id] = obj.offload->id;
  }
  return Outcome{};
}

// offload_end (rule local.complete): the holder reports an offload it took.
// Nothing taken for the key: it sends nothing (OBJECT_NOT_FOUND). A report
// of the object's own offload ends it, and a success adds the disk replica
// unless the object has one; a report of an offload that is no longer the
// object's (removed, replaced, expired) changes nothing.
Outcome Model::offload_end(const Op& op) {
  auto in_hand = hand_.find(op.object);
  if (in_hand == hand_.end()) return Outcome::of(ErrorCode::OBJECT_NOT_FOUND);
  const uint64_t offload = in_hand->second;
  hand_.erase(in_hand);
  auto* it = find_object(op.object);
  if (!it || !it->second.offload || it->second.offload->id != offload) return Outcome{};
  Object& obj = it->second;
  hits_.hit(Rule::LocalComplete);
  if (obj.deadline || obj.pending) hits_.hit(Rule::LocalNoPin);
  obj.offload.reset();
  if (!op.fail && !obj.has_local_disk())
    obj.replicas.push_back(
        {.id = next_replica_id_++, .segment = kNoSegment, .kind = ReplicaKind::LocalDisk,
         .status = ReplicaStatus::Complete});
  return Outcome{};
}

// Upsert (rule local.blocks): a promotion under way, or an offload the holder
// took, refuses it; an offload still queued is cancelled when it goes ahead.
std::optional<ErrorCode> Model::local_disk_refuses(const Object& obj) {
  if (!obj.promotion && !(obj.offload && obj.offload->taken)) return std::nullopt;
  hits_.hit(Rule::LocalBlocks);
  return ErrorCode::OBJECT_HAS_REPLICATION_TASK;
}

// Whether memory is at the high watermark (Mooncake's 0.90 of the mounted
// memory segments' capacity), where no promotion is queued.
bool Model::memory_at_watermark() const {
  uint64_t used = 0, capacity = 0;
  for (size_t s = 0; s < config_.segments.size(); ++s) {
    if (config_.segments[s].kind != ReplicaKind::Memory || !segments_[s].mounted) continue;
    used += segment_used_[s];
    capacity += config_.segments[s].capacity;
  }
  return capacity > 0 && static_cast<double>(used) / static_cast<double>(capacity) >= 0.90;
}

// Rule local.promote: a read served to an object with a LOCAL_DISK replica
// and no memory replica, whose write is not in flight, queues one promotion.
void Model::queue_promotion(Object& obj, Time now) {
  if (!config_.local_disk || obj.promotion || obj.processing || has_memory(obj) || memory_at_watermark()) return;
  for (const Replica& r : obj.replicas) {
    if (r.kind != ReplicaKind::LocalDisk) continue;
    hits_.hit(Rule::LocalPromote);
    if (obj.deadline || obj.pending) hits_.hit(Rule::LocalNoPin);
    obj.promotion = PromotionTask{r.id, 0, now};
    return;
  }
}

// promotion_start (rule local.stage): the holder stages one PROCESSING memory
// replica, placed as a one-replica write is, for a promotion not yet staged
// of an object with no memory replica and no write in flight.
Outcome Model::promotion_start(const Op& op, Time now) {
  auto* it = find_object(op.object);
  if (!it) return Outcome::of(ErrorCode::OBJECT_NOT_FOUND);
  Object& obj = it->second;
  if (obj.processing || !obj.promotion || has_memory(obj) || obj.promotion->staged != 0)
    return Outcome::of(ErrorCode::REPLICA_IS_NOT_READY);
  Op one = op;
  one.size = obj.size;
  one.memory_replicas = 1;
  one.nof_replicas = one.dfs_replicas = 0;
  auto placed = plan_placement(one);
  if (!placed || placed->empty()) return Outcome::of(ErrorCode::NO_AVAILABLE_HANDLE);
  Replica staged = placed->front();
  staged.id = next_replica_id_++;
  staged.copy = true;  // the promotion's own: no write's End, Revoke or discard acts on it
  hold_replica(staged, obj.size);
  obj.replicas.push_back(staged);
  obj.promotion->staged = staged.id;
  obj.promotion->start = now;
  hits_.hit(Rule::LocalStage);
  return Outcome{};
}

// promotion_end (rule local.stage): a success completes the staged replica
// (REPLICA_IS_NOT_READY when none is staged); a failure drops it (OK when no
// promotion is under way). Either ends the promotion.
Outcome Model::promotion_end(const Op& op) {
  auto* it = find_object(op.object);
  if (!it) return Outcome::of(ErrorCode::OBJECT_NOT_FOUND);
  Object& obj = it->second;
  if (op.fail) {
    if (obj.promotion) end_promotion(obj);
    return Outcome{};
  }
  if (!obj.promotion || obj.promotion->staged == 0) return Outcome::of(ErrorCode::REPLICA_IS_NOT_READY);
  Replica* staged = obj.find_replica(obj.promotion->staged);
  obj.promotion.reset();
  if (!staged) return Outcome::of(ErrorCode::REPLICA_IS_NOT_READY);
  staged->status = ReplicaStatus::Complete;
  staged->copy = false;
  hits_.hit(Rule::LocalStage);
  if (obj.deadline || obj.pending) hits_.hit(Rule::LocalNoPin);
  return Outcome{};
}

// Ends a promotion without completing it: its staged replica, if any, is freed at once.
void Model::end_promotion(Object& obj) {
  const ReplicaId staged = obj.promotion->staged;
  obj.promotion.reset();
  auto gone = obj.replicas.stable_partition([&](const Replica& r) { return staged == 0 || r.id != staged; });
  for (auto r = gone; r != obj.replicas.end(); ++r) release_replica(*r, obj.size);
  obj.replicas.erase(gone, obj.replicas.end());
}

// Rule local.expiry: an offload or a promotion older than the release timeout
// is cancelled (the offload's source evictable again, a staged replica freed).
// The holder keeps an offload it took; its report then changes nothing.
void Model::discard_expired_local(Object& obj, Time now) {
  if (offload_expired(obj, now)) {
    hits_.hit(Rule::LocalExpiry);
    obj.offload.reset();
  }
  if (promotion_expired(obj, now)) {
    hits_.hit(Rule::LocalExpiry);
    end_promotion(obj);
  }
}

bool Model::offload_expired(const Object& obj, Time now) const {
  return obj.offload && saturating_deadline(obj.offload->start, config_.put_start_release_timeout_ms) < now;
}

bool Model::promotion_expired(const Object& obj, Time now) const {
  return obj.promotion && saturating_deadline(obj.promotion->start, config_.put_start_release_timeout_ms) < now;
}

}  // namespace pinsim
