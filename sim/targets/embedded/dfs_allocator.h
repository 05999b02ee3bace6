// The embedded master's DFS allocator, kept apart from the replicas the way
// Mooncake's DfsGlobalAllocator is (MOONCAKE_ENABLE_DFS, one shard): it holds
// one record per allocation not freed (Mooncake's offset_to_handle, keyed by
// offset and naming its key; here keyed by the DFS replica's id) in a file of
// `slots` equal slots. Allocate adds a record while a slot is free; Free
// erases it at once (no deferred free: MOONCAKE_DFS_DEFERRED_FREE_SECONDS=0,
// as the Mooncake target runs it). View::dfs_slots_used is its record count,
// not a recount of replicas, so a DFS replica that leaves its object without
// its Free shows as a slot still held (rule dfs.slot). Guarded by the
// master's allocator mutex.
#pragma once
#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "object.h"

namespace pinsim::embedded {

class DfsAllocator {
 public:
  explicit DfsAllocator(uint32_t slots) : slots_(slots) {}

  // IsInitialized: a master with DFS.
  bool enabled() const { return slots_ > 0; }
  // Allocate for `replica`: a slot is free when the records held, less those
  // of `freed_first` (a replaced object's DFS replicas, which Mooncake frees
  // before it allocates and the caller frees right after), leave one.
  bool allocate(ReplicaId replica, const std::vector<ReplicaId>& freed_first) {
    const auto freed = std::count_if(freed_first.begin(), freed_first.end(),
                                     [this](ReplicaId id) { return records_.count(id) > 0; });
    if (records_.size() - static_cast<size_t>(freed) >= slots_) return false;
    records_.insert(replica);
    return true;
  }
  // Free: a record not held (freed already) is left alone, as Mooncake's
  // Free ignores an offset it has no record of.
  void free(ReplicaId replica) { records_.erase(replica); }
  // A record put back by a restore for a restored object's DFS replica;
  // clear() empties the allocator (a restore's reset).
  void hold(ReplicaId replica) { records_.insert(replica); }
  void clear() { records_.clear(); }
  uint64_t records() const { return records_.size(); }

 private:
  uint32_t slots_;
  std::set<ReplicaId> records_;
};

}  // namespace pinsim::embedded
