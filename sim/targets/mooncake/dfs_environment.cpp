// The DFS settings of a configuration and the environment that carries them
// to MasterService's constructor (dfs_environment.h).
#include "dfs_environment.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace pinsim::mooncake_dfs {

namespace {

constexpr uint64_t kMinAlignment = 4096;
constexpr uint64_t kMaxShardCapacity = uint64_t{1} << 62;
constexpr std::string_view kPrefix = "pinsim-dfs-";

// Removes the directories of processes that no longer run (a worker of a
// `--jobs` campaign killed while its master was being constructed), once
// per process. Nothing of a live process is touched.
void remove_stale(const std::filesystem::path& tmp) {
  static std::atomic<bool> swept{false};
  if (swept.exchange(true)) return;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(tmp, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(kPrefix)) continue;
    pid_t pid = 0;
    const char* first = name.data() + kPrefix.size();
    const auto [end, err] = std::from_chars(first, name.data() + name.size(), pid);
    if (err != std::errc() || end == first || *end != '-' || pid <= 0) continue;
    if (kill(pid, 0) == -1 && errno == ESRCH) std::filesystem::remove_all(entry.path(), ec);
  }
}

// A directory name no other process and no other master of this one uses
// (the process id and a counter). The allocator creates it when it starts,
// so that a process killed meanwhile leaves as little as it can.
std::string new_root() {
  static std::atomic<uint64_t> counter{0};
  const std::filesystem::path tmp = std::filesystem::temp_directory_path();
  remove_stale(tmp);
  const std::filesystem::path root =
      tmp / (std::string(kPrefix) + std::to_string(getpid()) + "-" + std::to_string(counter++));
  std::error_code ignored;
  std::filesystem::remove_all(root, ignored);  // a former process's of the same id
  return root.string();
}

}  // namespace

std::optional<Settings> settings(const Config& config) {
  if (config.dfs_slots == 0) return Settings{};
  uint64_t largest = 0;
  for (const SegmentConfig& s : config.segments)
    if (s.kind == ReplicaKind::Memory) largest = std::max(largest, s.capacity);
  if (largest > kMaxShardCapacity / 2) return std::nullopt;
  const uint64_t alignment = std::max(kMinAlignment, std::bit_ceil(largest));
  if (alignment > kMaxShardCapacity / 2 / config.dfs_slots) return std::nullopt;
  return Settings{alignment, uint64_t{config.dfs_slots} * 2 * alignment};
}

ScopedEnvironment::ScopedEnvironment(const Settings& settings) {
  if (settings.alignment == 0) {
    set("MOONCAKE_ENABLE_DFS", "0");  // read before its fallback MOONCAKE_DFS_ENABLED
    return;
  }
  // A directory of its own: no other master, and no other process of a
  // `--jobs` campaign, shares it.
  try {
    root_ = new_root();
  } catch (const std::filesystem::filesystem_error& e) {
    error_ = std::string("no temporary directory for Mooncake's DFS shard file: ") + e.what();
    set("MOONCAKE_ENABLE_DFS", "0");
    return;
  }
  set("MOONCAKE_ENABLE_DFS", "1");
  set("MOONCAKE_DFS_FS_ADAPTER", "posix");
  set("MOONCAKE_DFS_ROOT_DIR", root_);
  set("MOONCAKE_DFS_SHARD_COUNT", "1");
  set("MOONCAKE_DFS_SHARD_CAPACITY", std::to_string(settings.shard_capacity));
  set("MOONCAKE_DFS_ALIGNMENT", std::to_string(settings.alignment));
  set("MOONCAKE_DFS_SINGLE_TENANT", "true");
  // No DFS eviction thread work, and a freed slot reusable at the next
  // allocation (no steady-clock delay): runs stay deterministic.
  set("MOONCAKE_DFS_EVICTION_ENABLED", "0");
  set("MOONCAKE_DFS_DEFERRED_FREE_SECONDS", "0");
  // Mooncake's defaults, so that the caller's environment changes nothing.
  set("MOONCAKE_DFS_EVICTION_HIGH_WATERMARK", "0.9");
  set("MOONCAKE_DFS_EVICTION_LOW_WATERMARK", "0.7");
  set("MOONCAKE_DFS_EVICTION_CHECK_INTERVAL", "5");
}

ScopedEnvironment::~ScopedEnvironment() {
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
    if (it->second) setenv(it->first.c_str(), it->second->c_str(), 1);
    else unsetenv(it->first.c_str());
  }
  if (!root_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
}

void ScopedEnvironment::set(const char* name, const std::string& value) {
  const char* before = std::getenv(name);
  saved_.emplace_back(name, before ? std::optional<std::string>(before) : std::nullopt);
  setenv(name, value.c_str(), 1);
}

}  // namespace pinsim::mooncake_dfs
