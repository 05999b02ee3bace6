// One metadata shard, as Mooncake's MetadataShard with its TenantStates: the
// objects homed here, the group membership and lease-refresh marks of groups
// homed here, (PR 2835) their retention deadlines, and the dynamic
// replication state of the keys homed here (a key's pending lease and its
// proposal cooldown; the leases by proposal id are the master's, per tenant:
// embedded_master.h). Guarded by its own
// std::shared_mutex; Mooncake's lock order puts shards after the snapshot
// mutex and before the allocator and the deadline index.
#pragma once
#include <map>
#include <memory>
#include <set>
#include <shared_mutex>

#include "keys.h"
#include "object_metadata.h"

namespace pinsim::embedded {

// A dynamic-replication lease (Mooncake's ReplicaActionLease, and the
// DynamicReplicaPending a grant leaves for the key): the copy it allows, of
// `source` to `target`, for the object version it names, until `expire`.
struct DynamicLease {
  ObjectId object{};
  uint64_t id = 0;         // lease_id: unique per grant
  uint32_t source = 0;     // segment indices
  uint32_t target = 0;
  Time version_epoch = 0;  // the object's put_start_time at the grant
  Time expire = 0;         // live while now <= expire
};

struct Shard {
  mutable std::shared_mutex mutex;
  std::map<ObjectId, std::unique_ptr<ObjectMetadata>> objects;
  std::map<GroupKey, std::set<KeyId>> group_members;
  std::set<GroupKey> dirty_groups;     // groups_needing_lease_refresh_
  std::map<GroupKey, Time> retention;  // TenantState::group_retention_deadlines
  std::map<ObjectId, DynamicLease> dynamic_pending;  // TenantState::dynamic_replication_pending
  std::map<ObjectId, Time> dynamic_cooldowns;        // TenantState::dynamic_replication_cooldowns
};

}  // namespace pinsim::embedded
