// Failover to a standby in HA-OpLog mode (rules failover.*;
// docs/interpretations.md, "Failover"). The primary is lost; a standby that
// has read the whole durable operation log becomes the primary, and every
// client mounts its segments on it again. What a client committed survives
// it; nothing in flight does:
// - an object with a committed value (a COMPLETE replica) keeps it, with its
//   size, writer, group, hard pin and checksum, and the replicas its write
//   has not completed yet (PROCESSING, as the End that committed it left
//   them: a later End completes them, the reaper discards them once the
//   release timeout passes from the failover); an object with no COMPLETE
//   replica (a first write in flight, or a value an upsert is rewriting) is gone;
// - Pending write intent, copies (their targets too) and the discarded
//   replicas' held memory are not durable, nor is the retention table (PR
//   2835 rule 9);
// - the soft pin follows RFC 3028 "Snapshot and HA semantics" as a restore
//   does (the committed deadline, an expired one normalised; the
//   `mooncake-main` profile: ordinary cache, profile.cpp);
// - each survivor's read lease is granted afresh at the remount (no lease is
//   in the log, so none can be restored); no lease-based discard applies;
// - the segments mounted stay mounted; one leaving goes now (its grace timer
//   was the old master's), as at a restore.
// Outside the mode there is no standby: UNAVAILABLE_IN_CURRENT_MODE, nothing changes.
#include "model.h"

namespace pinsim {

Outcome Model::failover(Time now) {
  if (!config_.ha_oplog) {
    hits_.hit(Rule::FailoverNoStandby);
    return Outcome::of(ErrorCode::UNAVAILABLE_IN_CURRENT_MODE);
  }
  hits_.hit(Rule::FailoverStandby);
  catch_up_log();  // the standby reads the whole log: a lagging one catches up first (rule log.catch-up)
  std::map<ObjectId, Object> saved;
  for (const auto& [id, obj] : objects_) saved.emplace_hint(saved.end(), id, obj);
  reset_for_restore();
  for (const auto& [id, obj] : saved) reinstate_committed(id, obj, now);
  restore_leaving();
  return Outcome{};
}

// One object as the promoted master has it (failover.standby), if it has a
// committed value (a COMPLETE replica).
void Model::reinstate_committed(ObjectId id, const Object& saved, Time now) {
  Object obj;
  obj.client = saved.client;
  obj.size = saved.size;
  obj.group = saved.group;
  obj.hard_pinned = saved.hard_pinned;
  obj.checksum = saved.checksum;
  for (Replica r : saved.replicas) {
    if (r.copy) continue;  // a copy's target: the task is not durable (rule copy.expiry)
    r.dynamic = false;     // nor which replicas dynamic copies made (dynrep.cooldown)
    obj.replicas.push_back(r);
  }
  if (std::none_of(obj.replicas.begin(), obj.replicas.end(),
                   [](const Replica& r) { return r.status == ReplicaStatus::Complete; }))
    return;
  obj.processing = !obj.write_complete();  // what is left of its write is reaped from now on
  obj.lease = saturating_deadline(now, config_.default_kv_lease_ttl_ms);
  obj.put_start_time = now;
  std::optional<Time> deadline;
  if (rules_for(config_.profile).snapshot_keeps_soft_pin && saved.deadline && *saved.deadline > now)
    deadline = saved.deadline;
  for (const Replica& r : obj.replicas) hold_replica(r, obj.size);
  if (obj.group != 0) {  // a member registered again: its group is dirty, as at a write or a restore
    group_members_[{id.tenant, obj.group}].insert(id.key);
    groups_needing_refresh_.insert({id.tenant, obj.group});
  }
  Object& stored = insert_object(id, std::move(obj));
  set_deadline(id, stored, deadline);
}

}  // namespace pinsim
