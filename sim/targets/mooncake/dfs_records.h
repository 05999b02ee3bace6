// The DFS allocator's live records, for View::dfs_slots_used: one record
// per DFS allocation not freed (DfsGlobalAllocator's shards'
// offset_to_handle). The allocator has no getter for them and befriends no
// one, so its shards are reached through a member pointer of
// private_member.h. Include it from the adapter only.
#pragma once

#if PINSIM_MC_HAS_DFS
#include <cstdint>
#include <mutex>
#include <shared_mutex>

#include "private_member.h"
#include "storage/distributed/dfs_global_allocator.h"

namespace pinsim::mooncake_private {
struct DfsShardsTag {};
auto member(DfsShardsTag);
template struct Expose<DfsShardsTag, &mooncake::DfsGlobalAllocator::shards_>;
}  // namespace pinsim::mooncake_private

namespace pinsim::mooncake_dfs {

// The records of every shard, each read under its handle lock (shared):
// Allocate adds a record and Free erases one under that lock (exclusive).
inline uint64_t live_records(const mooncake::DfsGlobalAllocator& allocator) {
  uint64_t records = 0;
  for (const auto& shard : allocator.*member(mooncake_private::DfsShardsTag{})) {
    if (!shard) continue;
    const std::shared_lock lock(shard->handle_mutex);
    records += shard->offset_to_handle.size();
  }
  return records;
}

}  // namespace pinsim::mooncake_dfs
#endif
