// Reads and removal. Reads grant only the ordinary read lease and never
// evaluate, renew or normalise a soft pin (RFC 3028 rule 3, "Read and
// eviction paths"). Removal is never blocked by a soft pin (RFC 3028 rule
// 10); a live read lease still refuses a non-forced Remove (Mooncake main
// Remove, unchanged path).
#include "model.h"

namespace pinsim {

// GrantReadLease(default_kv_lease_ttl) plus, for a grouped object, the
// coalesced GrantLeaseForGroup refresh: all members' leases are refreshed
// when the key's lease is within ttl/2 of expiring or the group is dirty.
void Model::grant_read_lease(ObjectId id, Object& obj, Time now) {
  hits_.hit(Rule::Rfc3);
  const uint64_t ttl = config_.default_kv_lease_ttl_ms;
  const Time granted = saturating_deadline(now, ttl);
  if (obj.group == 0) {
    obj.lease = std::max(obj.lease, granted);
    return;
  }
  // A grouped key with more than ttl/2 of lease left, in a group not marked
  // dirty, gets no grant at all, not even on itself.
  const GroupKey g{id.tenant, obj.group};
  const bool near_expiry = obj.lease <= saturating_deadline(now, ttl / 2);
  auto dirty = groups_needing_refresh_.find(g);
  if (!near_expiry && dirty == groups_needing_refresh_.end()) return;
  hits_.hit(Rule::GroupRefresh);
  obj.lease = std::max(obj.lease, granted);
  if (auto members = group_members_.find(g); members != group_members_.end()) {
    for (KeyId k : members->second) {  // every member, PROCESSING included
      Object& m = find_object({id.tenant, k})->second;
      m.lease = std::max(m.lease, granted);
    }
  }
  if (dirty != groups_needing_refresh_.end()) groups_needing_refresh_.erase(dirty);
}

// Rule read.hit: a read is served from memory when the object has a
// completed memory replica, else from disk when it has a completed disk
// replica (its bytes and one hit counted); a read served from NoF alone is
// neither (no metric names it).
// Every successful read counts as served, whatever served it.
void Model::count_hit(const Object& obj) {
  ++reads_served_;
  bool memory = false, disk = false;
  for (const Replica& r : obj.replicas) {
    if (r.status != ReplicaStatus::Complete) continue;
    memory |= r.kind == ReplicaKind::Memory;
    disk |= r.kind == ReplicaKind::Disk || r.kind == ReplicaKind::LocalDisk;
  }
  if (memory || disk) hits_.hit(Rule::ReadHit);
  if (memory) memory_hit_bytes_ += obj.size, ++memory_hits_;
  else if (disk) disk_hit_bytes_ += obj.size, ++disk_hits_;
}

Outcome Model::get(const Op& op, Time now) {
  auto it = find_object(op.object);
  if (!it) return Outcome::of(ErrorCode::OBJECT_NOT_FOUND);
  Object& obj = it->second;
  uint32_t readable = 0;
  for (const Replica& r : obj.replicas) readable += r.status == ReplicaStatus::Complete;
  if (readable == 0) return Outcome::of(ErrorCode::REPLICA_IS_NOT_READY);
  grant_read_lease(op.object, obj, now);
  count_hit(obj);
  observe_heat(op.object, obj, now);  // rule dynrep.heat
  queue_promotion(obj, now);          // rule local.promote
  Outcome out;
  out.replicas = readable;
  out.checksum = obj.checksum;  // rule read.checksum
  return out;
}

Outcome Model::exist(const Op& op, Time now) {
  Outcome out;
  auto it = find_object(op.object);
  out.exists = it && it->second.any_complete();
  if (*out.exists) grant_read_lease(op.object, it->second, now);
  return out;
}

Outcome Model::remove(const Op& op, Time now) {
  auto it = find_object(op.object);
  if (!it) return Outcome::of(ErrorCode::OBJECT_NOT_FOUND);
  const Object& obj = it->second;
  if (!op.force && now < obj.lease) {
    hits_.hit(Rule::RemoveLease);
    return Outcome::of(ErrorCode::OBJECT_HAS_LEASE);
  }
  if (!obj.all_complete()) return Outcome::of(ErrorCode::REPLICA_IS_NOT_READY);
  if (obj.task) {  // rule copy.blocks
    hits_.hit(Rule::CopyBlocks);
    return Outcome::of(ErrorCode::OBJECT_HAS_REPLICATION_TASK);
  }
  if (obj.deadline) hits_.hit(Rule::Rfc10);  // soft pin never blocks removal
  remove_logged(it);
  return Outcome{};
}

// RemoveAll(tenant, force): every object of the tenant whose replicas are all
// COMPLETE and whose lease has expired (any lease when forced) goes; a soft
// pin never protects (RFC 3028 rule 10). The answer is how many went. An
// object a single remove takes goes here too: one whose write lost its last
// PROCESSING replica to an unmount (rule segment.unmount) is all COMPLETE,
// though its write never ended.
// RemoveByRegex(pattern, tenant, force) does the same for the keys its
// pattern matches (rule remove.by-regex).
Outcome Model::remove_all(const Op& op, Time now) {
  std::vector<ObjectId> gone;
  for (const auto& [id, obj] : objects_)
    if (remove_all_takes(op, id, obj, now)) gone.push_back(id);
  for (ObjectId id : gone) remove_one_of_all(op, find_object(id));
  Outcome out;
  out.removed = gone.size();
  return out;
}

// Whether RemoveAll (RemoveByRegex) takes the object now.
bool Model::remove_all_takes(const Op& op, ObjectId id, const Object& obj, Time now) const {
  const bool by_regex = op.kind == OpKind::RemoveByRegex;
  const bool matches = !by_regex || std::find(op.keys.begin(), op.keys.end(), id.key) != op.keys.end();
  return id.tenant == op.object.tenant && matches && (op.force || now >= obj.lease) && obj.all_complete() &&
         !obj.task;
}

void Model::remove_one_of_all(const Op& op, ObjectTable::Entry* it) {
  if (op.kind == OpKind::RemoveByRegex) hits_.hit(Rule::RemoveByRegex);
  if (it->second.deadline) hits_.hit(Rule::Rfc10);
  remove_logged(it);
}

bool Model::remove_all_step(const Op& op, ObjectId id, Time now) {
  auto* it = find_object(id);
  if (!it || !remove_all_takes(op, id, it->second, now)) return false;
  remove_one_of_all(op, it);
  return true;
}

}  // namespace pinsim
