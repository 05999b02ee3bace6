// The write path: Put/Upsert Start, End and Revoke. This is where soft-pin
// intent is recorded (Pending), committed on the first readable transition,
// carried across replacement, and cleared on revoke or preemption.
// RFC 3028 "Write API", "Object state model", "Revoke, preemption, and
// processing cleanup"; docs/rules.md lists each rule and its function.
#include "model.h"

namespace pinsim {

// Structural checks, then ResolveSoftPinRequest (RFC 3028 "Write API" request rules).
std::optional<ErrorCode> Model::validate_start(const Op& op, Resolved* out) {
  if (op.memory_replicas + op.nof_replicas + op.dfs_replicas == 0 || op.size == 0) {
    hits_.hit(Rule::ReqReplicas);
    return ErrorCode::INVALID_PARAMS;
  }
  if (auto err = validate_dfs(op)) return err;
  if (!one_group_id_per_key(op)) {
    hits_.hit(Rule::GroupIdsShape);
    return ErrorCode::INVALID_PARAMS;
  }
  const SoftPinRequest& req = op.soft_pin;
  if (req.action > static_cast<uint8_t>(SoftPinAction::Disable)) {
    hits_.hit(Rule::ReqR5);  // RFC 3028 R5: unknown action
    return ErrorCode::INVALID_PARAMS;
  }
  const auto action = static_cast<SoftPinAction>(req.action);
  if (action == SoftPinAction::Preserve && req.ttl_ms) {
    hits_.hit(Rule::ReqR1);  // RFC 3028 R1: Preserve must not carry a TTL
    return ErrorCode::INVALID_PARAMS;
  }
  if (action == SoftPinAction::Disable && req.ttl_ms) {
    hits_.hit(Rule::ReqR2);  // RFC 3028 R2: Disable must not carry a TTL
    return ErrorCode::INVALID_PARAMS;
  }
  uint64_t ttl = 0;
  if (action == SoftPinAction::Enable) {
    if (!req.ttl_ms) hits_.hit(Rule::ReqR3);  // RFC 3028 R3: master default
    ttl = req.ttl_ms.value_or(config_.default_kv_soft_pin_ttl_ms);
    if (ttl > config_.max_kv_soft_pin_ttl_ms) {
      hits_.hit(Rule::ReqR4);  // RFC 3028 R4: above max_kv_soft_pin_ttl
      return ErrorCode::INVALID_PARAMS;
    }
  }
  // Rule dfs.request: a well-formed request, after every request rule (RFC
  // 3028's answer INVALID_PARAMS to a request that breaks one), asks a master
  // without DFS for a DFS replica.
  if (op.dfs_replicas > 0 && config_.dfs_slots == 0) return ErrorCode::DFS_SERVICE_UNAVAILABLE;
  *out = {action, ttl};
  return std::nullopt;
}

// Rule dfs.request, in Mooncake's order: at most one DFS replica, beside a
// memory one; the default tenant only. (A master with DFS: after the soft-pin
// request rules, validate_start.)
std::optional<ErrorCode> Model::validate_dfs(const Op& op) {
  if (op.dfs_replicas == 0) return std::nullopt;
  hits_.hit(Rule::DfsRequest);
  if (op.dfs_replicas > 1 || op.memory_replicas == 0 || op.object.tenant != 0) return ErrorCode::INVALID_PARAMS;
  return std::nullopt;
}

// Admission of a new object: the tenant quota, then placement. Nothing
// changes here, so a refused Start leaves every object as it was (RFC 3028
// Revoke: "An Upsert that has not yet become readable does not immediately
// consume or replace the previous committed deadline"; failure atomicity).
std::optional<ErrorCode> Model::admit(const Op& op, uint64_t released, Replicas* placed,
                                      uint32_t dfs_released) {
  const unsigned __int128 need = static_cast<unsigned __int128>(op.size) * op.memory_replicas;
  const uint64_t charge = need > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(need);
  if (auto err = charge_admits(op.object.tenant, charge, released)) return err;
  auto plan = plan_placement(op);
  if (!plan) {
    hits_.hit(Rule::NoHandle);
    ++placement_failures_;
    return ErrorCode::NO_AVAILABLE_HANDLE;
  }
  if (op.dfs_replicas > 0) {  // rule dfs.slot: the allocator's, after the segments' (no placement failure counted)
    hits_.hit(Rule::DfsSlot);
    if (dfs_slots_used() - dfs_released >= config_.dfs_slots) return ErrorCode::NO_AVAILABLE_HANDLE;
    plan->push_back({.segment = kNoSegment, .kind = ReplicaKind::Dfs});  // PROCESSING, no id yet
  }
  count_partial(op, *plan);
  *placed = std::move(*plan);
  return std::nullopt;
}

// Rule alloc.partial: a write placed with fewer memory or NoF replicas than
// it asked for (best effort, or one side of a flexible dual write) succeeds
// and counts a partial placement.
void Model::count_partial(const Op& op, const Replicas& placed) {
  uint32_t memory = 0, nof = 0;
  for (const Replica& r : placed) {
    memory += r.kind == ReplicaKind::Memory;
    nof += r.kind == ReplicaKind::Nof;
  }
  if (memory >= op.memory_replicas && nof >= op.nof_replicas) return;
  hits_.hit(Rule::PartialPlacement);
  ++partial_placements_;
}

// Inserts the admitted object: Pending(action, ttl, E = the new replica ids),
// a carried deadline (+1 in the constructor), group registration and PR 2835
// inheritance.
void Model::create_object(const Op& op, GroupId group, const Resolved& req, Replicas placed,
                          std::optional<Time> carried, Time now, bool hard_pinned) {
  const ObjectId id = op.object;
  if (config_.oplog_lag) close_retiring(id);  // a retiring object of the key is another (rule log.window)
  for (Replica& r : placed) {
    r.id = next_replica_id_++;
    hold_replica(r, op.size);
    if (r.kind == ReplicaKind::Disk) hits_.hit(Rule::DiskReplica);
  }
  Object& obj = objects_.insert(id);  // filled in place
  obj.client = op.client;
  obj.size = op.size;
  obj.replicas = std::move(placed);
  obj.put_start_time = now;
  obj.group = group;
  obj.hard_pinned = hard_pinned;
  if (hard_pinned) hits_.hit(Rule::HardPinSet);
  obj.reserved = op.size * op.memory_replicas;  // AdoptPendingCharge
  obj.processing = true;
  Pending p{req.action, req.ttl_ms, {}};
  p.eligible.reserve(obj.replicas.size());
  for (const Replica& r : obj.replicas) p.eligible.push_back(r.id);
  obj.pending = std::move(p);
  set_deadline(id, obj, carried);  // the constructor's +1 for a carried deadline
  if (group != 0) {
    const GroupKey g{id.tenant, group};
    group_members_[g].insert(id.key);
    groups_needing_refresh_.insert(g);
    inherit_retention(id, obj, now);  // PR 2835 rule 3
  }
}

// A Start that would replace `obj` is admitted first; when it is refused the
// old object, its committed deadline and its in-flight write stay. The
// replaced object's charge is given back, except the part a size-changing
// Upsert keeps charged until its write settles (`keeps_charge`: what is left
// after the in-flight write is preempted, its COMPLETE memory replicas).
std::optional<ErrorCode> Model::admit_replacement(const Op& op, const Object& obj, bool keeps_charge,
                                                  Replicas* placed) {
  uint64_t kept = 0;
  if (keeps_charge)
    for (const Replica& r : obj.replicas)
      kept += r.complete_memory() ? obj.size : 0;
  // Its DFS replicas free their slots before the new write's allocation (rule dfs.slot).
  auto err = admit(op, obj.charged_bytes() - kept, placed, obj.count(ReplicaKind::Dfs));
  if (err) hits_.hit(Rule::StartFailureAtomic);
  return err;
}

Outcome Model::put_start_once(const Op& op, Time now) {
  Resolved req{};
  if (auto err = validate_start(op, &req)) return Outcome::of(*err);
  if (auto err = check_registered(op.object.tenant)) return Outcome::of(*err);
  Replicas placed;
  if (auto it = find_object(op.object)) {
    const Object& obj = it->second;
    const Time discard_at = saturating_deadline(obj.put_start_time, config_.put_start_discard_timeout_ms);
    if (obj.any_complete() || now <= discard_at) return Outcome::of(ErrorCode::OBJECT_ALREADY_EXISTS);
    if (auto err = admit_replacement(op, obj, false, &placed)) return Outcome::of(*err);
    // Only stale PROCESSING replicas: erase and recreate; the committed
    // deadline is not carried (unlike Upsert Case A). The old replicas'
    // memory is held until put_start_time + release timeout.
    hits_.hit(Rule::PutReplacesStale);
    discard_replicas(it->first, it->second, it->second.replicas.begin(),
                     saturating_deadline(obj.put_start_time, config_.put_start_release_timeout_ms));
    erase_object(it);
  } else if (auto err = admit(op, 0, &placed)) {
    return Outcome::of(*err);
  }
  create_object(op, op.group, req, std::move(placed), std::nullopt, now, op.hard_pin);
  return Outcome{};
}

// RFC 3028 rule 7 at Start: carry the committed deadline only if D > now.
static std::optional<Time> carry_unexpired(const Object& obj, Time now, RuleHits& hits) {
  if (!obj.deadline) return std::nullopt;
  hits.hit(Rule::Rfc7);
  if (*obj.deadline > now) return obj.deadline;
  hits.hit(Rule::Rfc4);
  return std::nullopt;
}

// Preemption: drop the in-flight write and its Pending (RFC 3028 Revoke).
void Model::preempt(ObjectId id, Object& obj, Time now) {
  auto first_processing =
      obj.replicas.stable_partition([](const Replica& r) { return r.status == ReplicaStatus::Complete; });
  discard_replicas(id, obj, first_processing, saturating_deadline(now, config_.put_start_release_timeout_ms));
  if (obj.pending) hits_.hit(Rule::PendingPreempted);
  obj.pending.reset();
  obj.processing = false;
  settle_charge(obj);
}

// Rule dfs.upsert: a same-size Upsert reuses the object's COMPLETE replicas
// (what preempting its write leaves); where the request or they involve
// DFS, it must ask for exactly their memory, NoF and DFS counts.
bool Model::same_dfs_topology(const Op& op, const Object& obj) {
  uint32_t memory = 0, nof = 0, dfs = 0;
  for (const Replica& r : obj.replicas) {
    if (r.status != ReplicaStatus::Complete) continue;
    memory += r.kind == ReplicaKind::Memory;
    nof += r.kind == ReplicaKind::Nof;
    dfs += r.kind == ReplicaKind::Dfs;
  }
  if (op.dfs_replicas == 0 && dfs == 0) return true;
  hits_.hit(Rule::DfsUpsert);
  return op.memory_replicas == memory && op.nof_replicas == nof && op.dfs_replicas == dfs;
}

// Case B, in place: every COMPLETE replica becomes PROCESSING and eligible;
// the committed deadline is untouched until End.
void Model::upsert_in_place(const Op& op, Object& obj, const Resolved& req, Time now) {
  hits_.hit(Rule::UpsertInPlace);
  if (obj.hard_pinned || op.hard_pin) hits_.hit(Rule::HardPinKept);
  // The disk copy holds the old value and no End names it: it goes (rule local.offload).
  erase_if(obj.replicas, [&](const Replica& r) {
    if (r.kind == ReplicaKind::LocalDisk) hits_.hit(Rule::LocalOffload);
    return r.kind == ReplicaKind::LocalDisk;
  });
  Pending p{req.action, req.ttl_ms, {}};
  for (Replica& r : obj.replicas) {
    r.status = ReplicaStatus::Processing;
    p.eligible.push_back(r.id);
  }
  obj.pending = std::move(p);
  obj.client = op.client;
  obj.put_start_time = now;
  obj.processing = true;
}

Outcome Model::upsert_start_once(const Op& op, Time now) {
  Resolved req{};
  if (auto err = validate_start(op, &req)) return Outcome::of(*err);
  if (auto err = check_registered(op.object.tenant)) return Outcome::of(*err);
  Replicas placed;
  auto it = find_object(op.object);
  if (!it) {
    if (auto err = admit(op, 0, &placed)) return Outcome::of(*err);
    create_object(op, op.group, req, std::move(placed), std::nullopt, now, op.hard_pin);
    return Outcome{};
  }
  Object& obj = it->second;
  // Group membership cannot change.
  if (sends_group(op) && op.group != obj.group) {
    if (op.group == 0) hits_.hit(Rule::GroupIdsShape);  // an explicit empty id is a group too
    return Outcome::of(ErrorCode::INVALID_PARAMS);
  }
  if (obj.task) {  // a copy reads the object's replicas (rule copy.blocks)
    hits_.hit(Rule::CopyBlocks);
    return Outcome::of(ErrorCode::OBJECT_HAS_REPLICATION_TASK);
  }
  if (auto err = local_disk_refuses(obj)) return Outcome::of(*err);  // rule local.blocks
  // Case A: a preempted write with nothing COMPLETE is replaced (group from
  // the request); Case B: same size, in place; Case C: size change, replaced
  // (same group). Both replacements carry an unexpired deadline.
  const bool case_a = obj.processing && !obj.any_complete();
  const bool in_place = !case_a && op.size == obj.size;
  if (in_place && !same_dfs_topology(op, obj)) return Outcome::of(ErrorCode::INVALID_PARAMS);
  if (!in_place)
    if (auto err = admit_replacement(op, obj, !case_a, &placed)) return Outcome::of(*err);
  if (obj.offload) hits_.hit(Rule::LocalBlocks);
  obj.offload.reset();  // still queued (rule local.blocks): the Upsert cancels it
  if (obj.processing) preempt(op.object, obj, now);
  if (in_place) {
    upsert_in_place(op, obj, req, now);
    return Outcome{};
  }
  hits_.hit(case_a ? Rule::UpsertAfterPreempt : Rule::UpsertReplace);
  const std::optional<Time> carried = carry_unexpired(obj, now, hits_);
  const GroupId group = case_a ? op.group : obj.group;
  // Hard pin: Case A takes the request's; Case C keeps the old one, ORed with
  // the request's (Case B, in place, ignores the request: it was set at creation).
  const bool hard = op.hard_pin || (!case_a && obj.hard_pinned);
  if (!case_a && obj.hard_pinned) hits_.hit(Rule::HardPinKept);
  const uint64_t replaced_charge = case_a ? 0 : obj.charged_bytes();  // Case C: charged until settle
  discard_replicas(op.object, obj, obj.replicas.begin(),
                   saturating_deadline(now, config_.put_start_release_timeout_ms));
  erase_object(it);
  create_object(op, group, req, std::move(placed), carried, now, hard);
  if (config_.multi_tenant) find_object(op.object)->second.replaced_charge = replaced_charge;
  return Outcome{};
}

// CommitPendingSoftPin (RFC 3028 "Object state model", rules 1, 2, 5-8).
void Model::commit_pending(ObjectId id, Object& obj, Time now) {
  hits_.hit(Rule::Rfc1);
  const Pending p = std::move(*obj.pending);
  obj.pending.reset();
  if (obj.deadline && now >= *obj.deadline) {
    hits_.hit(Rule::Rfc4);  // a stale deadline is dropped first
    set_deadline(id, obj, std::nullopt);
  }
  switch (p.action) {
    case SoftPinAction::Preserve:
      hits_.hit(Rule::Rfc7);
      break;
    case SoftPinAction::Enable:
      if (p.ttl_ms == 0) {
        hits_.hit(Rule::Rfc8);  // RFC 3028 rule 8: TTL 0 = ordinary cache
        set_deadline(id, obj, std::nullopt);
      } else {
        hits_.hit(Rule::Rfc2);  // RFC 3028 rule 2: completion time + ttl
        if (obj.deadline) hits_.hit(Rule::Rfc5);  // rule 5: a new lifetime
        const Time d = saturating_deadline(now, p.ttl_ms);
        if (d == kTimeMax) hits_.hit(Rule::SatC2);
        set_deadline(id, obj, d);
      }
      break;
    case SoftPinAction::Disable:
      hits_.hit(Rule::Rfc6);  // RFC 3028 rule 6
      set_deadline(id, obj, std::nullopt);
      break;
  }
}

// PutEnd / UpsertEnd (RFC 3028 "Object state model": commit at the first COMPLETE replica).
Outcome Model::end(const Op& op, Time now) {
  auto it = find_object(op.object);
  if (!it) return Outcome::of(ErrorCode::OBJECT_NOT_FOUND);
  Object& obj = it->second;
  if (obj.client != op.client) return Outcome::of(ErrorCode::ILLEGAL_CLIENT);
  if (!obj.processing) {
    // Idempotent retry: OK when at least one replica is targeted and every
    // targeted replica is already COMPLETE; nothing changes, not even the lease.
    bool targeted = false;
    for (const Replica& r : obj.replicas) {
      if (!selected(op.selector, r.kind) || r.copy) continue;  // rule copy.targets
      targeted = true;
      if (r.status != ReplicaStatus::Complete) return Outcome::of(ErrorCode::INVALID_WRITE);
    }
    if (!targeted) return Outcome::of(ErrorCode::INVALID_WRITE);
    hits_.hit(Rule::NoCommitLaterEnd);
    return Outcome{};
  }
  const bool was_complete = obj.any_complete();
  bool completed_eligible = false, completed_any = false;
  for (Replica& r : obj.replicas) {
    if (!selected(op.selector, r.kind) || r.status != ReplicaStatus::Processing) continue;
    if (r.copy) {  // a copy's target is its own (rule copy.targets)
      hits_.hit(Rule::CopyTargets);
      continue;
    }
    r.status = ReplicaStatus::Complete;
    completed_any = true;
    if (obj.pending && obj.pending->is_eligible(r.id)) completed_eligible = true;
  }
  // RFC 3028 rule 1: commit only on the zero-to-one change, via the current write.
  if (!was_complete && completed_eligible && obj.any_complete()) {
    commit_pending(op.object, obj, now);
  } else if (was_complete && completed_any) {
    hits_.hit(Rule::NoCommitLaterEnd);  // a later End never refreshes
  }
  obj.lease = std::max(obj.lease, now);  // GrantReadLease(0)
  if (obj.write_complete()) obj.processing = false;
  // The End declares the value's checksum, or that it has none; a disk End
  // or DFS End acknowledges the value already written, so it leaves the
  // checksum there unless it declares one (rule read.checksum).
  if (op.checksum || (op.selector != ReplicaSelector::Disk && op.selector != ReplicaSelector::Dfs)) {
    if (obj.checksum || op.checksum) hits_.hit(Rule::ReadChecksum);
    obj.checksum = op.checksum;
  }
  settle_charge(obj);
  queue_offload(op, obj, now);  // rule local.offload
  return Outcome{};
}

// PutRevoke / UpsertRevoke (RFC 3028 "Revoke, preemption, and processing cleanup").
Outcome Model::revoke(const Op& op, Time) {
  auto it = find_object(op.object);
  if (!it) return Outcome::of(ErrorCode::OBJECT_NOT_FOUND);
  Object& obj = it->second;
  if (obj.client != op.client) return Outcome::of(ErrorCode::ILLEGAL_CLIENT);
  if (!obj.processing) return Outcome::of(ErrorCode::INVALID_WRITE);
  for (const Replica& r : obj.replicas)
    if (selected(op.selector, r.kind) && !r.copy && r.status != ReplicaStatus::Processing)
      return Outcome::of(ErrorCode::INVALID_WRITE);
  auto kept = obj.replicas.stable_partition([&](const Replica& r) {
    if (r.copy && selected(op.selector, r.kind)) hits_.hit(Rule::CopyTargets);
    return r.copy || !selected(op.selector, r.kind);
  });
  remove_logged(op.object, obj, kept);
  // ClearPendingSoftPinIfNoViableReplica: keep Pending only while an eligible
  // PROCESSING replica remains (RFC 3028 Revoke).
  if (obj.pending) {
    const bool viable = std::any_of(obj.replicas.begin(), obj.replicas.end(), [&](const Replica& r) {
      return r.status == ReplicaStatus::Processing && obj.pending->is_eligible(r.id);
    });
    hits_.hit(viable ? Rule::PendingKept : Rule::PendingCleared);
    if (!viable) obj.pending.reset();
  }
  if (obj.replicas.empty()) {
    remove_logged(it);  // nothing valid remains: the object goes, -1 if pinned
    return Outcome{};
  }
  if (obj.write_complete()) obj.processing = false;
  const uint64_t settling = obj.charged_bytes();
  settle_charge(obj);
  // The Revoke's durable callback settles its charge (rule log.window).
  hold_charge(op.object, obj.size, settling - std::min(settling, obj.charged_bytes()));
  return Outcome{};
}

}  // namespace pinsim
