// The DFS allocator's live records, for View::dfs_slots_used: one record
// per DFS allocation not freed (DfsGlobalAllocator's shards'
// offset_to_handle). The allocator has no getter for them and befriends no
// one, so its shards are reached through the member pointer an explicit
// instantiation may name (access checks do not apply to the names in an
// explicit instantiation; the friend function it defines hands the pointer
// out), as unexported_metrics.h reads the metrics without getters. Nothing
// of Mooncake's is changed or copied. Include it from the adapter only.
#pragma once

#if PINSIM_MC_HAS_DFS
#include <cstdint>
#include <mutex>
#include <shared_mutex>

#include "storage/distributed/dfs_global_allocator.h"

namespace pinsim::mooncake_dfs {

template <class Tag, auto M>
struct Expose {
  friend auto member(Tag) { return M; }
};

struct ShardsTag {};
auto member(ShardsTag);
template struct Expose<ShardsTag, &mooncake::DfsGlobalAllocator::shards_>;

// The records of every shard, each read under its handle lock (shared):
// Allocate adds a record and Free erases one under that lock (exclusive).
inline uint64_t live_records(const mooncake::DfsGlobalAllocator& allocator) {
  uint64_t records = 0;
  for (const auto& shard : allocator.*member(ShardsTag{})) {
    if (!shard) continue;
    const std::shared_lock lock(shard->handle_mutex);
    records += shard->offset_to_handle.size();
  }
  return records;
}

}  // namespace pinsim::mooncake_dfs
#endif
