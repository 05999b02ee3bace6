// Model construction, the apply() dispatcher, the View, and the shared state
// changes (deadline set, object erase, allocation) that keep the gauge exact.
#include "model.h"

namespace pinsim {

std::variant<Model, std::string> Model::create(const Config& config) {
  if (auto reason = validate(config)) return *reason;
  return Model(config);
}

Model::Model(const Config& config)
    : config_(config), segment_used_(config.segments.size(), 0), segments_(config.segments.size()) {
  hits_.hit(Rule::ConfigC1);
  init_quotas();
}

Outcome Model::apply(const Op& op, Time now) {
  if (now < last_now_ || now < 0) return Outcome::of(ErrorCode::INVALID_PARAMS);
  last_now_ = now;
  const bool preset = !next_preference_.empty() && (op.kind == OpKind::PutStart || op.kind == OpKind::UpsertStart);
  if (preset) batch_preference_ = std::move(next_preference_);
  batch_seen_.clear();
  Outcome out = dispatch(op, now);
  if (preset) batch_preference_.clear();
  scan_first_.clear();  // a runner's scan order and preference hold for one op
  next_preference_.clear();
  return out;
}

Outcome Model::dispatch(const Op& op, Time now) {
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
    case OpKind::Snapshot: return snapshot();
    case OpKind::Restore: return restore(op, now);
    case OpKind::Failover: return failover(now);
    case OpKind::Advance:
      if (config_.oplog_lag) catch_up_log();  // time passes: the log's writer drains (rule log.catch-up)
      return Outcome{};
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
    case OpKind::Unmount: return unmount(op);
    case OpKind::Mount: return mount(op);
    case OpKind::GracefulUnmount: return graceful_unmount(op);
    case OpKind::CopyStart: return copy_start(op, now);
    case OpKind::CopyEnd: return copy_end(op);
    case OpKind::CopyRevoke: return copy_revoke(op);
    case OpKind::Propose: return propose(op, now);
    case OpKind::OffloadTake: return offload_take();
    case OpKind::OffloadEnd: return offload_end(op);
    case OpKind::PromotionStart: return promotion_start(op, now);
    case OpKind::PromotionEnd: return promotion_end(op);
  }
  return Outcome::of(ErrorCode::INVALID_PARAMS);  // unknown op value
}

// A batch op (Mooncake's Batch* calls): the whole-batch validation the call
// states (BatchUpsertStart: sizes must pair with keys, else every element is
// INVALID_PARAMS and nothing changes), then the single-key op on each key in
// call order, so a duplicate key sees the earlier element's effect. Each
// element is exactly the single op, as atomic as it (a refused element
// changes nothing, P13); the call itself answers OK with one result per key.
//
// A batch's starts share one ReplicateConfig (ReplicateConfig::ForSingleKey
// copies it to every key), so its placement preference is fixed when the
// batch begins: most free space then, lowest index on ties, and each element
// takes the first preferred segment with room. Placement is not a lifecycle
// rule; this only keeps NO_AVAILABLE_HANDLE where Mooncake's own batch path
// puts it.
Outcome Model::batch(const Op& op, Time now) {
  Outcome out;
  const bool well_formed = batch_well_formed(op);
  if (is_start(op.kind)) batch_preference_ = preference_order(config_.segments, segment_used_);
  out.results.reserve(op.keys.size());
  // batch_element(op, i) for each i, built once and moved along (move_element).
  Op element = op.keys.empty() ? op : batch_element(op, 0);
  for (size_t i = 0; i < op.keys.size(); ++i) {
    move_element(&element, op, i);
    out.results.push_back(well_formed ? dispatch(element, now).as_key_result()
                                      : KeyResult{ErrorCode::INVALID_PARAMS, {}, {}});
  }
  batch_preference_.clear();
  return out;
}

// The gauge counts stored deadlines, Active or stale (RFC 3028 Metrics):
// +1 Disabled->Active, -1 Active->Disabled, 0 otherwise.
void Model::set_deadline(ObjectId id, Object& obj, std::optional<Time> d) {
  if (obj.deadline == d) return;
  if (obj.deadline.has_value() != d.has_value()) {
    gauge_ += d ? 1 : -1;
    hits_.hit(Rule::Gauge);
  }
  if (obj.deadline) deadlines_.erase({*obj.deadline, id});
  if (d) deadlines_.insert({*d, id});
  obj.deadline = d;
}

void Model::release_replica(const Replica& r, uint64_t size) {
  if (r.segment != kNoSegment) segment_used_[r.segment] -= size;
}

void Model::hold_replica(const Replica& r, uint64_t size) {
  if (r.segment != kNoSegment) segment_used_[r.segment] += size;
}

void Model::free_replicas(ObjectId, Object& obj, Replicas::iterator from) {
  note_replicas_gone(obj, from);
  for (auto r = from; r != obj.replicas.end(); ++r) release_replica(*r, obj.size);
  obj.replicas.erase(from, obj.replicas.end());
}

void Model::discard_replicas(ObjectId, Object& obj, Replicas::iterator from,
                             Time release_at) {
  note_replicas_gone(obj, from);
  Discarded d{release_at, {from, obj.replicas.end()}, obj.size};
  obj.replicas.erase(from, obj.replicas.end());
  if (!d.replicas.empty()) discarded_.push_back(std::move(d));
}

uint64_t Model::release_discarded(Time now) {
  uint64_t released = 0;
  std::erase_if(discarded_, [&](const Discarded& d) {
    if (d.release_at > now) return false;
    bool memory = false;
    for (const Replica& r : d.replicas) {
      release_replica(r, d.size);
      memory |= r.kind == ReplicaKind::Memory;
    }
    released += memory;
    return true;
  });
  return released;
}

void Model::erase_object(ObjectTable::Entry* it) {
  Object& obj = it->second;
  set_deadline(it->first, obj, std::nullopt);  // the destructor owns the -1
  clear_dynamic_state(it->first);
  for (const Replica& r : obj.replicas) release_replica(r, obj.size);
  if (obj.group != 0) {
    const GroupKey g{it->first.tenant, obj.group};
    auto members = group_members_.find(g);
    if (members != group_members_.end()) {
      members->second.erase(it->first.key);
      if (members->second.empty()) {
        group_members_.erase(members);
        groups_needing_refresh_.erase(g);
      }
    }
  }
  objects_.erase(it);
}

// Places each requested replica on a distinct segment of its kind with room,
// preferring the most free space, then the lowest index (deterministic;
// Mooncake picks at random, so the choice is not part of what is compared).
// Memory-only writes are best effort, as Mooncake's HasExpectedReplicaAllocation
// is: fewer memory replicas than requested is success while at least one fits.
// A write that asks for NoF replicas needs every replica placed, except the
// 1 memory + 1 NoF (FLEXIBLE_DUAL_REPLICA) shape, where either side suffices.
std::optional<Replicas> Model::plan_placement(const Op& op) const {
  Replicas placed;
  placed.reserve(std::min<size_t>(config_.segments.size(), size_t{op.memory_replicas} + op.nof_replicas));
  auto place = [&](ReplicaKind kind, uint32_t count) {
    for (uint32_t n = 0; n < count; ++n) {
      int best = -1;
      uint64_t best_free = 0;
      for (size_t s = 0; s < config_.segments.size(); ++s) {
        const SegmentConfig& seg = config_.segments[s];
        const uint64_t free = seg.capacity - segment_used_[s];
        const uint64_t score = batch_preference_.empty() ? free : batch_preference_[s];
        if (seg.kind != kind || !takes_replicas(s) || free < op.size || (best >= 0 && score <= best_free)) continue;
        if (std::any_of(placed.begin(), placed.end(), [&](const Replica& r) { return r.segment == s; }))
          continue;
        best = static_cast<int>(s);
        best_free = score;
      }
      if (best < 0) return;
      placed.push_back({.segment = static_cast<uint32_t>(best), .kind = kind});  // PROCESSING, no id yet
    }
  };
  place(ReplicaKind::Memory, op.memory_replicas);
  const size_t memory_placed = placed.size();
  place(ReplicaKind::Nof, op.nof_replicas);
  // Mooncake's HasExpectedReplicaAllocation: 1 memory + 1 NoF is FLEXIBLE_DUAL_REPLICA, where either side alone is
  // enough; any other write with NoF replicas needs every replica placed.
  // A write with a DFS replica is RELIABLE_MULTI_REPLICA: every replica it asks for (rule dfs.slot).
  const bool flexible_dual = op.memory_replicas == 1 && op.nof_replicas == 1 && op.dfs_replicas == 0;
  const bool ok = op.nof_replicas == 0 && op.dfs_replicas == 0 ? memory_placed > 0
                  : flexible_dual      ? !placed.empty()
                                       : placed.size() == op.memory_replicas + op.nof_replicas;
  if (!ok) return std::nullopt;
  // Disk mode: the storage backend's file, after the segments' replicas
  // (AllocateAndInsertMetadata), PROCESSING until an End names it.
  if (config_.disk_replica) placed.push_back({.segment = kNoSegment, .kind = ReplicaKind::Disk});  // PROCESSING, no id
  return placed;
}

namespace {

ObjectView view_of(ObjectId id, const Object& o) {
  ObjectView v;
  v.id = id;
  v.size = o.size;
  for (const Replica& r : o.replicas) {
    if (r.status == ReplicaStatus::Processing) ++v.processing;
    else if (r.kind == ReplicaKind::Memory) ++v.complete_memory;
    else if (r.kind == ReplicaKind::Nof) ++v.complete_nof;
    else if (r.kind == ReplicaKind::Dfs) ++v.complete_dfs;
    else if (r.kind == ReplicaKind::LocalDisk) ++v.complete_local;
    else ++v.complete_disk;
  }
  v.deadline = o.deadline;
  if (o.pending) {
    PendingView p{o.pending->action, o.pending->ttl_ms, 0};
    for (const Replica& r : o.replicas)
      if (r.status == ReplicaStatus::Processing && o.pending->is_eligible(r.id)) ++p.viable;
    v.pending = p;
  }
  v.group = o.group;
  v.hard_pinned = o.hard_pinned;
  v.lease = o.lease;
  v.copying = o.task.has_value();
  v.offloading = o.offload.has_value();
  v.promoting = o.promotion.has_value();
  return v;
}

}  // namespace

std::optional<ObjectView> Model::object_view(ObjectId id) const {
  auto it = find_object(id);
  if (!it) return std::nullopt;
  return view_of(id, it->second);
}

View Model::view(Time now) const {
  View v;
  view(now, &v);
  return v;
}

void Model::view(Time now, View* out) const {
  View& v = *out;
  v.objects.clear();
  v.objects.reserve(objects_.size());
  uint64_t dfs = 0;  // the DFS slots held (rule dfs.slot), counted on the same walk
  for (const auto& [id, obj] : objects_) {
    v.objects.push_back(view_of(id, obj));
    dfs += obj.count(ReplicaKind::Dfs);
  }
  v.gauge = gauge_;
  v.retention.clear();
  for (const auto& [g, deadline] : retention_)
    if (deadline > now) v.retention.push_back({g.first, g.second, deadline});
  v.retained_group_count = retained_group_count_;
  v.retention_entries = retention_.size();
  v.usage.clear();
  if (config_.multi_tenant) v.usage = tenant_usage();
  v.quotas.clear();
  for (const auto& [t, q] : effective_quota_) v.quotas.push_back({t, q});
  v.memory_used.clear();
  v.mounted.clear();
  for (size_t s = 0; s < config_.segments.size(); ++s) {
    if (config_.segments[s].kind != ReplicaKind::Memory) continue;
    v.memory_used.push_back(segment_used_[s]);
    v.mounted.push_back(!segments_[s].mounted ? kUnmounted : segments_[s].leaving ? kLeaving : kMounted);
  }
  retiring_view(&v);
  v.cached = cached_with_retiring(v);
  segment_metrics(config_.segments, &v);
  v.memory_hit_bytes = memory_hit_bytes_;
  v.disk_hit_bytes = disk_hit_bytes_;
  v.memory_hits = memory_hits_;
  v.disk_hits = disk_hits_;
  v.reads_served = reads_served_;
  v.quota_rejections = quota_rejections_;
  v.placement_failures = placement_failures_;
  v.partial_placements = partial_placements_;
  v.dfs_slots_used = dfs;
}

uint64_t Model::dfs_slots_used() const {
  if (config_.dfs_slots == 0) return 0;
  uint64_t n = 0;
  for (const auto& [id, obj] : objects_.unordered()) n += obj.count(ReplicaKind::Dfs);
  return n;
}

}  // namespace pinsim
