// How the Mooncake target turns Mooncake's DFS replicas on. MasterService
// reads its DFS settings from the process environment, in its constructor
// only (InitDfsAllocatorFromEnvironment), so the adapter sets them around the
// construction of a DFS configuration's master and restores the environment
// right after: a master built meanwhile gets DFS, any other never does. The
// settings make the allocator hold exactly Config::dfs_slots DFS replicas,
// whatever their sizes (README.md, "DFS replicas").
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config.h"

namespace pinsim::mooncake_dfs {

// One allocator shard of `shard_capacity` bytes at `alignment` A: a DFS
// replica of s <= A bytes takes normalizedAllocationSize(roundup(s, A) +
// A - 1) = 2A bytes, so dfs_slots x 2A bytes hold exactly dfs_slots of them.
// A is the smallest power of two (at least 4096) no smaller than the largest
// memory segment: a larger object fails at memory placement, before the DFS
// allocation. All zero when the configuration has no DFS.
struct Settings {
  uint64_t alignment = 0;
  uint64_t shard_capacity = 0;
  bool operator==(const Settings&) const = default;
};

// The settings for `config`; nullopt when its slots do not fit in a shard
// (a capacity beyond 2^62 bytes).
std::optional<Settings> settings(const Config& config);

// While alive, the environment MasterService's constructor reads: DFS on
// with `settings` (the posix adapter, one shard, no DFS eviction, frees
// reusable at once) in a directory of its own under the temporary directory
// (pinsim-dfs-<process id>-<n>, which the allocator creates), or, for
// all-zero settings, DFS off (MOONCAKE_ENABLE_DFS=0, whatever the caller's
// environment says). The destructor restores every variable it set and
// removes the directory: the allocator only creates and sizes its shard file
// when it starts, and the master never opens it again. The first one of a
// process also removes the directories of processes that no longer run.
class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(const Settings& settings);
  ~ScopedEnvironment();
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

  // Why no directory could be named ("" when one was, or DFS is off).
  const std::string& error() const { return error_; }
  // The directory the allocator starts in ("" when DFS is off).
  const std::string& root() const { return root_; }

 private:
  void set(const char* name, const std::string& value);

  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;  // name, value before
  std::string root_;
  std::string error_;
};

}  // namespace pinsim::mooncake_dfs
