// Copies of an object's replica (Mooncake's CopyStart, CopyEnd, CopyRevoke):
// a replication task per object. RFC 3028 states one thing about them: a copy
// is not a soft-pin activation point and extends no deadline (Summary;
// Non-goals), rule copy.no-pin. The rest is what a client of a replication
// task expects (docs/interpretations.md, "Copies"): the copy writes new
// replicas that only its own End or Revoke settle (copy.targets), it keeps
// its object and source in place while it runs (copy.blocks), and a refused
// copy changes nothing.
#include "model.h"

namespace pinsim {

namespace {

// The copy's targets to the end of obj.replicas; returns the first of them.
Replicas::iterator targets_last(Object& obj) {
  return obj.replicas.stable_partition([](const Replica& r) { return !r.copy; });
}

bool on_segment(const Object& obj, uint32_t segment) {
  return std::any_of(obj.replicas.begin(), obj.replicas.end(), [&](const Replica& r) { return r.segment == segment; });
}

}  // namespace

// The targets must be memory segments that take replicas: an unknown or
// unmounted one is SEGMENT_NOT_FOUND, a leaving one UNAVAILABLE_IN_CURRENT_STATUS.
std::optional<ErrorCode> Model::copy_targets_refused(const std::vector<uint32_t>& targets) const {
  for (uint32_t s : targets) {
    if (s >= segments_.size() || !segments_[s].mounted || config_.segments[s].kind != ReplicaKind::Memory)
      return ErrorCode::SEGMENT_NOT_FOUND;
    if (segments_[s].leaving) return ErrorCode::UNAVAILABLE_IN_CURRENT_STATUS;
  }
  return std::nullopt;
}

// What a copy op sends (rule dynrep.copy). With a proposal: the client's
// token for it (grant, version, source, target), sent by the client of the
// source segment, to whom the master gives the copy; with no token for it,
// the op's own source and targets and a token no grant made. Without one:
// the op's client, source and targets, and no token.
Model::CopyRequest Model::copy_request(const Op& op) const {
  CopyRequest req{op.client, op.segment, op.targets, 0, 0, op.proposal.has_value()};
  if (!req.dynamic) return req;
  auto token = granted_.find({op.object.tenant, *op.proposal});
  if (token == granted_.end()) {
    req.grant = kNoGrant;
    return req;
  }
  const Lease& l = token->second;
  const ClientId client = segments_[l.source].mounted ? segments_[l.source].owner : op.client;  // no owner: the op's
  return CopyRequest{client, l.source, {l.target}, l.grant, l.epoch, true};
}

const Replica* Model::copy_source(const Object& obj, uint32_t segment) const {
  for (const Replica& r : obj.replicas)
    if (r.segment == segment && r.complete_memory()) return &r;
  return nullptr;
}

// The checks of copy.start after the object's and its task's: a dynamic
// copy's targets, then source, charge and room.
std::optional<ErrorCode> Model::copy_refused(const CopyRequest& req, const Object& obj,
                                             const std::vector<uint32_t>& fresh, TenantId tenant) {
  if (req.dynamic) {
    if (fresh.empty()) return ErrorCode::OBJECT_ALREADY_EXISTS;
    if (auto err = copy_targets_refused(req.targets)) return err;
  }
  if (!copy_source(obj, req.source)) return ErrorCode::REPLICA_NOT_FOUND;
  if (auto err = charge_admits(tenant, obj.size * fresh.size(), 0)) return err;
  for (uint32_t s : fresh)
    if (config_.segments[s].capacity - segment_used_[s] < obj.size) return ErrorCode::NO_AVAILABLE_HANDLE;
  return std::nullopt;
}

// Rule copy.start: checked in full before anything changes, except that a
// dynamic copy refused once its token checked out ends its lease.
Outcome Model::copy_start(const Op& op, Time now) {
  if (auto err = check_registered(op.object.tenant)) return Outcome::of(*err);
  const CopyRequest req = copy_request(op);
  if (!req.dynamic)
    if (auto err = copy_targets_refused(req.targets)) return Outcome::of(*err);
  auto* it = find_object(op.object);
  if (!it) return Outcome::of(ErrorCode::OBJECT_NOT_FOUND);
  Object& obj = it->second;
  hits_.hit(Rule::CopyStart);
  if (obj.task) return Outcome::of(ErrorCode::OBJECT_HAS_REPLICATION_TASK);
  std::vector<uint32_t> fresh;  // targets without a replica of the object
  for (uint32_t s : req.targets)
    if (!on_segment(obj, s)) fresh.push_back(s);
  if (req.dynamic) {
    if (auto err = dynamic_start_refused(op, req, obj, now)) return Outcome::of(*err);
  } else if (pending_live(op.object, now)) {
    return Outcome::of(ErrorCode::OBJECT_HAS_REPLICATION_TASK);
  }
  if (auto err = copy_refused(req, obj, fresh, op.object.tenant)) {
    if (*err == ErrorCode::TENANT_QUOTA_EXCEEDED) ++quota_rejections_;  // rule tenant.quota's count
    if (req.dynamic) clear_dynamic_state(op.object);
    return Outcome::of(*err);
  }
  obj.task = CopyTask{req.client, copy_source(obj, req.source)->id, now, static_cast<uint32_t>(fresh.size()),
                      req.grant, req.epoch};
  for (uint32_t s : fresh) {
    Replica r{.id = next_replica_id_++, .segment = s, .kind = ReplicaKind::Memory,
              .status = ReplicaStatus::Processing, .copy = true, .dynamic = req.dynamic};
    hold_replica(r, obj.size);
    obj.replicas.push_back(r);
  }
  if (req.dynamic) {
    dyn_pending_.erase(op.object);
    hits_.hit(Rule::DynCopy);
  }
  if (obj.deadline || obj.pending) hits_.hit(Rule::CopyNoPin);
  return Outcome{};
}

// The owner's End or Revoke of the copy under way: the object and its task,
// or the refusal.
// A copy's End and Revoke send the token the copy started with (none for a
// plain copy): another is INVALID_VERSION (rule dynrep.copy).
std::variant<ObjectTable::Entry*, ErrorCode> Model::copy_owned(const Op& op) {
  auto* it = find_object(op.object);
  if (!it) return ErrorCode::OBJECT_NOT_FOUND;
  if (!it->second.task) return ErrorCode::OBJECT_NO_REPLICATION_TASK;
  const CopyRequest req = copy_request(op);
  const CopyTask& task = *it->second.task;
  if (task.owner != req.client) return ErrorCode::ILLEGAL_CLIENT;
  if (task.grant != req.grant || task.epoch != req.epoch) return ErrorCode::INVALID_VERSION;
  return it;
}

// Rule copy.end: the targets left become the object's own COMPLETE replicas.
// A source lost meanwhile (its segment unmounted) fails the copy: its targets go.
Outcome Model::copy_end(const Op& op) {
  auto owned = copy_owned(op);
  if (auto* err = std::get_if<ErrorCode>(&owned)) return Outcome::of(*err);
  auto* it = std::get<ObjectTable::Entry*>(owned);
  Object& obj = it->second;
  hits_.hit(Rule::CopyEnd);
  const Replica* source = obj.find_replica(obj.task->source);
  if (!source || source->status != ReplicaStatus::Complete) {
    end_copy(it, false);
    return Outcome::of(ErrorCode::REPLICA_IS_GONE);
  }
  const auto left = std::count_if(obj.replicas.begin(), obj.replicas.end(), [](const Replica& r) { return r.copy; });
  const bool all_left = static_cast<uint32_t>(left) == obj.task->targets;
  if (obj.deadline || obj.pending) hits_.hit(Rule::CopyNoPin);
  end_copy(it, true);
  return all_left ? Outcome{} : Outcome::of(ErrorCode::REPLICA_IS_GONE);
}

Outcome Model::copy_revoke(const Op& op) {
  auto owned = copy_owned(op);
  if (auto* err = std::get_if<ErrorCode>(&owned)) return Outcome::of(*err);
  hits_.hit(Rule::CopyEnd);
  end_copy(std::get<ObjectTable::Entry*>(owned), false);
  return Outcome{};
}

// Ends the copy on `it`: its targets become COMPLETE replicas (`keep`) or
// are freed at once; the object goes when no replica is left.
void Model::end_copy(ObjectTable::Entry* it, bool keep) {
  Object& obj = it->second;
  obj.task.reset();
  clear_dynamic_state(it->first);
  if (keep) {
    for (Replica& r : obj.replicas)
      if (r.copy) {
        r.status = ReplicaStatus::Complete;
        r.copy = false;
      }
    return;
  }
  free_replicas(it->first, obj, targets_last(obj));
  if (obj.replicas.empty()) erase_object(it);
}

// Rule copy.expiry: a copy not ended within the release timeout is
// discarded: its targets' memory is held until then, as an expired write's is.
void Model::discard_expired_copy_of(ObjectId id, Time now) {
  auto* it = find_object(id);
  if (!it || !copy_expired(it->second, now)) return;
  Object& obj = it->second;
  const Time expiry = saturating_deadline(obj.task->start, config_.put_start_release_timeout_ms);
  hits_.hit(Rule::CopyExpiry);
  obj.task.reset();
  discard_logged(id, obj, targets_last(obj), expiry, false);  // when the log knows the object (rule log.window)
  if (obj.replicas.empty()) erase_object(it);
}

}  // namespace pinsim
