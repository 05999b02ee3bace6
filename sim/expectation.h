// Expectations on state: what a trace step may say about the View after it
// (per key: presence, deadline, lease, pending action, replica counts, group,
// hard pin; the gauge; the key count; live retention entries; tenant charges; read-hit bytes). Matching is partial:
// a field the step does not name is not compared. The runner checks each
// expectation against the target's View and against the model's.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "op.h"
#include "view.h"
#include "virtual_time.h"

namespace pinsim {

struct ObjectExpectation {
  ObjectId id{};
  std::optional<bool> present;
  std::optional<std::optional<Time>> deadline;  // inner nullopt: no stored deadline
  std::optional<Time> lease;
  std::optional<std::optional<SoftPinAction>> pending;  // inner nullopt: no Pending
  std::optional<uint32_t> complete_memory, complete_nof, complete_disk, complete_dfs, complete_local, processing;
  std::optional<GroupId> group;
  std::optional<bool> hard_pinned;
  std::optional<bool> copying;  // a copy under way (rules copy.*)
  std::optional<bool> offloading, promoting;  // an offload, a promotion under way (rules local.*)
  bool operator==(const ObjectExpectation&) const = default;
};

struct RetentionExpectation {
  TenantId tenant = 0;
  GroupId group = 0;
  std::optional<Time> deadline;  // nullopt: no live entry
  bool operator==(const RetentionExpectation&) const = default;
};

struct StateExpectation {
  std::vector<ObjectExpectation> objects;
  std::optional<int64_t> gauge;
  std::optional<uint64_t> keys;
  std::vector<RetentionExpectation> retention;
  std::vector<UsageView> usage;  // bytes charged per listed tenant (0: nothing)
  std::vector<UsageView> quotas;  // effective quota per listed tenant (0: no policy)
  std::optional<uint64_t> memory_hit_bytes, disk_hit_bytes;  // the read-hit counters (rule read.hit)
  std::optional<uint64_t> memory_hits, disk_hits;            // and the same reads counted
  std::optional<uint64_t> reads_served;                       // the successful reads (rule read.hit)
  // The refusal counters (rules tenant.quota, alloc.no-handle, alloc.partial).
  std::optional<uint64_t> quota_rejections, placement_failures, partial_placements;
  std::optional<uint64_t> dfs_slots_used;
  bool operator==(const StateExpectation&) const = default;
};

struct StateMismatch {
  std::string field;   // "deadline", "gauge", ...: stable, for the shrinker
  std::string detail;  // one line: which object, expected and actual
  std::string object;  // "t0/k1", "t0/g2", "t1", or "" for the gauge and key count
  std::string expected, actual;
};

// The first expectation `view` breaks, among the fields `caps` can show.
// Fields outside `caps` are counted in `*unchecked` instead.
std::optional<StateMismatch> mismatch(const StateExpectation& e, const View& view, Capabilities caps,
                                      uint64_t* unchecked);

}  // namespace pinsim
