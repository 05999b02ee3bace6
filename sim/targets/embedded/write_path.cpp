// The embedded master's write path: Put/Upsert Start, End and Revoke. Starts hold the key's operation stripe, as
// Mooncake's AcquireObjectOperationLock; an object that moves to another
// shard (Case A with a new group) is erased under the old shard's lock and
// created under the new one's.
#include <algorithm>

#include "embedded_master.h"

namespace pinsim::embedded {

namespace {

// F24: Mooncake main's PutEnd marks every PROCESSING replica of the selected
// kind COMPLETE, a copy's targets among them (rule copy.targets says only the
// copy's End settles them).
void f24_complete_copy_targets(ObjectMetadata& md, ReplicaSelector selector) {
  for (Replica& r : md.replicas)
    if (r.copy && selected(selector, r.kind)) r.status = ReplicaStatus::Complete;
}

}  // namespace

// Structural checks, then ResolveSoftPinRequest.
std::optional<ErrorCode> EmbeddedMaster::validate_start(const Op& op, Resolved* out) const {
  if (op.memory_replicas + op.nof_replicas + op.dfs_replicas == 0 || op.size == 0) return ErrorCode::INVALID_PARAMS;
  if (auto err = validate_dfs(op)) return err;  // dfs.cpp
  if (!one_group_id_per_key(op)) return ErrorCode::INVALID_PARAMS;
  const SoftPinRequest& req = op.soft_pin;
  if (req.action > static_cast<uint8_t>(SoftPinAction::Disable)) return ErrorCode::INVALID_PARAMS;
  const auto action = static_cast<SoftPinAction>(req.action);
  if (action != SoftPinAction::Enable && req.ttl_ms) return ErrorCode::INVALID_PARAMS;
  uint64_t ttl = 0;
  if (action == SoftPinAction::Enable) {
    ttl = req.ttl_ms.value_or(config_.default_kv_soft_pin_ttl_ms);
    if (ttl > config_.max_kv_soft_pin_ttl_ms) return ErrorCode::INVALID_PARAMS;
  }
  // dfs_allocator_not_initialized, after every request rule (dfs.cpp)
  if (op.dfs_replicas > 0 && !dfs_.enabled()) return ErrorCode::DFS_SERVICE_UNAVAILABLE;
  *out = {action, ttl};
  return std::nullopt;
}

// The carry into replacement metadata keeps the committed deadline only if
// D > now (RFC 3028 rule 7).
std::optional<Time> EmbeddedMaster::carry_unexpired(const ObjectMetadata& md, Time now) const {
  const std::optional<Time> d = md.committed_deadline();
  if (!d) return std::nullopt;
  // F5: the carry skips the expiry filter, so Preserve brings an expired
  // deadline into the replacement metadata.
  if (faults_.f5_carry_expired_deadline) return d;
  return *d > now ? d : std::nullopt;
}

// A Start that replaces existing metadata reserves the new object's space
// first, so that a refusal leaves the old object, its deadline and its
// in-flight write untouched. The old object's charge counts as given back,
// except (Upsert Case C, `keeps_charge`) its COMPLETE memory replicas, which
// stay charged until the new write settles; its DFS slots count as free
// (Mooncake frees them before it allocates). F16 takes Mooncake main's order
// instead: the old metadata is erased, then the allocation may fail.
ErrorCode EmbeddedMaster::reserve_for(const Op& op, const ObjectMetadata* replaced, bool keeps_charge,
                                     std::vector<Replica>* out, StartRequest* request) {
  if (replaced && faults_.f16_failed_start_drops_object) return ErrorCode::OK;  // reserved after the erase
  uint64_t released = 0;
  if (replaced)
    released = replaced->quota.TotalChargedBytes() - (keeps_charge ? replaced->complete_memory_bytes() : 0);
  return reserve(op, released, out, request, dfs_replica_ids(replaced));
}

ErrorCode EmbeddedMaster::reserve_late(const Op& op, bool replaced, std::vector<Replica>* out, StartRequest* request) {
  if (!replaced || !faults_.f16_failed_start_drops_object) return ErrorCode::OK;
  return reserve(op, 0, out, request);
}

Outcome EmbeddedMaster::put_start_once(const Op& op, Time now, StartRequest* request) {
  Resolved req{};
  if (auto err = validate_start(op, &req)) return Outcome::of(*err);
  if (auto err = check_registered(op.object.tenant)) return Outcome::of(*err);
  const ObjectId id = op.object;
  std::lock_guard op_lock(op_locks_[ObjectIdHash{}(id) % op_locks_.size()]);
  ShardLock lock, target_lock;  // the object's shard, and its new group's home if that differs
  size_t shard = lock_home_shard_and(id, home_shard(id, op.group), &lock, &target_lock);
  ObjectMetadata* md = find_in(shard, id);
  if (md) {
    const Time discard_at = saturating_deadline(md->put_start_time, config_.put_start_discard_timeout_ms);
    if (md->any_complete() || now <= discard_at) return Outcome::of(ErrorCode::OBJECT_ALREADY_EXISTS);
  }
  std::vector<Replica> replicas;
  if (ErrorCode err = reserve_for(op, md, false, &replicas, request); err != ErrorCode::OK) return Outcome::of(err);
  if (md) {  // only stale PROCESSING replicas: erase and recreate, carrying nothing
    discard_replicas(*md, md->replicas.begin(),
                     saturating_deadline(md->put_start_time, config_.put_start_release_timeout_ms));
    erase_object(shard, id, reroute(id, md->group, op.group));  // a concurrent End finds the home
  }
  if (ErrorCode err = reserve_late(op, md != nullptr, &replicas, request); err != ErrorCode::OK) {
    if (md) erase_route(id);  // the key is gone
    return Outcome::of(err);
  }
  shard = home_shard(id, op.group);  // held since the lookup, as the old one still is
  Inherited from;  // PutStart: everything from the request
  from.group = op.group;
  from.hard_pinned = op.hard_pin;
  return Outcome::of(create_object(op, shard, std::move(from), req, std::move(replicas), now));
}

// Preemption: the in-flight write's replicas are discarded, its Pending
// cleared (ClearPendingSoftPinAction) and its charge settled.
void EmbeddedMaster::preempt(ObjectId id, ObjectMetadata& md, Time now) {
  auto first = std::stable_partition(md.replicas.begin(), md.replicas.end(),
                                     [](const Replica& r) { return r.status == ReplicaStatus::Complete; });
  // F28: the preempted DFS replica keeps its slot (UpsertStart's FreeDfsReplicas dropped).
  discard_replicas(md, first, saturating_deadline(now, config_.put_start_release_timeout_ms),
                   !faults_.f28_preemption_keeps_dfs_slot);
  md.pending.reset();
  md.processing = false;
  settle_primary_write(id, md);
}

// What replacement metadata takes over: an unexpired deadline (RFC 3028
// rule 7); Case A the request's group and hard pin; Case C the old group,
// the hard pin ORed with the request's (merged_config), and the old charge
// (TransferReplacementCharge).
EmbeddedMaster::Inherited EmbeddedMaster::inherit_replaced(const Op& op, ObjectMetadata& md, bool case_a, Time now) {
  Inherited from;
  from.deadline = carry_unexpired(md, now);
  from.group = case_a ? op.group : md.group;
  from.hard_pinned = op.hard_pin || (!case_a && md.hard_pinned);
  if (!case_a && quotas_.Find(op.object.tenant)) md.quota.TransferReplacementCharge(from.quota);
  return from;
}

// Case B, in place, as Mooncake's UpsertStart does it: the new writer and
// start time, then each COMPLETE replica is marked PROCESSING and named
// eligible (BeginSoftPinAction), and the key joins processing_keys. The
// committed deadline is untouched until End, and so are the hard pin and
// the ledger's committed bytes.
void EmbeddedMaster::restart_in_place(const Op& op, ObjectMetadata& md, const Resolved& req, Time now) {
  // The holder's disk copy holds the old value and no End names it: it goes (rule local.offload).
  std::erase_if(md.replicas, [](const Replica& r) { return r.kind == ReplicaKind::LocalDisk; });
  md.client = op.client;
  md.put_start_time = now;
  ReplicaIds eligible;
  md.visit_complete_replicas([&eligible](Replica& r) {
    eligible.push_back(r.id);
    r.status = ReplicaStatus::Processing;
  });
  md.begin_soft_pin_action(req.action, req.ttl_ms, std::move(eligible));
  md.processing = true;
}

Outcome EmbeddedMaster::upsert_start_once(const Op& op, Time now, StartRequest* request) {
  Resolved req{};
  if (auto err = validate_start(op, &req)) return Outcome::of(*err);
  if (auto err = check_registered(op.object.tenant)) return Outcome::of(*err);
  const ObjectId id = op.object;
  std::lock_guard op_lock(op_locks_[ObjectIdHash{}(id) % op_locks_.size()]);
  ShardLock lock, target_lock;  // the object's shard, and the request's group's home if that differs
  size_t shard = lock_home_shard_and(id, home_shard(id, op.group), &lock, &target_lock);
  ObjectMetadata* md = find_in(shard, id);
  if (md && sends_group(op) && op.group != md->group) return Outcome::of(ErrorCode::INVALID_PARAMS);
  // A copy reads the object's replicas (CopyStart's task): no Upsert replaces them meanwhile.
  if (md && md->task) return Outcome::of(ErrorCode::OBJECT_HAS_REPLICATION_TASK);
  // A promotion, or an offload the holder took, reads or writes it too (rule local.blocks).
  if (md)
    if (auto err = local_disk_refuses(id, *md)) return Outcome::of(*err);
  // Which case applies is fixed before anything changes: A (in flight with
  // nothing COMPLETE: replaced, group from the request), B (same size: in
  // place) or C (size change: replaced, same group).
  const bool replace_a = md && md->processing && !md->any_complete();
  const bool in_place = md && !replace_a && op.size == md->size;
  if (in_place && !same_dfs_topology(op, *md)) return Outcome::of(ErrorCode::INVALID_PARAMS);  // dfs.cpp
  std::vector<Replica> replicas;
  if (!in_place)
    if (ErrorCode err = reserve_for(op, md, !replace_a, &replicas, request); err != ErrorCode::OK)
      return Outcome::of(err);
  Inherited from;
  from.group = op.group;
  from.hard_pinned = op.hard_pin;
  if (md) {
    cancel_offload(id, *md);  // still queued: the Upsert going ahead cancels it (rule local.blocks)
    if (md->processing) preempt(id, *md, now);
    if (in_place) {
      restart_in_place(op, *md, req, now);
      return Outcome{};
    }
    // Replacement: the old metadata goes (destructor -1), the new one carries
    // an unexpired deadline (constructor +1).
    from = inherit_replaced(op, *md, replace_a, now);
    discard_replicas(*md, md->replicas.begin(), saturating_deadline(now, config_.put_start_release_timeout_ms));
    erase_object(shard, id, reroute(id, md->group, from.group));  // a concurrent End finds the home
  }
  if (ErrorCode err = reserve_late(op, md != nullptr, &replicas, request); err != ErrorCode::OK) {
    if (md) erase_route(id);  // the key is gone
    release_all_quota(id, from.quota);  // the replaced charge goes with the failed write
    return Outcome::of(err);
  }
  shard = home_shard(id, from.group);  // the old group's or the request's: both held since the lookup
  return Outcome::of(create_object(op, shard, std::move(from), req, std::move(replicas), now));
}

// PutEnd / UpsertEnd.
Outcome EmbeddedMaster::end(const Op& op, Time now) {
  const ObjectId id = op.object;
  ShardLock lock;
  const size_t shard = lock_home_shard(id, &lock);
  ObjectMetadata* md = find_in(shard, id);
  if (!md) return Outcome::of(ErrorCode::OBJECT_NOT_FOUND);
  if (md->client != op.client) return Outcome::of(ErrorCode::ILLEGAL_CLIENT);
  if (faults_.f24_end_completes_copy_targets) f24_complete_copy_targets(*md, op.selector);
  // F10: a later or duplicate End renews a stored deadline to now + the TTL
  // of the last Enable commit (the pre-#2909 PutEnd renewal).
  auto f10_refresh = [&] {
    if (!faults_.f10_duplicate_end_refreshes || md->committed_ttl_ms() == 0 || !md->committed_deadline()) return;
    apply_evaluation(id, shard, md->renew_to(compute_deadline(now, md->committed_ttl_ms(), faults_.f6_deadline_wraps)));
  };
  if (!md->processing) {  // idempotent retry: no side effect at all
    bool targeted = false;
    for (const Replica& r : md->replicas) {
      if (!selected(op.selector, r.kind) || r.copy) continue;  // a copy's targets are its own
      targeted = true;
      if (r.status != ReplicaStatus::Complete) return Outcome::of(ErrorCode::INVALID_WRITE);
    }
    if (!targeted) return Outcome::of(ErrorCode::INVALID_WRITE);
    f10_refresh();
    return Outcome{};
  }
  const bool was_complete = md->any_complete();
  bool completed_eligible = false, completed_any = false;
  for (Replica& r : md->replicas) {
    if (!selected(op.selector, r.kind) || r.status != ReplicaStatus::Processing || r.copy) continue;
    r.status = ReplicaStatus::Complete;
    completed_any = true;
    if (md->pending && md->pending->is_eligible(r.id)) completed_eligible = true;
  }
  // Commit only on the zero-to-one COMPLETE change, via the current write.
  if (!was_complete && completed_eligible && md->any_complete()) {
    apply_evaluation(id, shard, md->commit_pending(now, faults_.f6_deadline_wraps));
  } else if (was_complete && completed_any) {
    f10_refresh();
  }
  md->lease = std::max(md->lease, now);  // GrantReadLease(0)
  if (md->write_complete()) md->processing = false;
  // PutEnd's checksum condition: an End with a checksum sets it, and so does
  // one without that names all, memory or NoF (not disk nor DFS); F21: only one with.
  const bool names_written = op.selector != ReplicaSelector::Disk && op.selector != ReplicaSelector::Dfs;
  if (op.checksum || (names_written && !faults_.f21_end_without_checksum_keeps_old))
    md->checksum = op.checksum;
  settle_primary_write(id, *md);  // SettlePrimaryWriteQuotaIfReady
  queue_offload(id, op, *md, now);  // local_disk.cpp (rule local.offload)
  return Outcome{};
}

// PutRevoke / UpsertRevoke.
Outcome EmbeddedMaster::revoke(const Op& op, Time) {
  const ObjectId id = op.object;
  ShardLock lock;
  const size_t shard = lock_home_shard(id, &lock);
  ObjectMetadata* md = find_in(shard, id);
  if (!md) return Outcome::of(ErrorCode::OBJECT_NOT_FOUND);
  if (md->client != op.client) return Outcome::of(ErrorCode::ILLEGAL_CLIENT);
  if (!md->processing) return Outcome::of(ErrorCode::INVALID_WRITE);
  for (const Replica& r : md->replicas)
    if (selected(op.selector, r.kind) && !r.copy && r.status != ReplicaStatus::Processing)
      return Outcome::of(ErrorCode::INVALID_WRITE);
  auto kept = std::stable_partition(md->replicas.begin(), md->replicas.end(), [&](const Replica& r) {
    return r.copy || !selected(op.selector, r.kind);  // a copy's targets are its own
  });
  const bool revoked_any = kept != md->replicas.end();
  free_replicas(*md, kept);
  // ClearPendingSoftPinIfNoViableReplica.
  if (md->pending) {
    const bool viable = md->viable_pending_replicas() > 0;
    // F4: a revoke that took any replica clears Pending even while an
    // eligible PROCESSING replica remains.
    if (!viable || (faults_.f4_partial_revoke_drops_pending && revoked_any)) md->pending.reset();
  }
  if (md->replicas.empty()) {
    erase_object(shard, id);  // ReleaseAll
    return Outcome{};
  }
  if (md->write_complete()) md->processing = false;
  settle_primary_write(id, *md);
  return Outcome{};
}

}  // namespace pinsim::embedded
