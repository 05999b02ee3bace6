// What a target can show of its state after an op (docs/trace-format.md).
// A target declares which parts it can show (Capabilities); comparisons use
// the intersection. Vectors are sorted by id so two Views compare directly.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "config.h"
#include "op.h"
#include "virtual_time.h"

namespace pinsim {

struct PendingView {
  SoftPinAction action = SoftPinAction::Preserve;
  uint64_t ttl_ms = 0;
  // Eligible replicas of the current write that still exist and are
  // PROCESSING (ids differ between targets; the count does not).
  uint32_t viable = 0;
  bool operator==(const PendingView&) const = default;
};

struct ObjectView {
  ObjectId id{};
  uint64_t size = 0;
  uint32_t complete_memory = 0;
  uint32_t complete_nof = 0;
  uint32_t complete_disk = 0;
  uint32_t complete_dfs = 0;
  uint32_t complete_local = 0;   // LOCAL_DISK replicas (the holder's disk; rules local.*)
  uint32_t processing = 0;
  std::optional<Time> deadline;  // committed soft pin as stored (may be stale)
  std::optional<PendingView> pending;
  GroupId group = 0;
  bool hard_pinned = false;
  Time lease = 0;                // read lease timeout
  bool copying = false;          // a replication task (a copy) is under way (rules copy.*)
  bool offloading = false;       // an offload to the holder's disk is queued or taken (rules local.*)
  bool promoting = false;        // a promotion from the holder's disk is under way (rules local.*)
  bool retiring = false;         // an entry of View::retiring (rule log.window)
  bool operator==(const ObjectView&) const = default;
};

struct RetentionView {
  TenantId tenant = 0;
  GroupId group = 0;
  Time deadline = 0;
  bool operator==(const RetentionView&) const = default;
};

// Bytes charged to a tenant (only tenants with a non-zero charge appear).
struct UsageView {
  TenantId tenant = 0;
  uint64_t bytes = 0;
  bool operator==(const UsageView&) const = default;
};

struct View {
  std::vector<ObjectView> objects;       // sorted by id
  // The log's window (config oplog_lag, rule log.window): objects a logged
  // removal took that the log has not finalised, sorted by id; each with its
  // size, the memory replicas whose bytes it holds (complete_memory) and a
  // soft pin the gauge still counts (deadline). Compared with kCapObjects.
  std::vector<ObjectView> retiring;
  int64_t gauge = 0;                     // soft-pin gauge (stored deadlines)
  std::vector<RetentionView> retention;  // live entries (deadline > now), sorted
  uint64_t retained_group_count = 0;     // the admission counter as kept
  uint64_t retention_entries = 0;        // entries stored, expired included
  std::vector<UsageView> usage;          // tenant charges, sorted by tenant
  std::vector<UsageView> quotas;         // effective quota of each tenant with a policy, sorted by tenant
  // Bytes allocated in each memory segment, in config order, replicas held
  // after a discard included: placement's input, invisible in the objects.
  std::vector<uint64_t> memory_used;
  // Each memory segment's state, in config order (kMounted...): unmounted,
  // mounted, or leaving (a graceful unmount under way). Compared with kCapSegments.
  std::vector<uint8_t> mounted;
  // Objects with at least one completed memory replica: the gauge Mooncake
  // exports as its current cached objects in memory.
  uint64_t cached = 0;
  // The allocated-memory metric: bytes allocated in memory segments as the
  // master counts them (Mooncake's allocated memory size), which must be the
  // sum of memory_used. Compared with kCapSegments.
  uint64_t allocated = 0;
  // The memory-capacity metric: bytes of the memory segments mounted, a
  // leaving one included until its unmount ends (Mooncake's total memory
  // capacity), which a restore rebuilds. Compared with kCapSegments.
  uint64_t capacity = 0;
  // The same two metrics per memory segment, in config order (Mooncake's
  // metrics labelled by segment): its bytes allocated (memory_used), and its
  // capacity while it is mounted or leaving, 0 once unmounted. Compared with
  // kCapSegments.
  std::vector<int64_t> segment_allocated;
  std::vector<int64_t> segment_capacity;
  // Disk replicas whose file another live object's disk replica names too:
  // two objects, one file. Always 0 for a correct master (docs/interpretations.md,
  // "Disk replicas"); compared with kCapObjects.
  uint64_t shared_disk_files = 0;
  // The read-hit counters since the run began (rule read.hit): bytes of the
  // objects gets were served from memory, and from a disk file. Mooncake's
  // mem/file cache-hit byte metrics; a restore does not reset them.
  // Compared with kCapHits.
  uint64_t memory_hit_bytes = 0;
  uint64_t disk_hit_bytes = 0;
  // The same reads counted (Mooncake's mem/file cache-hit count metrics).
  uint64_t memory_hits = 0;
  uint64_t disk_hits = 0;
  // The successful reads since the run began (rule read.hit): a get that
  // answered OK, each OK key of a batch get. Mooncake's valid-get metric; a
  // restore does not reset it. Compared with kCapHits.
  uint64_t reads_served = 0;
  // The refused and degraded writes since the run began: Starts and copies
  // refused TENANT_QUOTA_EXCEEDED (rule tenant.quota; a Start once, after its
  // retries), Starts refused for placement (rule alloc.no-handle), and
  // Starts placed with fewer replicas than asked (rule alloc.partial).
  // Mooncake's quota-rejection, put-start allocation-failure and
  // partial-allocation metrics; a restore does not reset them. Compared with
  // kCapRefusals.
  uint64_t quota_rejections = 0;
  uint64_t placement_failures = 0;
  uint64_t partial_placements = 0;
  // DFS slots held: the DFS allocator's live records, which must be exactly
  // the DFS replicas of live objects (a discarded one frees its slot at once;
  // rule dfs.slot). Compared with kCapObjects.
  uint64_t dfs_slots_used = 0;
  bool operator==(const View&) const = default;
  // Empties the View for refilling: every field as View{} has it, the vectors
  // keeping their buffers (a target takes a View at every step). A vector
  // field added above belongs here too.
  void clear_keeping_buffers() {
    View fresh;
    fresh.objects.swap(objects);
    fresh.retiring.swap(retiring);
    fresh.retention.swap(retention);
    fresh.usage.swap(usage);
    fresh.quotas.swap(quotas);
    fresh.memory_used.swap(memory_used);
    fresh.mounted.swap(mounted);
    fresh.segment_allocated.swap(segment_allocated);
    fresh.segment_capacity.swap(segment_capacity);
    *this = std::move(fresh);
    objects.clear(), retiring.clear(), retention.clear(), usage.clear(), quotas.clear();
    memory_used.clear(), mounted.clear();
    segment_allocated.clear(), segment_capacity.clear();
  }
};

// What a target can show. The model shows everything.
enum Capability : uint32_t {
  kCapObjects = 1u << 0,    // key set, sizes, replica counts, group
  kCapDeadline = 1u << 1,   // stored committed deadline
  kCapPending = 1u << 2,    // pending action
  kCapLease = 1u << 3,      // read lease value
  kCapGauge = 1u << 4,      // soft-pin gauge
  kCapRetention = 1u << 5,  // group retention table and counter
  kCapUsage = 1u << 6,      // bytes charged and effective quota per tenant
  kCapSegments = 1u << 7,   // bytes allocated per memory segment, the allocated-memory and memory-capacity metrics
  kCapCached = 1u << 8,     // the cached-objects gauge
  kCapHits = 1u << 9,       // the read-hit counters
  kCapRefusals = 1u << 10,  // the quota-rejection and placement counters
  kCapAll = (1u << 11) - 1,
  // Not a part of the View: the target may be called from several threads at
  // once (the concurrent lane, sim/sched, runs only such targets).
  kCapThreadSafe = 1u << 16,
  // Not a part of the View: the target's eviction takes one shard lock at a
  // time (census, pass 1, release, pass 2, as Mooncake's BatchEvict), so a
  // concurrent history is explained with other calls between its steps.
  kCapEvictionInSteps = 1u << 17,
};
using Capabilities = uint32_t;

enum : uint8_t { kUnmounted = 0, kMounted = 1, kLeaving = 2 };  // View::mounted

// The memory metrics the segments' bytes and states imply, from memory_used
// and mounted (in config order): per segment (segment_allocated,
// segment_capacity) and their totals (allocated, capacity). A segment's bytes
// count as they are; its capacity counts while it is not unmounted.
inline void segment_metrics(const std::vector<SegmentConfig>& segments, View* v) {
  v->segment_allocated.assign(v->memory_used.begin(), v->memory_used.end());
  v->segment_capacity.clear();
  size_t m = 0;
  for (const SegmentConfig& s : segments) {
    if (s.kind != ReplicaKind::Memory) continue;
    const bool counts = m < v->mounted.size() && v->mounted[m] != kUnmounted;
    v->segment_capacity.push_back(counts ? static_cast<int64_t>(s.capacity) : 0);
    ++m;
  }
  v->allocated = v->capacity = 0;
  for (const uint64_t used : v->memory_used) v->allocated += used;
  for (const int64_t capacity : v->segment_capacity) v->capacity += static_cast<uint64_t>(capacity);
}

// The cached-objects gauge a View's objects imply.
inline uint64_t cached_objects(const std::vector<ObjectView>& objects) {
  uint64_t n = 0;
  for (const ObjectView& o : objects) n += o.complete_memory > 0 ? 1 : 0;
  return n;
}

// The object `id` of a View (its objects are sorted by id), or null.
inline const ObjectView* find_object(const View& v, ObjectId id) {
  auto it = std::lower_bound(v.objects.begin(), v.objects.end(), id,
                             [](const ObjectView& o, ObjectId x) { return o.id < x; });
  return it != v.objects.end() && it->id == id ? &*it : nullptr;
}

}  // namespace pinsim
