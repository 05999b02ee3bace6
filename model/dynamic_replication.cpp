// Dynamic replication (Mooncake's enforce mode): reads make a key hot, a
// proposal for a hot key is granted a lease naming a source and a target
// segment, and the copy that lease's token starts adds a memory replica.
// Neither RFC 3028 nor PR 2835 states it, except that a copy is no soft-pin
// activation point (rule copy.no-pin holds for these copies too); the rest
// is what a client of the proposal API expects (docs/interpretations.md,
// "Dynamic replication"): rules dynrep.heat, dynrep.propose, dynrep.cooldown,
// dynrep.copy. A refused proposal changes nothing.
#include "model.h"

namespace pinsim {

namespace {

constexpr uint64_t kLeaseMs = 30'000;     // a lease lives 30 s (Mooncake's kDynamicReplicationLeaseTtl)
constexpr uint64_t kCooldownMs = 30'000;  // a key's proposals after a grant (kDynamicReplicationActionCooldown)
constexpr uint64_t kRecreateMs = 60'000;  // an object's after a dynamic replica goes (...RecreateCooldown)
constexpr double kHighWatermark = 0.85;   // a target's use after the copy stays below this

uint32_t complete_memory(const Object& obj) {
  return static_cast<uint32_t>(
      std::count_if(obj.replicas.begin(), obj.replicas.end(), [](const Replica& r) { return r.complete_memory(); }));
}

}  // namespace

// Rule dynrep.heat: a successful read counts a hit of the key while the
// object has at least one and fewer than max COMPLETE memory replicas.
void Model::observe_heat(ObjectId id, const Object& obj, Time now) {
  const auto& dr = config_.dynamic_replication;
  if (!dr) return;
  const uint32_t c = complete_memory(obj);
  if (c == 0 || c >= dr->max_memory_replicas) return;
  if (!batch_seen_.insert(id).second) return;  // one hit per key per batch
  Heat& h = heat_[id];
  if (h.hits == 0 || now - h.start >= static_cast<Time>(dr->window_s) * 1000) h = Heat{now, 0};
  ++h.hits;
  hits_.hit(Rule::DynHeat);
}

bool Model::hot(ObjectId id, Time now) const {
  auto it = heat_.find(id);
  if (it == heat_.end() || it->second.hits == 0) return false;
  const Heat& h = it->second;
  return now - h.start < static_cast<Time>(config_.dynamic_replication->window_s) * 1000 &&
         h.hits >= config_.dynamic_replication->min_hits;
}

// The source (the object's one COMPLETE memory replica's segment, or the
// lowest of several) and the target: a segment that takes replicas, holds
// none of the object's, and stays below the high watermark after the copy;
// the least used of several, then the lowest index. Presets draw dynamic
// replication with two memory segments, where at most one target qualifies.
std::optional<std::pair<uint32_t, uint32_t>> Model::dynamic_plan(const Object& obj) const {
  const uint32_t c = complete_memory(obj);
  if (c == 0 || c >= config_.dynamic_replication->max_memory_replicas) return std::nullopt;
  std::optional<uint32_t> source, target;
  for (const Replica& r : obj.replicas)
    if (r.complete_memory() && (!source || r.segment < *source))
      source = r.segment;
  for (uint32_t s = 0; s < config_.segments.size(); ++s) {
    const uint64_t cap = config_.segments[s].capacity;
    if (config_.segments[s].kind != ReplicaKind::Memory || !takes_replicas(s)) continue;
    if (std::any_of(obj.replicas.begin(), obj.replicas.end(), [&](const Replica& r) { return r.segment == s; }))
      continue;
    if (segment_used_[s] >= cap || cap - segment_used_[s] < obj.size) continue;
    if (static_cast<double>(segment_used_[s] + obj.size) / static_cast<double>(cap) >= kHighWatermark) continue;
    if (!target || segment_used_[s] * config_.segments[*target].capacity < segment_used_[*target] * cap) target = s;
  }
  if (!target) return std::nullopt;
  return std::pair{*source, *target};
}

// Why a fresh proposal for `id` is refused (dynrep.propose, dynrep.cooldown).
std::optional<ErrorCode> Model::proposal_refused(ObjectId id, const Object& obj, Time now) {
  if (!hot(id, now)) return ErrorCode::INVALID_PARAMS;
  auto cd = dyn_cooldown_.find(id);
  if (cd != dyn_cooldown_.end() && now < cd->second) {
    hits_.hit(Rule::DynCooldown);
    return ErrorCode::UNAVAILABLE_IN_CURRENT_STATUS;
  }
  if (obj.processing || obj.task || pending_live(id, now)) return ErrorCode::OBJECT_HAS_REPLICATION_TASK;
  if (now < obj.recreate_after) {
    hits_.hit(Rule::DynCooldown);
    return ErrorCode::UNAVAILABLE_IN_CURRENT_STATUS;
  }
  return std::nullopt;
}

Outcome Model::propose(const Op& op, Time now) {
  if (!config_.dynamic_replication) return Outcome::of(ErrorCode::UNAVAILABLE_IN_CURRENT_STATUS);
  if (auto err = check_registered(op.object.tenant)) return Outcome::of(*err);
  auto* it = find_object(op.object);
  if (!it) return Outcome::of(ErrorCode::OBJECT_NOT_FOUND);
  hits_.hit(Rule::DynPropose);
  const ProposalKey pk{op.object.tenant, op.proposal.value_or(0)};
  auto known = leases_.find(pk);
  if (known != leases_.end() && now <= known->second.expire) {  // a retry of a live lease
    if (known->second.object != op.object) return Outcome::of(ErrorCode::INVALID_PARAMS);
    Outcome out;
    out.segment = known->second.target;
    return out;
  }
  if (auto err = proposal_refused(op.object, it->second, now)) return Outcome::of(*err);
  auto plan = dynamic_plan(it->second);
  if (!plan) return Outcome::of(ErrorCode::UNAVAILABLE_IN_CURRENT_STATUS);
  const Lease lease{op.object, next_grant_++, plan->first, plan->second, it->second.put_start_time,
                    saturating_deadline(now, kLeaseMs)};
  leases_[pk] = lease;
  granted_[pk] = lease;
  dyn_pending_[op.object] = lease;
  dyn_cooldown_[op.object] = saturating_deadline(now, kCooldownMs);
  Outcome out;
  out.segment = lease.target;
  return out;
}

// A dynamic copy's checks of its token against the key's pending lease, in
// the order the copy's request is judged (rule dynrep.copy). A refusal after
// the token checked out, or for a changed object, ends the key's lease.
std::optional<ErrorCode> Model::dynamic_start_refused(const Op& op, const CopyRequest& req, const Object& obj,
                                                      Time now) {
  auto pending = dyn_pending_.find(op.object);
  if (pending == dyn_pending_.end()) return ErrorCode::UNAVAILABLE_IN_CURRENT_STATUS;
  if (now > pending->second.expire) {
    clear_dynamic_state(op.object);
    return ErrorCode::UNAVAILABLE_IN_CURRENT_STATUS;
  }
  if (pending->second.epoch != obj.put_start_time) {
    clear_dynamic_state(op.object);
    return ErrorCode::INVALID_VERSION;
  }
  if (req.grant != pending->second.grant || req.epoch != pending->second.epoch) return ErrorCode::INVALID_VERSION;
  if (!segments_[req.source].mounted) return ErrorCode::SEGMENT_NOT_FOUND;  // the copy's client is the source's
  return std::nullopt;
}

bool Model::pending_live(ObjectId id, Time now) const {
  auto pending = dyn_pending_.find(id);
  return pending != dyn_pending_.end() && now <= pending->second.expire;
}

// A copy, its lease or an object ended: the key's pending lease, cooldown
// and live leases go (its heat stays: it belongs to the key's reads).
void Model::clear_dynamic_state(ObjectId id) {
  dyn_pending_.erase(id);
  dyn_cooldown_.erase(id);
  std::erase_if(leases_, [&](const auto& l) { return l.second.object == id; });
}

// Rule dynrep.cooldown: a dynamic replica leaving the object (eviction, an
// unmount, a revoked or expired copy) blocks the next dynamic copy 60 s.
void Model::note_replicas_gone(Object& obj, Replicas::const_iterator from) {
  for (auto r = from; r != obj.replicas.cend(); ++r) {
    if (!r->dynamic) continue;
    obj.recreate_after = std::max(obj.recreate_after, saturating_deadline(last_now_, kRecreateMs));
    hits_.hit(Rule::DynCooldown);
  }
}

std::vector<uint32_t> Model::pending_lease_segments() const {
  std::vector<uint32_t> out;
  for (const auto& [id, lease] : dyn_pending_) {
    out.push_back(lease.source);
    out.push_back(lease.target);
  }
  return out;
}

std::vector<std::pair<ObjectId, uint32_t>> Model::leases_to_leaving_targets(Time now) const {
  std::vector<std::pair<ObjectId, uint32_t>> out;
  for (const auto& [id, lease] : dyn_pending_) {
    if (now > lease.expire || lease.target >= segments_.size() || !segments_[lease.target].leaving) continue;
    for (const auto& [key, token] : granted_)
      if (key.first == id.tenant && token.grant == lease.grant) {
        out.push_back({id, key.second});
        break;
      }
  }
  return out;
}

}  // namespace pinsim
