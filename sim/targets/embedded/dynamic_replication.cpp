// Dynamic replication in the embedded master, as Mooncake's MasterService
// runs it in enforce mode (rules dynrep.*): a read of an object with fewer
// memory replicas than the maximum counts a hit in its key's heat window
// (ObserveDynamicReplicationAccess); a proposal for a hot key is checked
// (SubmitReplicaActionProposalLocked), planned (SelectDynamicReplicaPlan)
// and granted a lease, which the key keeps as its pending lease, with a
// cooldown on further proposals; a copy that sends the lease's token
// (ValidateDynamicReplicaPendingForCopyStart) consumes the pending lease and
// marks its target a dynamic replica (RegisterDynamicReplicaStart), whose
// later removal blocks the next dynamic copy of the object for a while
// (RecordDynamicReplicaRemoval). The admission thread is not run.
//
// Where the model's rules differ from Mooncake's code (README): leases are
// kept per tenant, not per metadata shard, and a read's hit is counted
// under the shard lock, with the read.
#include <algorithm>

#include "embedded_master.h"

namespace pinsim::embedded {

namespace {

constexpr uint64_t kLeaseTtlMs = 30'000;          // kDynamicReplicationLeaseTtl
constexpr uint64_t kActionCooldownMs = 30'000;    // kDynamicReplicationActionCooldown
constexpr uint64_t kRecreateCooldownMs = 60'000;  // kDynamicReplicationRecreateCooldown
constexpr double kTargetHighWatermark = 0.85;     // kDynamicReplicationTargetHighWatermark

}  // namespace

// SubmitReplicaActionProposal (an ADD for the op's key, its proposal id, no
// preferred target, no expiry of its own), with the key's home shard held.
Outcome EmbeddedMaster::propose(const Op& op, Time now) {
  if (!config_.dynamic_replication) return Outcome::of(ErrorCode::UNAVAILABLE_IN_CURRENT_STATUS);  // not enforcing
  if (auto err = check_registered(op.object.tenant)) return Outcome::of(*err);
  ShardLock lock;
  const size_t shard = lock_home_shard(op.object, &lock);
  ObjectMetadata* md = find_in(shard, op.object);
  if (!md) return Outcome::of(ErrorCode::OBJECT_NOT_FOUND);
  const ProposalKey key{op.object.tenant, op.proposal.value_or(0)};
  if (auto known = live_lease(key, now)) {  // a retry: the same request gets its lease again
    if (known->object != op.object) return Outcome::of(ErrorCode::INVALID_PARAMS);
    return answer_proposal(key, *known);
  }
  if (auto err = proposal_refused(shard, op.object, *md, now)) return Outcome::of(*err);
  const auto plan = select_plan(*md);
  if (!plan) return Outcome::of(ErrorCode::UNAVAILABLE_IN_CURRENT_STATUS);
  const DynamicLease lease{op.object, next_lease_id_.fetch_add(1), plan->first, plan->second, md->put_start_time,
                           saturating_deadline(now, kLeaseTtlMs)};
  if (!admit_lease(key, lease, now)) return Outcome::of(ErrorCode::INVALID_PARAMS);  // the id went to another key
  Shard& s = shards_[shard];
  s.dynamic_pending[op.object] = lease;
  s.dynamic_cooldowns[op.object] = saturating_deadline(now, kActionCooldownMs);
  return answer_proposal(key, lease);
}

// The answer names the lease's target; the client keeps the lease as the
// token its copies of the proposal send (copy_call).
Outcome EmbeddedMaster::answer_proposal(ProposalKey key, const DynamicLease& lease) {
  {
    std::lock_guard lock(tokens_mutex_);
    tokens_[key] = lease;
  }
  Outcome out;
  out.segment = lease.target;
  return out;
}

// The checks between the lease lookup and the plan, in Mooncake's order:
// heat, the key's cooldown, a write, copy or pending lease under way, the
// object's recreate cooldown.
std::optional<ErrorCode> EmbeddedMaster::proposal_refused(size_t shard, ObjectId id, const ObjectMetadata& md,
                                                          Time now) {
  if (!heat_admitted(id, now)) return ErrorCode::INVALID_PARAMS;
  auto& cooldowns = shards_[shard].dynamic_cooldowns;
  if (auto cooldown = cooldowns.find(id); cooldown != cooldowns.end()) {
    if (cooldown->second > now) return ErrorCode::UNAVAILABLE_IN_CURRENT_STATUS;
    cooldowns.erase(cooldown);
  }
  if (md.processing || md.task || has_pending(shard, id, now)) return ErrorCode::OBJECT_HAS_REPLICATION_TASK;
  if (now < md.recreate_after) return ErrorCode::UNAVAILABLE_IN_CURRENT_STATUS;
  return std::nullopt;
}

// A live lease of the tenant's proposal id; an expired one is dropped.
std::optional<DynamicLease> EmbeddedMaster::live_lease(ProposalKey key, Time now) {
  std::lock_guard lock(dynamic_mutex_);
  auto it = leases_.find(key);
  if (it == leases_.end()) return std::nullopt;
  if (now <= it->second.expire) return it->second;
  leases_.erase(it);
  return std::nullopt;
}

// Records a grant under its proposal id, unless a concurrent proposal (for
// another key: this key's shard is held) took the id since live_lease.
bool EmbeddedMaster::admit_lease(ProposalKey key, const DynamicLease& lease, Time now) {
  std::lock_guard lock(dynamic_mutex_);
  auto it = leases_.find(key);
  if (it != leases_.end() && now <= it->second.expire && it->second.object != lease.object) return false;
  leases_[key] = lease;
  return true;
}

bool EmbeddedMaster::has_pending(size_t shard, ObjectId id, Time now) {
  const auto& pending = shards_[shard].dynamic_pending;
  auto it = pending.find(id);
  if (it == pending.end()) return false;
  if (now <= it->second.expire) return true;
  clear_dynamic_state(shard, id);
  return false;
}

// GetReplicaList observes a read while the object has at least one and
// fewer than max_memory_replicas readable memory replicas.
bool EmbeddedMaster::heat_observed(const ObjectMetadata& md) const {
  if (!config_.dynamic_replication) return false;
  const uint32_t memory = md.complete_memory_replicas();
  // F25: the test for a memory replica is lost: a read served from disk alone counts too.
  return (memory > 0 || faults_.f25_heat_without_memory_replica) &&
         memory < config_.dynamic_replication->max_memory_replicas;
}

// A hit of the key: its window restarts when it is new or has run out.
void EmbeddedMaster::observe_heat(ObjectId id, Time now) {
  const Time window = static_cast<Time>(config_.dynamic_replication->window_s) * 1000;
  std::lock_guard lock(dynamic_mutex_);
  HeatWindow& w = heat_[id];
  if (w.hits == 0 || now - w.start >= window) w = HeatWindow{now, 0};
  ++w.hits;
}

// Hot: the key's window is still open and holds min_hits hits.
bool EmbeddedMaster::heat_admitted(ObjectId id, Time now) const {
  const Time window = static_cast<Time>(config_.dynamic_replication->window_s) * 1000;
  std::lock_guard lock(dynamic_mutex_);
  auto it = heat_.find(id);
  if (it == heat_.end() || it->second.hits == 0 || now - it->second.start >= window) return false;
  return it->second.hits >= config_.dynamic_replication->min_hits;
}

// The source is the segment of a readable memory replica (the lowest index
// of several: Mooncake orders them by a hash of key and segment name); the
// target an allocatable memory segment holding no replica of the object,
// below the high watermark after the copy, the least used of several, then
// the lowest index (Mooncake: a different host first, then the hash).
std::optional<std::pair<uint32_t, uint32_t>> EmbeddedMaster::select_plan(const ObjectMetadata& md) const {
  const uint32_t memory = md.complete_memory_replicas();
  if (memory == 0 || memory >= config_.dynamic_replication->max_memory_replicas) return std::nullopt;
  uint32_t source = UINT32_MAX;
  for (const Replica& r : md.replicas)
    if (r.kind == ReplicaKind::Memory && r.status == ReplicaStatus::Complete) source = std::min(source, r.segment);
  std::optional<uint32_t> target;
  double best = 0;
  std::lock_guard lock(alloc_mutex_);
  for (uint32_t s = 0; s < config_.segments.size(); ++s) {
    if (config_.segments[s].kind != ReplicaKind::Memory || md.replica_on(s) || !segments_.allocatable(s)) continue;
    uint64_t used = 0, capacity = 0;
    segments_.query(s, &used, &capacity);
    if (capacity == 0 || used >= capacity || capacity - used < md.size) continue;
    if (static_cast<double>(used + md.size) / static_cast<double>(capacity) >= kTargetHighWatermark) continue;
    const double util = static_cast<double>(used) / static_cast<double>(capacity);
    if (!target || util < best) target = s, best = util;
  }
  if (!target) return std::nullopt;
  return std::pair{source, *target};
}

// What a copy op sends, as the client builds the call (the Mooncake target
// does the same): without a proposal, the op's client, source and targets;
// with one it holds a token for, the token's lease, version, source and
// target, sent by the client of the source segment (to whom the master gave
// the copy), or the op's own client when no one has it mounted; with one it
// holds none for, the op's client and segments and a lease no grant made.
EmbeddedMaster::CopyCall EmbeddedMaster::copy_call(const Op& op) const {
  CopyCall call{op.client, op.segment, op.targets};
  if (!op.proposal) return call;
  std::optional<DynamicLease> token;
  {
    std::lock_guard lock(tokens_mutex_);
    if (auto it = tokens_.find({op.object.tenant, *op.proposal}); it != tokens_.end()) token = it->second;
  }
  if (!token) {
    call.lease = kUngrantedLease;
    return call;
  }
  call = CopyCall{op.client, token->source, {token->target}, token->id, token->version_epoch};
  std::lock_guard lock(alloc_mutex_);
  if (segments_.record(call.source).mounted) call.client = segments_.record(call.source).owner;
  return call;
}

// ValidateDynamicReplicaPendingForCopyStart: a plain copy is refused while a
// lease is pending; a dynamic one needs the key's live pending lease, for
// the object's present version, and must send its token, source, target and
// the source segment's client. An expired lease, or one the object outgrew,
// ends the key's dynamic state.
std::optional<ErrorCode> EmbeddedMaster::validate_pending_for_copy_start(size_t shard, ObjectId id,
                                                                         const CopyCall& call, Time current_epoch,
                                                                         Time now) {
  const auto& pending_leases = shards_[shard].dynamic_pending;
  auto it = pending_leases.find(id);
  const std::optional<ErrorCode> none_pending =
      call.dynamic() ? std::optional(ErrorCode::UNAVAILABLE_IN_CURRENT_STATUS) : std::nullopt;
  if (it == pending_leases.end()) return none_pending;
  const DynamicLease pending = it->second;
  if (now > pending.expire) {
    clear_dynamic_state(shard, id);
    return none_pending;
  }
  if (!call.dynamic()) return ErrorCode::OBJECT_HAS_REPLICATION_TASK;
  if (pending.version_epoch != current_epoch) {
    clear_dynamic_state(shard, id);
    return ErrorCode::INVALID_VERSION;
  }
  if (pending.id != call.lease || pending.version_epoch != call.epoch) return ErrorCode::INVALID_VERSION;
  if (pending.source != call.source || call.targets != std::vector<uint32_t>{pending.target})
    return ErrorCode::OBJECT_HAS_REPLICATION_TASK;
  std::lock_guard lock(alloc_mutex_);  // GetClientIdBySegmentName
  const SegmentRecord& source = segments_.record(pending.source);
  if (!source.mounted) return ErrorCode::SEGMENT_NOT_FOUND;
  if (source.owner != call.client) return ErrorCode::ILLEGAL_CLIENT;
  return std::nullopt;
}

// RegisterDynamicReplicaStart: a copy started; the key's pending lease is
// consumed, and the replica the copy makes on its target is marked dynamic.
void EmbeddedMaster::register_dynamic_start(size_t shard, ObjectId id, ObjectMetadata& md,
                                            const std::vector<ReplicaId>& made, Time now) {
  auto& pending_leases = shards_[shard].dynamic_pending;
  auto it = pending_leases.find(id);
  if (it == pending_leases.end()) return;
  const DynamicLease pending = it->second;
  pending_leases.erase(it);
  if (now > pending.expire || pending.version_epoch != md.put_start_time || !md.task) return;
  for (const Replica& r : md.replicas)
    if (r.segment == pending.target && std::find(made.begin(), made.end(), r.id) != made.end())
      md.dynamic_replicas.insert(r.id);
}

// ClearDynamicReplicationStateForKey: the key's pending lease, cooldown and
// leases go (its heat stays: it belongs to the key's reads). Home shard held.
void EmbeddedMaster::clear_dynamic_state(size_t shard, ObjectId id) {
  if (!config_.dynamic_replication) return;  // there is none
  Shard& s = shards_[shard];
  s.dynamic_pending.erase(id);
  s.dynamic_cooldowns.erase(id);
  std::lock_guard lock(dynamic_mutex_);
  std::erase_if(leases_, [&](const auto& lease) { return lease.second.object == id; });
}

// A restore's reset: no lease, pending lease or cooldown is durable.
void EmbeddedMaster::clear_all_dynamic_state() {
  for (Shard& s : shards_) {
    s.dynamic_pending.clear();
    s.dynamic_cooldowns.clear();
  }
  std::lock_guard lock(dynamic_mutex_);
  leases_.clear();
}

// A dynamic replica leaving its object (evicted, unmounted, revoked,
// discarded) blocks the object's next dynamic copy for the recreate cooldown.
void EmbeddedMaster::record_dynamic_removal(ObjectMetadata& md, std::vector<Replica>::const_iterator from) {
  if (md.forget_dynamic_replicas(from, md.replicas.cend()) == 0) return;
  md.recreate_after = saturating_deadline(last_now_.load(), kRecreateCooldownMs);
}

}  // namespace pinsim::embedded
