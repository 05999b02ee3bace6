// Op generation for campaigns; see workload.h.
#include "workload.h"

#include <numeric>

namespace pinsim {

std::optional<std::array<uint32_t, kOpKindCount>> op_weights(std::string_view list, std::string* unknown) {
  std::array<uint32_t, kOpKindCount> weights{};
  for (size_t i = 0; i <= list.size();) {
    const size_t comma = std::min(list.find(',', i), list.size());
    const std::string_view name = list.substr(i, comma - i);
    const auto kind = parse_op_kind(name);
    if (!kind) {
      *unknown = std::string(name);
      return std::nullopt;
    }
    weights[static_cast<size_t>(*kind)] = 1;
    i = comma + 1;
  }
  return weights;
}

namespace {

template <typename T>
const T& pick_of(Choices& c, const std::vector<T>& v) { return v[c.pick(v.size())]; }

// A quota policy's bytes: mostly tight (refusals and quota eviction), now and
// then more than the memory holds (scaled down to effective quotas).
uint64_t draw_quota(Choices& c) { return c.chance(80) ? 64 * (1 + c.pick(4)) : uint64_t{1} << (20 + c.pick(3)); }

}  // namespace

void draw_tenants(Choices& c, uint32_t tenants, Config* m) {
  m->multi_tenant = true;
  m->tenant_quota_bytes.clear();
  for (TenantId t = 0; t < tenants; ++t) {
    if (t > 0 && c.chance(15)) continue;  // a tenant without a policy: TENANT_NOT_REGISTERED
    m->tenant_quota_bytes[t] = draw_quota(c);
  }
}

void draw_swarm(Choices& c, WorkloadConfig* w, Config* m) {
  // Each op is switched off with probability 1/4, and weights vary 1..20,
  // so rare mixes (only upserts, no cleanup, eviction storms) come up.
  // Ops off by default (weight 0) stay off here (draw_segment_churn).
  for (const OpInfo& op : kOpTable)
    if (op.weight > 0)
      w->weights[static_cast<size_t>(op.kind)] = c.chance(25) ? 0 : 1 + static_cast<uint32_t>(c.pick(20));
  w->weights[static_cast<int>(OpKind::PutStart)] += 1;  // something must create objects
  w->weights[static_cast<int>(OpKind::Advance)] += 1;
  w->actors = 1 + static_cast<uint32_t>(c.pick(4));
  w->tenants = 1 + static_cast<uint32_t>(c.pick(3));
  w->keys = 1 + static_cast<uint32_t>(c.pick(8));
  w->groups = static_cast<uint32_t>(c.pick(4));
  // Tiny segments (allocation failures) hold 64 bytes: with sizes 32 and 64
  // every free byte of a tiny segment is one extent, so a real allocator
  // cannot refuse for fragmentation what the model's byte count admits. At
  // 128 bytes, 32 + 64 + 32 with both 32s freed leaves 64 bytes in two
  // extents, and Mooncake's offset allocator refuses a 64-byte write
  // (docs/interpretations.md, "Allocation").
  const uint64_t capacity = c.chance(30) ? 64 : 1u << 20;
  m->segments.clear();
  const uint64_t memory_segments = 1 + c.pick(3);
  for (uint64_t i = 0; i < memory_segments; ++i) m->segments.push_back({ReplicaKind::Memory, capacity});
  if (!c.chance(20)) m->segments.push_back({ReplicaKind::Nof, capacity});
  if (c.chance(20)) m->max_kv_soft_pin_ttl_ms = UINT64_MAX;  // huge TTLs: saturation
  if (c.chance(20)) m->default_kv_soft_pin_ttl_ms = 0;
  if (c.chance(30)) m->max_retained_groups = c.pick(4);      // many tenants sharing a small cap
  if (c.chance(20)) m->max_group_retention_ttl_ms = UINT64_MAX;
  if (c.chance(20)) m->allow_evict_soft_pinned_objects = false;
  if (c.chance(25)) draw_tenants(c, w->tenants, m);
  w->hard_pin_pct = c.chance(50) ? 0 : 2 + static_cast<uint32_t>(c.pick(20));
  if (c.chance(50)) m->profile = Profile::MooncakeMain;
  if (c.chance(30)) w->soft_pin_ttls.push_back(UINT64_MAX);
}

void draw_segment_churn(Choices& side, WorkloadConfig* w) {
  const uint32_t unmount = side.chance(50) ? 0 : 1;
  w->weights[static_cast<int>(OpKind::Unmount)] = unmount;
  w->weights[static_cast<int>(OpKind::Mount)] = unmount * (1 + static_cast<uint32_t>(side.pick(3)));
  w->weights[static_cast<int>(OpKind::GracefulUnmount)] = unmount;  // no draw of its own: the stream is as it was
}

void draw_copies(Choices& side, WorkloadConfig* w) {
  if (side.chance(50)) return;
  w->weights[static_cast<int>(OpKind::CopyStart)] = 1 + static_cast<uint32_t>(side.pick(3));
  w->weights[static_cast<int>(OpKind::CopyEnd)] = 2;
  w->weights[static_cast<int>(OpKind::CopyRevoke)] = 1;
}

// The local-disk tier (rules local.*), alone with the mechanisms it is not
// combined with yet (docs/interpretations.md): the holder's offloads and
// promotions, and no snapshots (a target runs none with it).
void draw_local_disk(Choices& side, WorkloadConfig* w, Config* m) {
  if (!m->local_disk_combines() || !side.chance(15)) return;
  set_local_disk(w, m, 2 + static_cast<uint32_t>(side.pick(3)));
}

void set_local_disk(WorkloadConfig* w, Config* m, uint32_t weight) {
  m->local_disk = true;
  for (OpKind k : kLocalDiskOps) w->weights[static_cast<int>(k)] = weight;
  w->weights[static_cast<int>(OpKind::Snapshot)] = w->weights[static_cast<int>(OpKind::Restore)] = 0;
}

void draw_dynamic_replication(Choices& side, WorkloadConfig* w, Config* m) {
  const auto memory = std::count_if(m->segments.begin(), m->segments.end(),
                                    [](const SegmentConfig& s) { return s.kind == ReplicaKind::Memory; });
  if (memory != 2 || !side.chance(20)) return;
  const uint32_t windows[] = {1, 5, 10, 30};
  m->dynamic_replication = DynamicReplication{windows[side.pick(4)], 1 + static_cast<uint32_t>(side.pick(3)), 2};
  w->weights[static_cast<int>(OpKind::Propose)] = 2 + static_cast<uint32_t>(side.pick(3));
}

// A write that asks for no replica at all breaks a request rule (INVALID_PARAMS,
// nothing changes). When the draw gave no replica, one write in four of those
// keeps it: derived from the write's key, writer and size rather than drawn,
// so every draw of a seed is what it was before such writes were kept.
bool Workload::no_replica_request(const Op& op) const {
  if (w_.invalid_request_pct == 0) return false;
  Prng derived(uint64_t{op.object.tenant} << 56 ^ uint64_t{op.object.key} << 40 ^ uint64_t{op.client} << 24 ^ op.size);
  return derived.below(4) == 0;
}

Op Workload::start(Choices& c, OpKind kind) const {
  Op op;
  op.kind = kind;
  op.client = 1 + static_cast<ClientId>(c.pick(w_.actors));
  op.object = {static_cast<TenantId>(c.pick(w_.tenants)), static_cast<KeyId>(c.pick(w_.keys))};
  op.size = pick_of(c, w_.sizes);
  op.memory_replicas = static_cast<uint32_t>(c.pick(w_.max_memory_replicas + 1));
  op.nof_replicas = static_cast<uint32_t>(c.pick(w_.max_nof_replicas + 1));
  if (op.memory_replicas + op.nof_replicas == 0 && !no_replica_request(op)) op.memory_replicas = 1;
  // With DFS (rules dfs.*): half the writes ask for a DFS replica, now and
  // then for two (INVALID_PARAMS). Drawn only then: other seeds draw as before.
  if (master_.dfs_slots > 0 && c.chance(50)) op.dfs_replicas = c.chance(5) ? 2 : 1;
  else if (dfs_without_dfs(op)) op.dfs_replicas = 1;
  // Odd keys belong to a group fixed by the key, so groups gather members
  // over a run; now and then a write names another group (INVALID_PARAMS on
  // an existing key, or an ungrouped replacement after preemption).
  if (w_.groups == 0) op.group = 0;
  else if (c.chance(w_.regroup_pct)) op.group = static_cast<GroupId>(c.pick(w_.groups + 1));
  else op.group = op.object.key % 2 ? 1 + (op.object.key / 2) % w_.groups : 0;
  op.hard_pin = c.chance(w_.hard_pin_pct);
  if (c.chance(w_.group_shape_pct)) {
    static constexpr GroupShape kShapes[] = {GroupShape::Explicit, GroupShape::Explicit, GroupShape::Explicit,
                                             GroupShape::EmptyList, GroupShape::TwoIds};
    op.group_shape = kShapes[c.pick(std::size(kShapes))];
  }
  const uint64_t a = c.pick(3);
  op.soft_pin.action = static_cast<uint8_t>(a);
  if (a == static_cast<uint64_t>(SoftPinAction::Enable) && c.chance(70)) op.soft_pin.ttl_ms = pick_of(c, w_.soft_pin_ttls);
  if (c.chance(w_.invalid_request_pct)) {
    switch (c.pick(4)) {  // break one request rule (RFC 3028 R1, R2, R4, R5)
      case 0: op.soft_pin = {static_cast<uint8_t>(SoftPinAction::Preserve), 1000}; break;
      case 1: op.soft_pin = {static_cast<uint8_t>(SoftPinAction::Disable), 1000}; break;
      case 2: op.soft_pin = {static_cast<uint8_t>(SoftPinAction::Enable), master_.max_kv_soft_pin_ttl_ms == UINT64_MAX ? UINT64_MAX : master_.max_kv_soft_pin_ttl_ms + 1}; break;
      default: op.soft_pin = {static_cast<uint8_t>(c.chance(50) ? 3 : 255), std::nullopt}; break;
    }
  }
  return op;
}

// A DFS replica asked of a master without DFS breaks a request rule (rule
// dfs.request: DFS_SERVICE_UNAVAILABLE, nothing changes): one write in 32,
// derived like no_replica_request, so every draw of a seed stays as it was.
bool Workload::dfs_without_dfs(const Op& op) const {
  if (master_.dfs_slots > 0 || w_.invalid_request_pct == 0) return false;
  Prng derived(uint64_t{op.object.key} << 48 ^ uint64_t{op.client} << 32 ^ op.size ^ 0x9e3779b97f4a7c15ULL);
  return derived.below(32) == 0;
}

Op Workload::advance(Choices& c, const Model& model, Time now) const {
  Op op;
  op.kind = OpKind::Advance;
  // Aim at an upcoming deadline or lease end exactly, one before, or one after.
  const std::vector<Time> marks = aim_marks(model, now);
  if (!marks.empty() && c.chance(w_.aim_pct)) {
    const Time mark = marks[c.pick(marks.size())];
    const Time delta = mark - now + static_cast<Time>(c.pick(3)) - 1;
    op.advance_ms = static_cast<uint64_t>(std::max<Time>(delta, 0));
    return op;
  }
  op.advance_ms = pick_of(c, w_.advance_steps);
  return op;
}

std::vector<Time> Workload::aim_marks(const Model& model, Time now) {
  std::vector<Time> marks;
  for (const auto& [id, obj] : model.objects()) {
    // Generated time stays below kTimeMax / 2: at the saturation point itself
    // every new deadline equals now and is expired at birth, which no real
    // master reaches (docs/interpretations.md).
    if (obj.deadline && *obj.deadline > now && *obj.deadline < kTimeMax / 2) marks.push_back(*obj.deadline);
    if (obj.lease > now && obj.lease < kTimeMax / 2) marks.push_back(obj.lease);
    // The release timeout of a write in flight and of each task (a copy, an
    // offload, a promotion): what the processing reaper cancels.
    auto expiry = [&](Time start) {
      const Time at = saturating_deadline(start, model.config().put_start_release_timeout_ms);
      if (at > now && at < kTimeMax / 2) marks.push_back(at);
    };
    if (obj.processing) expiry(obj.put_start_time);
    if (obj.task) expiry(obj.task->start);
    if (obj.offload) expiry(obj.offload->start);
    if (obj.promotion) expiry(obj.promotion->start);
  }
  return marks;
}

void Workload::generator_input(const Model& model, Time now, std::vector<uint64_t>* out) const {
  out->clear();
  for (const Time mark : aim_marks(model, now)) out->push_back(static_cast<uint64_t>(mark - now));
  out->push_back(UINT64_MAX);  // ends the marks (a mark - now is below kTimeMax)
  for (TenantId t = 0; t < w_.tenants; ++t)
    for (KeyId k = 0; k < w_.keys; ++k) {
      const auto* it = model.objects().find({t, k});
      out->push_back(it ? 1 + uint64_t{it->second.client} : 0);
      // What an End's checksum is derived from (end_or_revoke): the object's
      // first replica, and the time below.
      if (w_.checksums) out->push_back(it && !it->second.replicas.empty() ? it->second.replicas.front().id : 0);
      if (draws_copies()) copy_input(it ? &it->second : nullptr, out);
    }
  if (w_.checksums) out->push_back(static_cast<uint64_t>(now));
  if (draws_unmounts()) {
    const std::vector<uint32_t> busy = copy_segments(model);
    out->push_back(busy.size());
    out->insert(out->end(), busy.begin(), busy.end());
    for (uint32_t s = 0; s < master_.segments.size(); ++s) out->push_back(model.segment_owner(s));  // segment_op
    const std::vector<uint32_t> targets = actor_lease_targets(model);
    out->push_back(targets.size());
    out->insert(out->end(), targets.begin(), targets.end());
  }
  if (master_.dynamic_replication && draws_copies()) {  // copy_token
    const auto leases = model.leases_to_leaving_targets(now);
    out->push_back(leases.size());
    for (const auto& [id, proposal] : leases) out->insert(out->end(), {id.tenant, id.key, proposal});
  }
}

// The target segments of pending leases that an actor mounted (only its
// owner may start a segment's graceful unmount, and the config's segments are
// the setup's), sorted, each once: drawn first for a graceful unmount, so a
// leased copy then meets its target leaving (copy_token).
std::vector<uint32_t> Workload::actor_lease_targets(const Model& model) {
  const std::vector<uint32_t> segments = model.pending_lease_segments();  // source, target per lease
  std::vector<uint32_t> targets;
  for (size_t i = 1; i < segments.size(); i += 2)
    if (model.segment_owner(segments[i]) != kSetupClient) targets.push_back(segments[i]);
  std::sort(targets.begin(), targets.end());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  return targets;
}

// The segments copies under way read (a source) or write (a target), and
// those a pending dynamic-replication lease names for its copy; sorted, each once.
std::vector<uint32_t> Workload::copy_segments(const Model& model) {
  std::vector<uint32_t> busy = model.pending_lease_segments();
  for (const auto& [id, obj] : model.objects()) {
    if (!obj.task) continue;
    for (const Replica& r : obj.replicas)
      if (r.copy || r.id == obj.task->source) busy.push_back(r.segment);
  }
  std::sort(busy.begin(), busy.end());
  busy.erase(std::unique(busy.begin(), busy.end()), busy.end());
  return busy;
}

// The segments a copy of `obj` may take its source from: its COMPLETE memory replicas', in segment order.
std::vector<uint32_t> Workload::copy_sources(const Object* obj) {
  std::vector<uint32_t> sources;
  if (obj)
    for (const Replica& r : obj->replicas)
      if (r.kind == ReplicaKind::Memory && r.status == ReplicaStatus::Complete) sources.push_back(r.segment);
  std::sort(sources.begin(), sources.end());
  return sources;
}

// What copy_op reads of an object: its copy's owner and copy_sources.
void Workload::copy_input(const Object* obj, std::vector<uint64_t>* out) {
  out->push_back(obj && obj->task ? 1 + uint64_t{obj->task->owner} : 0);
  const std::vector<uint32_t> sources = copy_sources(obj);
  out->push_back(sources.size());
  out->insert(out->end(), sources.begin(), sources.end());
}

Op Workload::next(Choices& c, const Model& model, Time now) const {
  const OpKind k = static_cast<OpKind>(c.pick_weighted(w_.weights));
  switch (k) {
    case OpKind::PutStart: case OpKind::UpsertStart: return start(c, k);
    case OpKind::Unmount: case OpKind::Mount: case OpKind::GracefulUnmount: return segment_op(c, model, k);
    case OpKind::Advance: return advance(c, model, now);
    case OpKind::BatchUpsertStart: {
      // A start's write config for the whole batch, then 1-4 keys with a
      // size each; now and then one size too few or too many
      // (INVALID_PARAMS for every key).
      Op op = start(c, OpKind::UpsertStart);
      op.kind = k;
      op.keys = batch_keys(c);
      op.object.key = 0;
      for (size_t i = 0; i < op.keys.size(); ++i) op.sizes.push_back(pick_of(c, w_.sizes));
      if (c.chance(w_.invalid_request_pct)) {
        if (c.chance(50) || op.sizes.empty()) op.sizes.push_back(pick_of(c, w_.sizes));
        else op.sizes.pop_back();
      }
      op.size = 0;
      return op;
    }
    default:
      break;
  }
  Op op;
  op.kind = k;
  op.client = 1 + static_cast<ClientId>(c.pick(w_.actors));
  op.object = {static_cast<TenantId>(c.pick(w_.tenants)), static_cast<KeyId>(c.pick(w_.keys))};
  switch (k) {
    case OpKind::PutEnd: case OpKind::UpsertEnd: case OpKind::PutRevoke: case OpKind::UpsertRevoke:
      end_or_revoke(c, model, now, &op);
      break;
    case OpKind::Remove: case OpKind::RemoveAll: op.force = c.chance(30); break;
    case OpKind::RemoveByRegex:  // the keys its pattern matches: a subset of the universe
      op.object.key = 0;
      op.force = c.chance(30);
      for (KeyId key = 0; key < w_.keys; ++key)
        if (c.chance(50)) op.keys.push_back(key);
      break;
    case OpKind::RetainGroups: {
      const uint64_t n = c.pick(w_.max_retain_groups + 1);
      for (uint64_t i = 0; i < n; ++i)
        op.groups.push_back(c.chance(w_.invalid_retain_pct) || w_.groups == 0 ? 0 : 1 + static_cast<GroupId>(c.pick(w_.groups)));
      op.ttl_ms = c.chance(w_.invalid_retain_pct) ? (c.chance(50) ? 0 : master_.max_group_retention_ttl_ms + (master_.max_group_retention_ttl_ms != UINT64_MAX))
                              : pick_of(c, w_.retention_ttls);
      break;
    }
    case OpKind::Evict: {
      op.evict_target_pct = pick_of(c, w_.evict_target_pcts);
      const uint32_t bounds[] = {0, op.evict_target_pct / 2, op.evict_target_pct};
      op.evict_lowerbound_pct = bounds[c.pick(3)];
      break;
    }
    case OpKind::Restore: op.fail_first_candidate = c.chance(30); break;
    case OpKind::CopyStart: case OpKind::CopyEnd: case OpKind::CopyRevoke:
      copy_op(c, model, &op);
      copy_token(c, model, now, &op);
      break;
    case OpKind::Propose: op.proposal = proposal_id(c, op); break;
    case OpKind::OffloadEnd: case OpKind::PromotionEnd: op.fail = c.chance(15); break;  // rules local.*
    case OpKind::SetQuota:  // now and then 0 or above 2^63 - 1 (INVALID_PARAMS)
      op.quota_bytes = !c.chance(w_.invalid_request_pct) ? draw_quota(c) : c.chance(50) ? 0 : kMaxQuotaBytes + 1;
      break;
    case OpKind::BatchExist: case OpKind::BatchGet: case OpKind::BatchUpsertEnd: case OpKind::BatchUpsertRevoke:
    case OpKind::BatchPutEnd: case OpKind::BatchPutRevoke: case OpKind::BatchRemove: {
      op.object.key = 0;
      op.keys = batch_keys(c);
      // Mostly the first key's current writer, like a single End/Revoke.
      const auto* it = op.keys.empty() ? nullptr : model.objects().find({op.object.tenant, op.keys[0]});
      if (it && c.chance(85)) op.client = it->second.client;
      if (k == OpKind::BatchPutEnd || k == OpKind::BatchPutRevoke)
        op.selector = selector(c);
      if (k == OpKind::BatchRemove) op.force = c.chance(30);
      break;
    }
    default: break;
  }
  return op;
}

// Mostly all, else memory or NoF, or in disk mode the disk replica too,
// with DFS the DFS replica too.
ReplicaSelector Workload::selector(Choices& c) const {
  if (master_.dfs_slots == 0)
    return static_cast<ReplicaSelector>(c.chance(60) ? 0 : 1 + c.pick(master_.disk_replica ? 3 : 2));
  if (c.chance(60)) return ReplicaSelector::All;
  const uint32_t n = master_.disk_replica ? 4 : 3;  // memory, NoF, [disk,] DFS
  const uint32_t i = static_cast<uint32_t>(c.pick(n));
  return i + 1 == n ? ReplicaSelector::Dfs : static_cast<ReplicaSelector>(1 + i);
}

// A single-key End or Revoke: mostly by the key's current writer, sometimes
// another actor (ILLEGAL_CLIENT). An End declares the value's checksum (one
// of a few) or none, derived rather than drawn, from the time, the key, the
// writer and the object's first replica: it takes no choice, so every other
// draw of a seed is what it was before Ends had checksums.
void Workload::end_or_revoke(Choices& c, const Model& model, Time now, Op* op) const {
  const auto* it = model.objects().find(op->object);
  if (it && c.chance(85)) op->client = it->second.client;
  op->selector = selector(c);
  if (!has_field(op->kind, kFieldChecksum) || w_.checksums == 0) return;
  const uint64_t replica = it && !it->second.replicas.empty() ? it->second.replicas.front().id : 0;
  Prng derived(static_cast<uint64_t>(now) * 0x9E3779B97F4A7C15ull ^ uint64_t{op->object.tenant} << 56 ^
               uint64_t{op->object.key} << 40 ^ uint64_t{op->client} << 24 ^ replica);
  if (const uint64_t checksum = derived.below(w_.checksums + 1)) op->checksum = checksum;
}

// unmount, mount or graceful_unmount: a segment of the config, now and then one past the end
// (INVALID_PARAMS). An unmount, graceful or not, mostly (60%) takes a segment a
// copy under way reads or writes, or a pending dynamic lease names, when there
// is one: the copy loses its source or a target mid-transfer (rules copy.end,
// copy.targets), or a leased copy finds its segment gone or leaving (rule
// dynrep.copy); branches of Mooncake's CopyStart, CopyEnd and CopyRevoke that
// copies alone never reach.
Op Workload::segment_op(Choices& c, const Model& model, OpKind kind) const {
  Op op;
  op.kind = kind;
  op.client = 1 + static_cast<ClientId>(c.pick(w_.actors));
  const std::vector<uint32_t> busy = kind == OpKind::Mount ? std::vector<uint32_t>{} : copy_segments(model);
  const std::vector<uint32_t> targets =
      kind == OpKind::GracefulUnmount ? actor_lease_targets(model) : std::vector<uint32_t>{};
  if (!targets.empty() && c.chance(60))
    op.segment = pick_of(c, targets);
  else if (!busy.empty() && c.chance(60))
    op.segment = pick_of(c, busy);
  else
    op.segment = static_cast<uint32_t>(c.pick(master_.segments.size() + (c.chance(w_.invalid_request_pct) ? 1 : 0)));
  // Only the client that mounted a segment may start its graceful unmount:
  // mostly that client, when an actor mounted it (a leased copy then finds its target leaving).
  const ClientId owner = model.segment_owner(op.segment);
  if (kind == OpKind::GracefulUnmount && owner != kSetupClient && c.chance(75)) op.client = owner;
  return op;
}

// A copy: mostly of an object with a COMPLETE memory replica, its source
// mostly a segment that holds one, its targets one or two distinct memory
// segments; an End or Revoke mostly of a copy under way, by its owner (else
// ILLEGAL_CLIENT).
void Workload::copy_op(Choices& c, const Model& model, Op* op) const {
  if (op->kind != OpKind::CopyStart) {
    const Object* obj = retarget(c, model, op, [](const Object& o) { return o.task.has_value(); });
    if (obj && obj->task && obj->task->owner != kSetupClient && c.chance(85))
      op->client = obj->task->owner;  // a dynamic copy's owner is the setup's client, never an actor
    return;
  }
  const Object* obj = retarget(c, model, op, [](const Object& o) { return !copy_sources(&o).empty(); });
  const std::vector<uint32_t> sources = copy_sources(obj);
  std::vector<uint32_t> memory;
  for (uint32_t s = 0; s < master_.segments.size(); ++s)
    if (master_.segments[s].kind == ReplicaKind::Memory) memory.push_back(s);
  op->segment = !sources.empty() && c.chance(85) ? pick_of(c, sources)
                                                 : static_cast<uint32_t>(c.pick(master_.segments.size()));
  const uint64_t n = memory.empty() ? 0 : 1 + c.pick(std::min<size_t>(2, memory.size()));
  for (uint64_t i = 0; i < n; ++i) {
    const size_t at = c.pick(memory.size());
    op->targets.push_back(memory[at]);
    memory.erase(memory.begin() + static_cast<std::ptrdiff_t>(at));
  }
}

// Mostly (70%), when the object drawn is not one `wanted` holds of, another
// object of the universe (any tenant) that is: most keys drawn hold no
// object, so a copy would mostly end at OBJECT_NOT_FOUND and never reach its End.
const Object* Workload::retarget(Choices& c, const Model& model, Op* op, bool (*wanted)(const Object&)) const {
  const auto* drawn = model.objects().find(op->object);
  const Object* found = drawn ? &drawn->second : nullptr;
  if ((found && wanted(*found)) || !c.chance(70)) return found;
  std::vector<ObjectId> ids;
  for (TenantId t = 0; t < w_.tenants; ++t)
    for (KeyId k = 0; k < w_.keys; ++k) {
      const auto* it = model.objects().find({t, k});
      if (it && wanted(it->second)) ids.push_back({t, k});
    }
  if (ids.empty()) return found;
  op->object = pick_of(c, ids);
  return &model.objects().find(op->object)->second;
}

// Under dynamic replication, a copy mostly (70%) sends a proposal's token
// (rule dynrep.copy). And a CopyStart mostly (80%), when a live lease's
// target has begun to leave, is the copy that lease allows, with its token:
// refused as the target takes no new replica, it ends the lease (rule
// copy.start); drawn only then, so other seeds keep their draws.
void Workload::copy_token(Choices& c, const Model& model, Time now, Op* op) const {
  if (!master_.dynamic_replication) return;
  if (c.chance(70)) op->proposal = proposal_id(c, *op);
  if (op->kind != OpKind::CopyStart) return;
  const std::vector<std::pair<ObjectId, uint32_t>> leases = model.leases_to_leaving_targets(now);
  if (leases.empty() || !c.chance(80)) return;
  const auto& [id, proposal] = leases[c.pick(leases.size())];
  op->object = id;
  op->proposal = proposal;
}

// A proposal's id: mostly the key's own (a client retrying, and copying
// what its proposal was granted), now and then another of a few (an id
// reused for another key, a token for another object, one never granted).
uint32_t Workload::proposal_id(Choices& c, const Op& op) const {
  return c.chance(80) ? op.object.key : static_cast<uint32_t>(c.pick(4));
}

// A batch's keys: 1-4 keys of the universe in call order, sometimes one
// repeated (each element sees the earlier ones' effect), now and then none
// (an empty batch is a valid request: it answers an empty result list).
std::vector<KeyId> Workload::batch_keys(Choices& c) const {
  std::vector<KeyId> keys(c.chance(3) ? 0 : 1 + c.pick(4));
  for (KeyId& k : keys) k = static_cast<KeyId>(c.pick(w_.keys));
  if (keys.size() > 1 && c.chance(20)) keys.back() = keys.front();
  return keys;
}

}  // namespace pinsim
