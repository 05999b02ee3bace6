// Copies of an object's replica in the embedded master, as Mooncake's
// CopyStart, CopyEnd and CopyRevoke keep them: a replication task per
// object (ObjectMetadata::task), owned by the client that started it, reading
// a COMPLETE source replica and writing PROCESSING targets (the replicas
// marked `copy`) that only its own End or Revoke settle (rules copy.*). The
// task keeps its object and source in place while it runs (Remove, Upsert and
// eviction check it), charges its targets to the tenant from its start (the
// ledger's copy bucket), and never touches a soft pin, a Pending or a lease
// (RFC 3028: a copy is no activation point). A copy older than the release
// timeout is discarded with the expired writes (discard_expired_copies). A
// copy op with a proposal sends that proposal's lease token (copy_call): the
// dynamic copy's checks and marks are in dynamic_replication.cpp.
#include <algorithm>

#include "embedded_master.h"

namespace pinsim::embedded {

namespace {

// The copy's targets to the end of `md.replicas`; returns the first of them.
std::vector<Replica>::iterator partition_targets(ObjectMetadata& md) {
  return std::stable_partition(md.replicas.begin(), md.replicas.end(), [](const Replica& r) { return !r.copy; });
}

}  // namespace

// The targets must be mounted memory segments that take replicas: an unknown
// or unmounted one (or a NoF one) is SEGMENT_NOT_FOUND, a leaving one
// UNAVAILABLE_IN_CURRENT_STATUS, checked in the order named.
std::optional<ErrorCode> EmbeddedMaster::copy_targets_refused(const std::vector<uint32_t>& targets) const {
  std::lock_guard lock(alloc_mutex_);
  for (uint32_t s : targets) {
    if (s >= config_.segments.size() || config_.segments[s].kind != ReplicaKind::Memory ||
        !segments_.record(s).mounted)
      return ErrorCode::SEGMENT_NOT_FOUND;
    if (segments_.record(s).leaving) return ErrorCode::UNAVAILABLE_IN_CURRENT_STATUS;
  }
  return std::nullopt;
}

// The targets' charge (size each, TryCharge without the quota-eviction retry
// of Starts), then a buffer on each of them, all or none.
ErrorCode EmbeddedMaster::reserve_copy(ObjectId id, ObjectMetadata& md, const std::vector<uint32_t>& targets) {
  TenantQuotaAccount* account = quotas_.Find(id.tenant);
  const unsigned __int128 requested = static_cast<unsigned __int128>(md.size) * targets.size();
  if (account && requested > TenantQuotaAccount::kMaxChargedBytes) return ErrorCode::INVALID_PARAMS;
  const uint64_t need = account ? static_cast<uint64_t>(requested) : 0;
  uint64_t deficit = 0;
  if (account && !account->TryCharge(need, 0, &deficit)) {
    quota_rejections_.fetch_add(1);
    return ErrorCode::TENANT_QUOTA_EXCEEDED;
  }
  std::lock_guard lock(alloc_mutex_);
  if (!segments_.allocate_each(targets, md.size)) {
    if (account) account->Release(need);
    return ErrorCode::NO_AVAILABLE_HANDLE;
  }
  md.quota.AdoptCopyCharge(need);
  return ErrorCode::OK;
}

// CopyStart's checks after the object's and its task's, in Mooncake's order:
// the pending lease (validate_pending_for_copy_start), a dynamic copy's
// targets (none left to make: OBJECT_ALREADY_EXISTS), the source replica,
// then the charge and the buffers, reserved when everything else passed. A
// dynamic copy refused once its token checked out ends the key's lease.
std::optional<ErrorCode> EmbeddedMaster::copy_refused(size_t shard, ObjectId id, ObjectMetadata& md,
                                                      const CopyCall& call, const std::vector<uint32_t>& fresh,
                                                      Time now, ReplicaId* source) {
  if (auto err = validate_pending_for_copy_start(shard, id, call, md.put_start_time, now)) return err;
  auto refused = [&](ErrorCode err) {
    if (call.dynamic()) clear_dynamic_state(shard, id);
    return std::optional(err);
  };
  if (call.dynamic() && fresh.empty()) return refused(ErrorCode::OBJECT_ALREADY_EXISTS);
  if (call.dynamic())
    if (auto err = copy_targets_refused(call.targets)) return refused(*err);
  const Replica* from = md.replica_on(call.source);
  if (!from || from->kind != ReplicaKind::Memory || from->status != ReplicaStatus::Complete)
    return refused(ErrorCode::REPLICA_NOT_FOUND);
  *source = from->id;
  if (ErrorCode err = reserve_copy(id, md, fresh); err != ErrorCode::OK) return refused(err);
  return std::nullopt;
}

// CopyStart (rule copy.start): every check before anything changes; a
// PROCESSING target on each named segment that holds no replica of the
// object yet. The home shard is taken first, so no unmount runs between the
// targets' check and their allocation. A dynamic copy (the call carries a
// lease's token) consumes the key's pending lease and marks its target.
Outcome EmbeddedMaster::copy_start(const Op& op, Time now) {
  if (auto err = check_registered(op.object.tenant)) return Outcome::of(*err);
  ShardLock lock;
  const size_t shard = lock_home_shard(op.object, &lock);
  const CopyCall call = copy_call(op);
  if (!call.dynamic())
    if (auto err = copy_targets_refused(call.targets)) return Outcome::of(*err);
  ObjectMetadata* md = find_in(shard, op.object);
  if (!md) return Outcome::of(ErrorCode::OBJECT_NOT_FOUND);
  if (md->task) return Outcome::of(ErrorCode::OBJECT_HAS_REPLICATION_TASK);
  std::vector<uint32_t> fresh;  // targets without a replica of the object
  for (uint32_t s : call.targets)
    if (!md->replica_on(s)) fresh.push_back(s);
  ReplicaId source = 0;
  if (auto err = copy_refused(shard, op.object, *md, call, fresh, now, &source)) return Outcome::of(*err);
  md->task = CopyTask{call.client, source, now, static_cast<uint32_t>(fresh.size()), call.lease, call.epoch};
  std::vector<ReplicaId> made;
  {
    std::lock_guard alloc(alloc_mutex_);  // next_replica_id_
    for (uint32_t s : fresh) {
      made.push_back(next_replica_id_++);
      md->replicas.push_back({.id = made.back(), .segment = s, .kind = ReplicaKind::Memory, .copy = true});
    }
  }
  register_dynamic_start(shard, op.object, *md, made, now);
  return Outcome{};
}

// The owner's copy under way on the object (home shard held), or the
// refusal: the End or Revoke must send the token its start sent.
ObjectMetadata* EmbeddedMaster::copy_owned(ObjectId id, const CopyCall& call, size_t shard, ErrorCode* refused) {
  ObjectMetadata* md = find_in(shard, id);
  *refused = !md                                   ? ErrorCode::OBJECT_NOT_FOUND
             : !md->task                           ? ErrorCode::OBJECT_NO_REPLICATION_TASK
             : md->task->owner != call.client      ? ErrorCode::ILLEGAL_CLIENT
             : md->task->grant != call.lease || md->task->epoch != call.epoch ? ErrorCode::INVALID_VERSION
                                                   : ErrorCode::OK;
  return *refused == ErrorCode::OK ? md : nullptr;
}

// CopyEnd (rule copy.end): the targets left become the object's own COMPLETE
// replicas; a source lost meanwhile (its segment unmounted) fails the copy
// and its targets go; a target lost meanwhile fails it too, the others kept.
Outcome EmbeddedMaster::copy_end(const Op& op, Time now) {
  ShardLock lock;
  const size_t shard = lock_home_shard(op.object, &lock);
  ErrorCode refused = ErrorCode::OK;
  ObjectMetadata* md = copy_owned(op.object, copy_call(op), shard, &refused);
  if (!md) return Outcome::of(refused);
  const CopyTask task = *md->task;
  const bool source_left = std::any_of(md->replicas.begin(), md->replicas.end(), [&](const Replica& r) {
    return r.id == task.source && r.status == ReplicaStatus::Complete;
  });
  if (!source_left) {
    end_copy(shard, op.object, *md, false);
    return Outcome::of(ErrorCode::REPLICA_IS_GONE);
  }
  const auto left = std::count_if(md->replicas.begin(), md->replicas.end(), [](const Replica& r) { return r.copy; });
  end_copy(shard, op.object, *md, true);
  // F23: the copy's End treated as an activation point: the stored deadline
  // becomes now + the default soft-pin TTL (RFC 3028 Non-goals say it is none).
  if (faults_.f23_copy_end_rearms_soft_pin) {
    const Time rearmed = compute_deadline(now, config_.default_kv_soft_pin_ttl_ms, faults_.f6_deadline_wraps);
    apply_evaluation(op.object, shard, md->renew_to(rearmed));
  }
  return static_cast<uint32_t>(left) == task.targets ? Outcome{} : Outcome::of(ErrorCode::REPLICA_IS_GONE);
}

// CopyRevoke: the targets are freed at once.
Outcome EmbeddedMaster::copy_revoke(const Op& op) {
  ShardLock lock;
  const size_t shard = lock_home_shard(op.object, &lock);
  ErrorCode refused = ErrorCode::OK;
  ObjectMetadata* md = copy_owned(op.object, copy_call(op), shard, &refused);
  if (!md) return Outcome::of(refused);
  end_copy(shard, op.object, *md, false);
  return Outcome{};
}

// Ends the task: its targets become COMPLETE replicas of the object, their
// charge committed (`keep`), or are freed with their charge; the object goes
// when no replica is left (EraseMetadata). A dynamic target keeps its mark
// (MarkDynamicReplicasComplete); one freed is recorded as gone.
void EmbeddedMaster::end_copy(size_t shard, ObjectId id, ObjectMetadata& md, bool keep) {
  md.task.reset();
  clear_dynamic_state(shard, id);  // the key's lease ends with its copy
  if (keep) {
    for (Replica& r : md.replicas) {
      if (!r.copy) continue;
      r.copy = false;
      r.status = ReplicaStatus::Complete;
    }
    md.quota.CommitCopyCharge();
    return;
  }
  const auto first = partition_targets(md);
  release_copy_charge(id, md, static_cast<size_t>(md.replicas.end() - first));
  free_replicas(md, first);
  if (md.replicas.empty()) erase_object(shard, id);
}

// `targets` of the copy's targets went: their charge goes back.
void EmbeddedMaster::release_copy_charge(ObjectId id, ObjectMetadata& md, size_t targets) {
  const uint64_t bytes = std::min<uint64_t>(md.size * targets, md.quota.CopyBytes());
  if (TenantQuotaAccount* account = quotas_.FindAny(id.tenant); account && bytes != 0)
    md.quota.ReleaseCopy(*account, bytes);
}

// Rule copy.expiry, for one shard (every shard held, after its expired
// writes): a copy not ended within the release timeout of its start loses
// its targets, whose memory stays held until then, as an expired write's.
void EmbeddedMaster::discard_expired_copies(size_t shard, Time now) {
  for (ObjectId id : ids_in(shard)) {
    ObjectMetadata* md = find_in(shard, id);
    if (!md->task) continue;
    const Time expiry = saturating_deadline(md->task->start, config_.put_start_release_timeout_ms);
    if (expiry >= now) continue;
    md->task.reset();
    const auto first = partition_targets(*md);
    release_copy_charge(id, *md, static_cast<size_t>(md->replicas.end() - first));
    discard_replicas(*md, first, expiry);
    if (md->replicas.empty()) erase_object(shard, id);
  }
}

}  // namespace pinsim::embedded
