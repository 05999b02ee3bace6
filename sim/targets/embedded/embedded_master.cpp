// The embedded master's construction, op dispatch, View, key lookup and the
// shared state changes (object erase and creation, allocation, lease grants)
// that every path goes through so the gauge and the index stay exact.
#include "embedded_master.h"

#include <algorithm>
#include <set>

namespace pinsim::embedded {

namespace {
// RequestedMemoryQuotaCharge: what a write is charged until it settles, size
// x the memory replicas it asks for (placed or not); reserve() refuses one
// above TenantQuotaAccount::kMaxChargedBytes first.
uint64_t requested_memory_bytes(const Op& op) { return op.size * op.memory_replicas; }
}  // namespace

EmbeddedMaster::EmbeddedMaster(const Config& config, const Faults& faults)
    : config_(config), faults_(faults), quotas_(config), segments_(config.segments), dfs_(config.dfs_slots) {}

EmbeddedMaster::~EmbeddedMaster() {
  for (Shard& s : shards_) s.objects.clear();  // destructors settle the gauge
}

Outcome EmbeddedMaster::apply(const Op& op, Time now) {
  if (now < 0) return Outcome::of(ErrorCode::INVALID_PARAMS);
  Time last = last_now_.load();
  do {
    if (now < last) return Outcome::of(ErrorCode::INVALID_PARAMS);  // time never goes back
  } while (now != last && !last_now_.compare_exchange_weak(last, now));
  if (op.kind == OpKind::Snapshot || op.kind == OpKind::Restore || op.kind == OpKind::Failover) {
    if (!supports(op)) return Outcome::of(ErrorCode::UNSUPPORTED);  // none with the local-disk tier
    std::unique_lock exclusive(snapshot_mutex_);
    if (op.kind == OpKind::Failover) return failover(now);
    return op.kind == OpKind::Snapshot ? snapshot() : restore(op, now);
  }
  std::shared_lock shared(snapshot_mutex_);
  switch (op.kind) {
    // write_path.cpp
    case OpKind::PutStart: return put_start(op, now);
    case OpKind::PutEnd: return end(op, now);
    case OpKind::PutRevoke: return revoke(op, now);
    case OpKind::UpsertStart: return upsert_start(op, now);
    case OpKind::UpsertEnd: return end(op, now);
    case OpKind::UpsertRevoke: return revoke(op, now);
    // read_path.cpp
    case OpKind::Get: return get(op, now);
    case OpKind::Exist: return exist(op, now);
    case OpKind::Remove: return remove(op, now);
    case OpKind::RemoveAll: return remove_all(op, now);
    case OpKind::RemoveByRegex: return remove_all(op, now);
    // The batch calls: a loop over the single-key paths above.
    case OpKind::BatchUpsertStart: return batch(op, now);
    case OpKind::BatchPutEnd: return batch(op, now);
    case OpKind::BatchUpsertEnd: return batch(op, now);
    case OpKind::BatchPutRevoke: return batch(op, now);
    case OpKind::BatchUpsertRevoke: return batch(op, now);
    case OpKind::BatchGet: return batch(op, now);
    case OpKind::BatchExist: return batch(op, now);
    case OpKind::BatchRemove: return batch(op, now);
    // The background threads and the admin calls.
    case OpKind::Evict: return evict(op, now);
    case OpKind::Cleanup: return cleanup(now);
    case OpKind::RetainGroups: return retain_groups(op, now);
    case OpKind::SetQuota: return set_quota(op);
    case OpKind::DeleteQuota: return delete_quota(op);
    // segments.cpp: a client's segment leaving or joining.
    case OpKind::Unmount: return unmount(op);
    case OpKind::Mount: return mount(op);
    case OpKind::GracefulUnmount: return graceful_unmount(op);
    // replication.cpp: a replication task (a copy of a replica).
    case OpKind::CopyStart: return copy_start(op, now);
    case OpKind::CopyEnd: return copy_end(op, now);
    case OpKind::CopyRevoke: return copy_revoke(op);
    // dynamic_replication.cpp: a proposal for a hot key.
    case OpKind::Propose: return propose(op, now);
    // local_disk.cpp: the local-disk tier's holder (rules local.*).
    case OpKind::OffloadTake: return offload_take();
    case OpKind::OffloadEnd: return offload_end(op);
    case OpKind::PromotionStart: return promotion_start(op, now);
    case OpKind::PromotionEnd: return promotion_end(op);
    case OpKind::Advance: return Outcome{};
    case OpKind::Snapshot:
    case OpKind::Restore:
    case OpKind::Failover: break;  // taken above, under the exclusive lock
  }
  return Outcome::of(ErrorCode::INVALID_PARAMS);
}

// A batch op the way Mooncake's Batch* calls are built: the whole-batch
// size check, then a loop over the single-key paths (each takes its own
// shard lock; the batch is not one critical section). The batch's starts
// share one ReplicateConfig, so its preferred segments are fixed when the
// batch begins (ReplicateConfig::ForSingleKey copies them to every key).
Outcome EmbeddedMaster::batch(const Op& op, Time now) {
  Outcome out;
  if (!batch_well_formed(op)) {
    out.results.assign(op.keys.size(), KeyResult{ErrorCode::INVALID_PARAMS, {}, {}});
    return out;
  }
  const PreferredSegments preferred = is_start(op.kind) ? preferred_segments() : PreferredSegments{};
  std::set<ObjectId> seen;  // a batch_get's keys counted as heat already
  // batch_element(op, i) for each i, built once and moved along (move_element).
  Op e = op.keys.empty() ? op : batch_element(op, 0);
  for (size_t i = 0; i < op.keys.size(); ++i) {
    move_element(&e, op, i);
    Outcome r;
    if (e.kind == OpKind::UpsertStart) r = upsert_start(e, now, &preferred);
    else if (is_end(e.kind)) r = end(e, now);
    else if (is_revoke(e.kind)) r = revoke(e, now);
    else if (e.kind == OpKind::Get) r = get(e, now, &seen);
    else if (e.kind == OpKind::Exist) r = exist(e, now);
    else r = remove(e, now);
    out.results.push_back(r.as_key_result());
  }
  return out;
}

// Every call holds the snapshot mutex, shared (exclusive: snapshot and
// restore), for all it does, so holding it exclusively excludes them all: one
// lock where a shared one took every shard's too (a third of a sequential
// step's instructions went to those 32 shard locks).
View EmbeddedMaster::view(Time now) const {
  View v;
  view_into(now, &v);
  return v;
}

void EmbeddedMaster::view_into(Time now, View* out) const {
  std::unique_lock exclusive(snapshot_mutex_);
  out->clear_keeping_buffers();
  View& v = *out;
  for (const Shard& s : shards_) {
    for (const auto& [id, md] : s.objects) {
      ObjectView o;
      o.id = id;
      o.size = md->size;
      for (const Replica& r : md->replicas) {
        if (r.status == ReplicaStatus::Processing) ++o.processing;
        else if (r.kind == ReplicaKind::Memory) ++o.complete_memory;
        else if (r.kind == ReplicaKind::Nof) ++o.complete_nof;
        else if (r.kind == ReplicaKind::Dfs) ++o.complete_dfs;
        else if (r.kind == ReplicaKind::LocalDisk) ++o.complete_local;
        else ++o.complete_disk;
      }
      o.deadline = md->committed_deadline();
      if (md->pending) o.pending = PendingView{md->pending->action, md->pending->ttl_ms, md->viable_pending_replicas()};
      o.group = md->group;
      o.hard_pinned = md->hard_pinned;
      o.lease = md->lease;
      o.copying = md->task.has_value();
      o.offloading = md->offload.has_value();
      o.promoting = md->promotion.has_value();
      v.objects.push_back(o);
    }
    for (const auto& [g, deadline] : s.retention) {
      ++v.retention_entries;
      if (deadline > now) v.retention.push_back({g.first, g.second, deadline});
    }
  }
  std::sort(v.objects.begin(), v.objects.end(), [](const ObjectView& a, const ObjectView& b) { return a.id < b.id; });
  std::sort(v.retention.begin(), v.retention.end(), [](const RetentionView& a, const RetentionView& b) {
    return std::tie(a.tenant, a.group) < std::tie(b.tenant, b.group);
  });
  v.gauge = gauge_.value();
  v.retained_group_count = retained_group_count_.load();
  quotas_.ListCharges(&v.usage);  // empty unless multi-tenant
  quotas_.ListQuotas(&v.quotas);
  std::lock_guard lock(alloc_mutex_);
  segments_.memory_used(&v.memory_used);
  segments_.mount_states(&v.mounted);
  v.cached = cached_objects(v.objects);
  segment_metrics(config_.segments, &v);
  v.memory_hit_bytes = memory_hit_bytes_.load();
  v.disk_hit_bytes = disk_hit_bytes_.load();
  v.memory_hits = memory_hits_.load();
  v.disk_hits = disk_hits_.load();
  v.reads_served = reads_served_.load();
  v.quota_rejections = quota_rejections_.load();
  v.placement_failures = placement_failures_.load();
  v.partial_placements = partial_placements_.load();
  v.dfs_slots_used = dfs_.records();  // the allocator's records, not a count of replicas
}

std::optional<Placement> EmbeddedMaster::placement() const {
  std::unique_lock exclusive(snapshot_mutex_);  // as view()
  Placement p;
  for (const Shard& s : shards_)
    for (const auto& [id, md] : s.objects) p.objects.push_back({id, placement_of(md->replicas, md->pending)});
  std::lock_guard lock(alloc_mutex_);
  for (const Discarded& d : discarded_) p.discarded.push_back({d.release_at, d.size, placement_of(d.replicas, {})});
  sort_placement(&p);
  return p;
}

size_t EmbeddedMaster::stored_deadlines() const {
  size_t n = 0;
  for (const Shard& s : shards_) {
    std::shared_lock lock(s.mutex);
    for (const auto& [id, md] : s.objects) n += md->committed_deadline().has_value();
  }
  return n;
}

// ---- lookup ----

GroupId EmbeddedMaster::route_of(ObjectId id) const {
  std::lock_guard lock(route_mutex_);
  auto it = routes_.find(id);
  return it == routes_.end() ? 0 : it->second;
}

void EmbeddedMaster::set_route(ObjectId id, GroupId group) {
  std::lock_guard lock(route_mutex_);
  routes_[id] = group;
}

void EmbeddedMaster::erase_route(ObjectId id) {
  std::lock_guard lock(route_mutex_);
  routes_.erase(id);
}

bool EmbeddedMaster::reroute(ObjectId id, GroupId old_group, GroupId group) {
  if (old_group == 0) return false;  // no route to lose: a lookup finds the old home, held, and retries
  if (group != 0) set_route(id, group);
  else erase_route(id);
  return true;
}

size_t EmbeddedMaster::lock_home_shard(ObjectId id, ShardLock* lock) {
  for (;;) {
    const GroupId group = route_of(id);
    const size_t s = home_shard(id, group);
    ShardLock l(shards_[s].mutex);
    // A route is set before the insert and erased after the erase, both under
    // the home shard's lock (a replacement sets the new one before the erase,
    // holding both homes: reroute), so an unchanged route means `s` is the home.
    if (route_of(id) == group) {
      *lock = std::move(l);
      return s;
    }
  }
}

size_t EmbeddedMaster::lock_home_shard_and(ObjectId id, size_t other, ShardLock* lock, ShardLock* second) {
  for (;;) {
    const GroupId group = route_of(id);
    const size_t s = home_shard(id, group);
    if (s == other) return lock_home_shard(id, lock);
    ShardLock low(shards_[std::min(s, other)].mutex), high(shards_[std::max(s, other)].mutex);
    if (route_of(id) == group) {  // as in lock_home_shard
      *lock = std::move(s < other ? low : high);
      *second = std::move(s < other ? high : low);
      return s;
    }
  }
}

ObjectMetadata* EmbeddedMaster::find_in(size_t shard, ObjectId id) {
  auto it = shards_[shard].objects.find(id);
  return it == shards_[shard].objects.end() ? nullptr : it->second.get();
}

EmbeddedMaster::AllShards EmbeddedMaster::lock_all_shards() {
  AllShards all;
  all.locks.reserve(kShardCount);
  for (Shard& s : shards_) all.locks.emplace_back(s.mutex);
  return all;
}

ObjectMetadata* EmbeddedMaster::find_locked(ObjectId id, size_t* shard) {
  const size_t s = home_shard(id, route_of(id));
  if (shard) *shard = s;
  return find_in(s, id);
}

std::vector<ObjectId> EmbeddedMaster::ids_in(size_t shard) const {
  std::vector<ObjectId> ids;
  for (const auto& [id, md] : shards_[shard].objects) ids.push_back(id);
  return ids;
}

// ---- shared state changes ----

// ApplySoftPinEvaluation: runs after the object lock is released, under the
// shard lock (shard -> index is the lock order).
void EmbeddedMaster::apply_evaluation(ObjectId id, size_t shard, const SoftPinEvaluation& eval) {
  if (eval.deadline_to_index) index_.upsert(id, shard, *eval.deadline_to_index);
  else if (eval.removed_deadline) index_.remove_if_matches(id, shard, *eval.removed_deadline);
  gauge_.add(eval.delta);
}

// EraseMetadata: the registration goes by key, the destructor owns the -1,
// the ledger gives back the whole charge (ReleaseAll).
void EmbeddedMaster::erase_object(size_t shard, ObjectId id, bool keep_route) {
  Shard& s = shards_[shard];
  auto it = s.objects.find(id);
  ObjectMetadata& md = *it->second;
  const GroupId group = md.group;
  if (md.committed_deadline()) index_.remove(id);
  clear_dynamic_state(shard, id);
  if (md.offload) holder_.drop(id, md.offload->id);  // a queued offload goes with the object
  release_all_quota(id, md.quota);
  {
    std::lock_guard lock(alloc_mutex_);
    for (const Replica& r : md.replicas) segments_.release(r.segment, md.size);
    free_dfs_locked(md.replicas.begin(), md.replicas.end());
  }
  if (group != 0) {  // UnregisterGroupMember
    const GroupKey g{id.tenant, group};
    auto members = s.group_members.find(g);
    if (members != s.group_members.end()) {
      members->second.erase(id.key);
      if (members->second.empty()) {
        s.group_members.erase(members);
        s.dirty_groups.erase(g);
      }
    }
  }
  s.objects.erase(it);
  if (group != 0 && !keep_route) erase_route(id);  // after the erase: see lock_home_shard
}

// The preferred segments a request's ReplicateConfig carries, taken when
// the request begins (SegmentAllocators::most_free_first).
PreferredSegments EmbeddedMaster::preferred_segments() const {
  std::lock_guard lock(alloc_mutex_);
  return segments_.most_free_first();
}

namespace {
// HasExpectedReplicaAllocation: memory-only writes are best effort (one
// replica is enough); 1 memory + 1 NoF (FLEXIBLE_DUAL_REPLICA) needs either
// side; any other write with NoF replicas, or asking for DFS
// (RELIABLE_MULTI_REPLICA), needs every replica it asked for.
bool has_expected_allocation(const Op& op, size_t memory, size_t nof) {
  if (op.nof_replicas == 0 && op.dfs_replicas == 0) return memory > 0;
  if (op.dfs_replicas == 0 && op.memory_replicas == 1 && op.nof_replicas == 1) return memory + nof > 0;
  return memory == op.memory_replicas && nof == op.nof_replicas;
}
}  // namespace

// PutStart's allocation: memory replicas from the memory segments' manager,
// then NoF replicas from the NoF manager, each walking its preferred list,
// then (dfs.cpp) a DFS slot; buffers of a refused allocation go back
// (Mooncake's AllocatedBuffers free themselves when the replicas are
// dropped). A refusal for want of a DFS slot is no placement failure: the
// metric counts the segments' only.
ErrorCode EmbeddedMaster::allocate_locked(const Op& op, const PreferredSegments& preferred,
                                          const std::vector<ReplicaId>& dfs_freed, std::vector<Replica>* out) {
  const std::vector<uint32_t> memory = segments_.allocate(ReplicaKind::Memory, op.size, op.memory_replicas,
                                                          preferred.memory);
  const std::vector<uint32_t> nof = segments_.allocate(ReplicaKind::Nof, op.size, op.nof_replicas, preferred.nof);
  auto give_back = [&] {
    for (uint32_t s : memory) segments_.release(s, op.size);
    for (uint32_t s : nof) segments_.release(s, op.size);
  };
  if (!has_expected_allocation(op, memory.size(), nof.size())) {
    give_back();
    placement_failures_.fetch_add(1);
    return ErrorCode::NO_AVAILABLE_HANDLE;
  }
  if (memory.size() < op.memory_replicas || nof.size() < op.nof_replicas) partial_placements_.fetch_add(1);
  out->clear();
  for (uint32_t s : memory) out->push_back({.id = next_replica_id_++, .segment = s, .kind = ReplicaKind::Memory});
  for (uint32_t s : nof) out->push_back({.id = next_replica_id_++, .segment = s, .kind = ReplicaKind::Nof});
  // Disk mode (root_fs_dir): the file's replica, in no segment, PROCESSING
  // until the client's storage backend reports it written.
  if (config_.disk_replica)
    out->push_back({.id = next_replica_id_++, .segment = kNoSegment, .kind = ReplicaKind::Disk});
  if (!allocate_dfs_locked(op, dfs_freed, out)) {
    give_back();
    out->clear();
    return ErrorCode::NO_AVAILABLE_HANDLE;
  }
  return ErrorCode::OK;
}

// ChargeTenantQuota, then placement: the tenant's account is charged
// size x requested memory replicas (the pending charge create_object's
// ledger adopts, kept until the write settles even where fewer replicas
// were placed); a placement failure refunds it (refund_pending_quota).
ErrorCode EmbeddedMaster::reserve(const Op& op, uint64_t released, std::vector<Replica>* out,
                                  StartRequest* request, const std::vector<ReplicaId>& dfs_freed) {
  TenantQuotaAccount* account = quotas_.Find(op.object.tenant);
  const unsigned __int128 requested = static_cast<unsigned __int128>(op.size) * op.memory_replicas;
  if (account && requested > TenantQuotaAccount::kMaxChargedBytes) return ErrorCode::INVALID_PARAMS;
  const uint64_t need = account ? requested_memory_bytes(op) : 0;
  if (account && !account->TryCharge(need, released, &request->deficit)) return ErrorCode::TENANT_QUOTA_EXCEEDED;
  std::lock_guard lock(alloc_mutex_);
  const ErrorCode err = allocate_locked(op, request->preferred, dfs_freed, out);
  if (err != ErrorCode::OK && account) account->Release(need);
  return err;
}

// A reservation that is not used after all: its space and every charge the
// new object's ledger would have adopted.
void EmbeddedMaster::unreserve(const Op& op, const std::vector<Replica>& replicas, TenantQuotaLedger& quota) {
  if (TenantQuotaAccount* account = quotas_.Find(op.object.tenant)) {
    account->Release(requested_memory_bytes(op));
    quota.ReleaseAll(*account);
  }
  std::lock_guard lock(alloc_mutex_);
  for (const Replica& r : replicas) segments_.release(r.segment, op.size);
  free_dfs_locked(replicas.begin(), replicas.end());
}

// AllocateAndInsertMetadata's insert, with `shard` (the home for `group`)
// write-locked and the replicas already reserved.
ErrorCode EmbeddedMaster::create_object(const Op& op, size_t shard, Inherited from, const Resolved& req,
                                        std::vector<Replica> replicas, Time now) {
  const ObjectId id = op.object;
  const GroupId group = from.group;
  Shard& s = shards_[shard];
  if (s.objects.count(id)) {  // raced in on another path
    unreserve(op, replicas, from.quota);
    return ErrorCode::OBJECT_ALREADY_EXISTS;
  }
  auto md = std::make_unique<ObjectMetadata>(gauge_, from.deadline, faults_.f3_gauge_double_decrement);
  md->client = op.client;
  md->size = op.size;
  md->replicas = std::move(replicas);
  md->put_start_time = now;
  md->group = group;
  md->hard_pinned = from.hard_pinned;
  md->processing = true;
  md->quota = from.quota;  // Case C: the replaced object's charge
  if (quotas_.Find(id.tenant)) md->quota.AdoptPendingCharge(requested_memory_bytes(op));
  ReplicaIds eligible;
  for (const Replica& r : md->replicas) eligible.push_back(r.id);
  md->begin_soft_pin_action(req.action, req.ttl_ms, std::move(eligible));
  ObjectMetadata& stored = *md;
  if (group != 0) set_route(id, group);  // before the insert: see lock_home_shard
  s.objects.emplace(id, std::move(md));
  if (from.deadline) index_.upsert(id, shard, *from.deadline);
  if (group != 0) {  // RegisterGroupMember
    const GroupKey g{id.tenant, group};
    s.group_members[g].insert(id.key);
    s.dirty_groups.insert(g);
    inherit_retention(s, id, stored, now);
  }
  return ErrorCode::OK;
}

// Frees replicas now; the caller settles their charge with the ledger. A
// dynamic replica among them is recorded as gone, as Mooncake's
// EraseReplicasWithCacheTotalAccounting does (so is one discarded below).
void EmbeddedMaster::free_replicas(ObjectMetadata& md, std::vector<Replica>::iterator from) {
  // F26: the freed replicas' dynamic marks are dropped unrecorded (the
  // removal is not RecordDynamicReplicaRemoval's): no recreate cooldown.
  if (faults_.f26_freed_dynamic_replica_no_cooldown) md.forget_dynamic_replicas(from, md.replicas.end());
  record_dynamic_removal(md, from);
  std::lock_guard lock(alloc_mutex_);
  for (auto r = from; r != md.replicas.end(); ++r) segments_.release(r->segment, md.size);
  free_dfs_locked(from, md.replicas.end());
  md.replicas.erase(from, md.replicas.end());
}

// discarded_replicas_: the memory stays allocated until `release_at` and the
// next eviction pass (no longer charged once the caller settles); a DFS
// replica's slot is freed first (FreeDfsReplicas), the replica kept with them.
void EmbeddedMaster::discard_replicas(ObjectMetadata& md, std::vector<Replica>::iterator from, Time release_at,
                                      bool free_dfs) {
  record_dynamic_removal(md, from);
  Discarded d{release_at, {from, md.replicas.end()}, md.size};
  md.replicas.erase(from, md.replicas.end());
  std::lock_guard lock(alloc_mutex_);
  if (free_dfs) free_dfs_locked(d.replicas.begin(), d.replicas.end());
  if (!d.replicas.empty()) discarded_.push_back(std::move(d));
}

// ReleaseExpiredDiscardedReplicas: due entries give their buffers back;
// returns how many of them held memory (DiscardedReplicas::memSize() > 0).
uint64_t EmbeddedMaster::release_discarded(Time now) {
  std::lock_guard lock(alloc_mutex_);
  const auto due = std::stable_partition(discarded_.begin(), discarded_.end(),
                                         [now](const Discarded& d) { return d.release_at > now; });
  uint64_t with_memory = 0;
  for (auto d = due; d != discarded_.end(); ++d) {
    with_memory += std::any_of(d->replicas.begin(), d->replicas.end(),
                               [](const Replica& r) { return r.kind == ReplicaKind::Memory; });
    for (const Replica& r : d->replicas) segments_.release(r.segment, d->size);
  }
  discarded_.erase(due, discarded_.end());
  return with_memory;
}

// A read lease grant: lease = max(lease, `lease`).
void EmbeddedMaster::grant_lease(ObjectId id, size_t shard, ObjectMetadata& md, Time lease, Time now) {
  md.lease = std::max(md.lease, lease);
  // F1: the pre-#2909 GrantLease(ttl, soft_ttl) also renews a stored soft
  // pin to max(D, now + default soft-pin TTL), reactivating an expired one.
  if (faults_.f1_reads_renew_soft_pin) {
    const std::optional<Time> d = md.committed_deadline();
    const Time renewed = compute_deadline(now, config_.default_kv_soft_pin_ttl_ms, faults_.f6_deadline_wraps);
    if (d && renewed > *d) apply_evaluation(id, shard, md.renew_to(renewed));
  }
}

}  // namespace pinsim::embedded
