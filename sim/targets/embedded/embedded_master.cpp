// The embedded master's construction, op dispatch, View, key lookup and the
// shared state changes (object erase and creation, allocation, lease grants)
// that every path goes through so the gauge and the index stay exact.
#include "embedded_master.h"

#include <algorithm>

namespace pinsim::embedded {

namespace {
// RequestedMemoryQuotaCharge: what a write is charged until it settles, size
// x the memory replicas it asks for (placed or not); reserve() refuses one
// above TenantQuotaAccount::kMaxChargedBytes first.
uint64_t requested_memory_bytes(const Op& op) { return op.size * op.memory_replicas; }
}  // namespace

EmbeddedMaster::EmbeddedMaster(const Config& config, const Faults& faults)
    : config_(config), faults_(faults), quotas_(config), segment_used_(config.segments.size(), 0) {}

EmbeddedMaster::~EmbeddedMaster() {
  for (Shard& s : shards_) s.objects.clear();  // destructors settle the gauge
}

Outcome EmbeddedMaster::apply(const Op& op, Time now) {
  if (now < 0) return Outcome::of(ErrorCode::INVALID_PARAMS);
  Time last = last_now_.load();
  do {
    if (now < last) return Outcome::of(ErrorCode::INVALID_PARAMS);  // time never goes back
  } while (now != last && !last_now_.compare_exchange_weak(last, now));
  if (op.kind == OpKind::Snapshot || op.kind == OpKind::Restore) {
    std::unique_lock exclusive(snapshot_mutex_);
    return op.kind == OpKind::Snapshot ? snapshot() : restore(op, now);
  }
  std::shared_lock shared(snapshot_mutex_);
  switch (op.kind) {
    case OpKind::PutStart: return put_start(op, now);
    case OpKind::UpsertStart: return upsert_start(op, now);
    case OpKind::PutEnd:
    case OpKind::UpsertEnd: return end(op, now);
    case OpKind::PutRevoke:
    case OpKind::UpsertRevoke: return revoke(op, now);
    case OpKind::Get: return get(op, now);
    case OpKind::Exist: return exist(op, now);
    case OpKind::Remove: return remove(op, now);
    case OpKind::RemoveAll:
    case OpKind::RemoveByRegex: return remove_all(op, now);
    case OpKind::RetainGroups: return retain_groups(op, now);
    case OpKind::Evict: return evict(op, now);
    case OpKind::Cleanup: return cleanup(now);
    case OpKind::Advance: return Outcome{};
    case OpKind::BatchExist:
    case OpKind::BatchGet:
    case OpKind::BatchPutEnd:
    case OpKind::BatchPutRevoke:
    case OpKind::BatchUpsertStart:
    case OpKind::BatchUpsertEnd:
    case OpKind::BatchUpsertRevoke:
    case OpKind::BatchRemove: return batch(op, now);
    case OpKind::SetQuota: return set_quota(op);
    case OpKind::DeleteQuota: return delete_quota(op);
    case OpKind::Snapshot:
    case OpKind::Restore: break;
  }
  return Outcome::of(ErrorCode::INVALID_PARAMS);
}

// A batch op the way Mooncake's Batch* calls are built: the whole-batch
// size check, then a loop over the single-key paths (each takes its own
// shard lock; the batch is not one critical section). A batch start places
// with the preference fixed at its beginning (Model::batch).
Outcome EmbeddedMaster::batch(const Op& op, Time now) {
  Outcome out;
  if (!batch_well_formed(op)) {
    out.results.assign(op.keys.size(), KeyResult{ErrorCode::INVALID_PARAMS, {}, {}});
    return out;
  }
  const std::vector<uint64_t> preference = is_start(op.kind) ? placement_preference() : std::vector<uint64_t>{};
  for (size_t i = 0; i < op.keys.size(); ++i) {
    const Op e = batch_element(op, i);
    Outcome r;
    if (e.kind == OpKind::UpsertStart) r = upsert_start(e, now, &preference);
    else if (is_end(e.kind)) r = end(e, now);
    else if (is_revoke(e.kind)) r = revoke(e, now);
    else if (e.kind == OpKind::Get) r = get(e, now);
    else if (e.kind == OpKind::Exist) r = exist(e, now);
    else r = remove(e, now);
    out.results.push_back(r.as_key_result());
  }
  return out;
}

View EmbeddedMaster::view(Time now) const {
  std::shared_lock snapshot(snapshot_mutex_);
  std::vector<std::shared_lock<std::shared_mutex>> locks;
  locks.reserve(kShardCount);
  for (const Shard& s : shards_) locks.emplace_back(s.mutex);
  View v;
  for (const Shard& s : shards_) {
    for (const auto& [id, md] : s.objects) {
      ObjectView o;
      o.id = id;
      o.size = md->size;
      for (const Replica& r : md->replicas) {
        if (r.status == ReplicaStatus::Processing) ++o.processing;
        else if (r.kind == ReplicaKind::Memory) ++o.complete_memory;
        else ++o.complete_nof;
      }
      o.deadline = md->committed_deadline();
      if (md->pending) o.pending = PendingView{md->pending->action, md->pending->ttl_ms, md->viable_pending_replicas()};
      o.group = md->group;
      o.hard_pinned = md->hard_pinned;
      o.lease = md->lease;
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
  v.usage = quotas_.ListCharges();  // empty unless multi-tenant
  v.quotas = quotas_.ListQuotas();
  std::lock_guard lock(alloc_mutex_);
  for (size_t s = 0; s < config_.segments.size(); ++s)
    if (config_.segments[s].kind == ReplicaKind::Memory) v.memory_used.push_back(segment_used_[s]);
  v.cached = cached_objects(v.objects);
  return v;
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

size_t EmbeddedMaster::lock_home_shard(ObjectId id, ShardLock* lock) {
  for (;;) {
    const GroupId group = route_of(id);
    const size_t s = home_shard(id, group);
    ShardLock l(shards_[s].mutex);
    // A route is set before the insert and erased after the erase, both under
    // the home shard's lock, so an unchanged route means `s` is the home.
    if (route_of(id) == group) {
      *lock = std::move(l);
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

std::vector<ObjectId> EmbeddedMaster::all_ids_locked() const {
  std::vector<ObjectId> ids;
  for (const Shard& s : shards_)
    for (const auto& [id, md] : s.objects) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
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
void EmbeddedMaster::erase_object(size_t shard, ObjectId id) {
  Shard& s = shards_[shard];
  auto it = s.objects.find(id);
  ObjectMetadata& md = *it->second;
  const GroupId group = md.group;
  if (md.committed_deadline()) index_.remove(id);
  release_all_quota(id, md.quota);
  {
    std::lock_guard lock(alloc_mutex_);
    for (const Replica& r : md.replicas) segment_used_[r.segment] -= md.size;
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
  if (group != 0) erase_route(id);  // after the erase: see lock_home_shard
}

// A request's placement preference, fixed when it begins: most free space
// first, the lowest index on ties (preference_order).
std::vector<uint64_t> EmbeddedMaster::placement_preference() const {
  std::lock_guard lock(alloc_mutex_);
  return preference_order(config_.segments, segment_used_);
}

// Distinct segments of the right kind with room, in the request's
// preference order; memory-only writes are best effort, writes with NoF
// replicas strict except 1 memory + 1 NoF (HasExpectedReplicaAllocation).
bool EmbeddedMaster::allocate_locked(const Op& op, const std::vector<uint64_t>& preference,
                                     std::vector<Replica>* out) {
  std::vector<Replica> placed;
  auto place = [&](ReplicaKind kind, uint32_t count) {
    for (uint32_t n = 0; n < count; ++n) {
      int best = -1;
      uint64_t best_free = 0;
      for (size_t s = 0; s < config_.segments.size(); ++s) {
        const uint64_t free = config_.segments[s].capacity - segment_used_[s];
        const uint64_t score = preference[s];
        if (config_.segments[s].kind != kind || free < op.size || (best >= 0 && score <= best_free)) continue;
        if (std::any_of(placed.begin(), placed.end(), [&](const Replica& r) { return r.segment == s; })) continue;
        best = static_cast<int>(s);
        best_free = score;
      }
      if (best < 0) return;
      placed.push_back({0, kind, ReplicaStatus::Processing, static_cast<uint32_t>(best)});
    }
  };
  place(ReplicaKind::Memory, op.memory_replicas);
  const size_t memory_placed = placed.size();
  place(ReplicaKind::Nof, op.nof_replicas);
  const bool flexible_dual = op.memory_replicas == 1 && op.nof_replicas == 1;
  const bool ok = op.nof_replicas == 0 ? memory_placed > 0
                  : flexible_dual      ? !placed.empty()
                                       : placed.size() == op.memory_replicas + op.nof_replicas;
  if (!ok) return false;
  for (Replica& r : placed) {
    r.id = next_replica_id_++;
    segment_used_[r.segment] += op.size;
  }
  *out = std::move(placed);
  return true;
}

// ChargeTenantQuota, then placement: the tenant's account is charged
// size x requested memory replicas (the pending charge create_object's
// ledger adopts, kept until the write settles even where fewer replicas
// were placed); a placement failure refunds it (refund_pending_quota).
ErrorCode EmbeddedMaster::reserve(const Op& op, uint64_t released, std::vector<Replica>* out,
                                  StartRequest* request) {
  TenantQuotaAccount* account = quotas_.Find(op.object.tenant);
  const unsigned __int128 requested = static_cast<unsigned __int128>(op.size) * op.memory_replicas;
  if (account && requested > TenantQuotaAccount::kMaxChargedBytes) return ErrorCode::INVALID_PARAMS;
  const uint64_t need = account ? requested_memory_bytes(op) : 0;
  if (account && !account->TryCharge(need, released, &request->deficit)) return ErrorCode::TENANT_QUOTA_EXCEEDED;
  std::lock_guard lock(alloc_mutex_);
  if (allocate_locked(op, request->preference, out)) return ErrorCode::OK;
  if (account) account->Release(need);
  return ErrorCode::NO_AVAILABLE_HANDLE;
}

// A reservation that is not used after all: its space and every charge the
// new object's ledger would have adopted.
void EmbeddedMaster::unreserve(const Op& op, const std::vector<Replica>& replicas, TenantQuotaLedger& quota) {
  if (TenantQuotaAccount* account = quotas_.Find(op.object.tenant)) {
    account->Release(requested_memory_bytes(op));
    quota.ReleaseAll(*account);
  }
  std::lock_guard lock(alloc_mutex_);
  for (const Replica& r : replicas) segment_used_[r.segment] -= op.size;
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
  Pending p{req.action, req.ttl_ms, {}};
  for (const Replica& r : md->replicas) p.eligible.push_back(r.id);
  md->pending = std::move(p);
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

// Frees replicas now; the caller settles their charge with the ledger.
void EmbeddedMaster::free_replicas(ObjectMetadata& md, std::vector<Replica>::iterator from) {
  std::lock_guard lock(alloc_mutex_);
  for (auto r = from; r != md.replicas.end(); ++r) segment_used_[r->segment] -= md.size;
  md.replicas.erase(from, md.replicas.end());
}

// discarded_replicas_: the memory stays allocated until `release_at` and the
// next eviction pass (no longer charged once the caller settles).
void EmbeddedMaster::discard_replicas(ObjectMetadata& md, std::vector<Replica>::iterator from, Time release_at) {
  Discarded d{release_at, {from, md.replicas.end()}, md.size};
  md.replicas.erase(from, md.replicas.end());
  std::lock_guard lock(alloc_mutex_);
  if (!d.replicas.empty()) discarded_.push_back(std::move(d));
}

// ReleaseExpiredDiscardedReplicas: returns how many due entries held memory.
uint64_t EmbeddedMaster::release_discarded(Time now) {
  std::lock_guard lock(alloc_mutex_);
  uint64_t released = 0;
  std::erase_if(discarded_, [&](const Discarded& d) {
    if (d.release_at > now) return false;
    bool memory = false;
    for (const Replica& r : d.replicas) {
      segment_used_[r.segment] -= d.size;
      memory |= r.kind == ReplicaKind::Memory;
    }
    released += memory;
    return true;
  });
  return released;
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
