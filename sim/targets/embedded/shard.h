// One metadata shard, as Mooncake's MetadataShard with its TenantStates: the
// objects homed here, the group membership and lease-refresh marks of groups
// homed here, and (PR 2835) their retention deadlines. Guarded by its own
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

struct Shard {
  mutable std::shared_mutex mutex;
  std::map<ObjectId, std::unique_ptr<ObjectMetadata>> objects;
  std::map<GroupKey, std::set<KeyId>> group_members;
  std::set<GroupKey> dirty_groups;     // groups_needing_lease_refresh_
  std::map<GroupKey, Time> retention;  // TenantState::group_retention_deadlines
};

}  // namespace pinsim::embedded
