// Hashing and shard placement for the embedded master's keys. A grouped
// object lives in its group's shard (Mooncake's getShardIndex(group_id), no
// tenant in the hash); an ungrouped one in the shard of (tenant, key).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>

#include "op.h"

namespace pinsim::embedded {

// 32, not Mooncake's 1024: eviction and View hold every shard lock at once, and
// ThreadSanitizer tracks at most 64 locks held by one thread.
inline constexpr size_t kShardCount = 32;

using GroupKey = std::pair<TenantId, GroupId>;

inline uint64_t mix(uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct ObjectIdHash {
  size_t operator()(const ObjectId& id) const {
    return static_cast<size_t>(mix((static_cast<uint64_t>(id.tenant) << 32) | id.key));
  }
};

inline size_t shard_of_group(GroupId g) { return static_cast<size_t>(mix(0x6700000000ull | g) % kShardCount); }
inline size_t shard_of_key(ObjectId id) { return ObjectIdHash{}(id) % kShardCount; }
// GetMetadataShardIndex: the group shard when grouped, else the key's shard.
inline size_t home_shard(ObjectId id, GroupId group) {
  return group != 0 ? shard_of_group(group) : shard_of_key(id);
}

}  // namespace pinsim::embedded
