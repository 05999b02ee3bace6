// The embedded master's reads and removal (RFC 3028 rules 3 and 10, "Read and
// eviction paths"): reads grant only the read lease (and the coalesced group
// refresh) and, with dynamic replication, count a hit of the key's heat
// (dynamic_replication.cpp); removal is never blocked by a soft pin.
#include "embedded_master.h"

#include <algorithm>
#include <set>

namespace pinsim::embedded {

// GrantReadLease plus, for a grouped key, GrantLeaseForGroup: every member
// (PROCESSING included; all homed in this shard) is refreshed when the key's
// lease is within ttl/2 of expiring or the group is dirty; otherwise nothing.
void EmbeddedMaster::grant_read_lease(ObjectId id, size_t shard, ObjectMetadata& md, Time now) {
  const uint64_t ttl = config_.default_kv_lease_ttl_ms;
  const Time granted = saturating_deadline(now, ttl);
  if (md.group == 0) {
    grant_lease(id, shard, md, granted, now);
    return;
  }
  Shard& s = shards_[shard];
  const GroupKey g{id.tenant, md.group};
  const bool near_expiry = md.lease <= saturating_deadline(now, ttl / 2);
  auto dirty = s.dirty_groups.find(g);
  if (!near_expiry && dirty == s.dirty_groups.end()) return;
  grant_lease(id, shard, md, granted, now);
  if (auto members = s.group_members.find(g); members != s.group_members.end()) {
    for (KeyId k : members->second) {
      const ObjectId member{id.tenant, k};
      grant_lease(member, shard, *find_in(shard, member), granted, now);
    }
  }
  if (dirty != s.dirty_groups.end()) s.dirty_groups.erase(dirty);
}

// The read-hit metrics (GetReplicaList's): the object's bytes count as a
// memory hit when a completed memory replica serves the read, else as a disk
// (file) hit when a completed disk replica does, and the read as one such
// hit; every successful read counts
// as served (the valid-get metric).
void EmbeddedMaster::count_hit(const ObjectMetadata& md) {
  reads_served_.fetch_add(1);
  const auto complete = [&](ReplicaKind kind) {
    return std::any_of(md.replicas.begin(), md.replicas.end(),
                       [&](const Replica& r) { return r.kind == kind && r.status == ReplicaStatus::Complete; });
  };
  const bool disk = complete(ReplicaKind::Disk) || complete(ReplicaKind::LocalDisk);  // a file either way
  if (complete(ReplicaKind::Memory) || (disk && faults_.f22_disk_hit_counted_as_memory)) {
    memory_hit_bytes_.fetch_add(md.size);
    memory_hits_.fetch_add(1);
  } else if (disk) {
    disk_hit_bytes_.fetch_add(md.size);
    disk_hits_.fetch_add(1);
  }
}

Outcome EmbeddedMaster::get(const Op& op, Time now, std::set<ObjectId>* batch_seen) {
  ShardLock lock;
  const size_t shard = lock_home_shard(op.object, &lock);
  ObjectMetadata* md = find_in(shard, op.object);
  if (!md) return Outcome::of(ErrorCode::OBJECT_NOT_FOUND);
  uint32_t readable = 0;
  for (const Replica& r : md->replicas) readable += r.status == ReplicaStatus::Complete;
  if (readable == 0) return Outcome::of(ErrorCode::REPLICA_IS_NOT_READY);
  grant_read_lease(op.object, shard, *md, now);
  count_hit(*md);
  // The hit of the key's heat, one per key per batch: Mooncake counts it once
  // the shard lock is released; here under it, so that a read and its hit
  // are one step to a concurrent proposal (rule dynrep.heat).
  if (heat_observed(*md) && (!batch_seen || batch_seen->insert(op.object).second)) observe_heat(op.object, now);
  queue_promotion(*md, now);  // promotion on a hit (local_disk.cpp, rule local.promote)
  Outcome out;
  out.replicas = readable;
  out.checksum = md->checksum;
  return out;
}

Outcome EmbeddedMaster::exist(const Op& op, Time now) {
  ShardLock lock;
  const size_t shard = lock_home_shard(op.object, &lock);
  ObjectMetadata* md = find_in(shard, op.object);
  Outcome out;
  out.exists = md && md->any_complete();
  if (*out.exists) grant_read_lease(op.object, shard, *md, now);
  return out;
}

Outcome EmbeddedMaster::remove(const Op& op, Time now) {
  ShardLock lock;
  const size_t shard = lock_home_shard(op.object, &lock);
  ObjectMetadata* md = find_in(shard, op.object);
  if (!md) return Outcome::of(ErrorCode::OBJECT_NOT_FOUND);
  if (!op.force && now < md->lease) return Outcome::of(ErrorCode::OBJECT_HAS_LEASE);
  if (!md->all_complete()) return Outcome::of(ErrorCode::REPLICA_IS_NOT_READY);
  if (md->task) return Outcome::of(ErrorCode::OBJECT_HAS_REPLICATION_TASK);  // a copy reads it
  erase_object(shard, op.object);
  return Outcome{};
}

// RemoveAll(tenant, force): shard by shard, every COMPLETE object of the
// tenant whose lease expired (or any, forced) and that no copy reads is
// erased. RemoveByRegex: the same, for the keys the pattern matches.
Outcome EmbeddedMaster::remove_all(const Op& op, Time now) {
  AllShards all = lock_all_shards();
  const std::set<KeyId> matched(op.keys.begin(), op.keys.end());
  const bool by_regex = op.kind == OpKind::RemoveByRegex;
  uint64_t removed = 0;
  for (size_t shard = 0; shard < shards_.size(); ++shard) {
    std::vector<ObjectId> gone;
    for (const auto& [id, md] : shards_[shard].objects)
      if (id.tenant == op.object.tenant && (!by_regex || matched.count(id.key)) &&
          (op.force || now >= md->lease) && md->all_complete() && !md->task)
        gone.push_back(id);
    for (ObjectId id : gone) erase_object(shard, id);
    removed += gone.size();
  }
  Outcome out;
  out.removed = removed;
  return out;
}

}  // namespace pinsim::embedded
