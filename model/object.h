// Per-object lifecycle state, as Mooncake's ObjectMetadata keeps it
// (RFC 3028 "Object state model"): replicas, the committed soft pin
// (Disabled or a stored deadline, possibly stale), the Pending write intent,
// the read lease and the group.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "op.h"
#include "small_vector.h"
#include "virtual_time.h"

namespace pinsim {

using ReplicaId = uint64_t;

enum class ReplicaStatus : uint8_t { Processing, Complete };

// The segment of a disk replica: a file of the storage backend, in no segment.
inline constexpr uint32_t kNoSegment = UINT32_MAX;

// 16 bytes, so an object's three inline replicas fill one cache line. Built
// with designated initializers; a replica is PROCESSING unless one says not.
struct Replica {
  ReplicaId id = 0;
  uint32_t segment = 0;  // index into Config::segments; kNoSegment for a disk replica
  ReplicaKind kind = ReplicaKind::Memory;
  ReplicaStatus status = ReplicaStatus::Processing;
  bool copy = false;     // a task's target (a copy's, or a promotion's staged replica): only its own end acts on it
  bool dynamic = false;  // made by a dynamic copy (its removal blocks new ones a while, rule dynrep.cooldown)
  bool complete_memory() const { return kind == ReplicaKind::Memory && status == ReplicaStatus::Complete; }
};

// A replication task (Mooncake's ReplicationTask of type COPY): one per
// object, owned by the client that started it; it reads `source` and writes
// the targets (replicas marked `copy`) until its End, its Revoke, or the
// release timeout after `start` (rules copy.*).
struct CopyTask {
  ClientId owner = 0;
  ReplicaId source = 0;
  Time start = 0;
  uint32_t targets = 0;  // how many targets it made
  uint64_t grant = 0;    // a dynamic copy: its lease's grant (the token's id); 0 for a plain copy
  Time epoch = 0;        // a dynamic copy: the object version its lease names
};

// The local-disk tier (rules local.*). An offload copies a COMPLETE memory
// replica (`source`, which no eviction takes meanwhile) to the holder's own
// disk: queued by an End, `taken` by the holder's heartbeat, ended by its
// report. A promotion copies the object back from that disk: queued by a read
// of an object left on the disk alone, `staged` (a PROCESSING memory replica,
// a task's target) by the holder's start, ended by its report. Each is
// cancelled at the release timeout after `start`.
struct OffloadTask {
  uint64_t id = 0;  // which offload: a report names the one the holder took
  ReplicaId source = 0;
  Time start = 0;
  bool taken = false;
};
struct PromotionTask {
  ReplicaId source = 0;  // the LOCAL_DISK replica read
  ReplicaId staged = 0;  // 0 until the holder's start
  Time start = 0;        // the queueing, then the start
};

// RFC 3028 "Object state model": Pending(action, ttl, eligible_replica_ids).
// A Pending's eligible replica ids: at most three without an allocation.
using ReplicaIds = SmallVector<ReplicaId, 3>;

struct Pending {
  SoftPinAction action = SoftPinAction::Preserve;
  uint64_t ttl_ms = 0;
  ReplicaIds eligible;
  bool is_eligible(ReplicaId id) const {
    return std::find(eligible.begin(), eligible.end(), id) != eligible.end();
  }
};

// An object's replicas: at most three without an allocation (small_vector.h).
using Replicas = SmallVector<Replica, 3>;

struct Object {
  // The fields every eviction census reads of every object come first, so a
  // census of the whole table touches the fewest cache lines (bench_model).
  //
  // Mooncake's hard pin (ReplicateConfig::with_hard_pin): set when the object
  // is created, never by a later write except a size-changing Upsert that ORs
  // it in; no eviction takes the object.
  bool hard_pinned = false;
  bool processing = false;  // in Mooncake's processing_keys
  ClientId client = 0;
  Time lease = 0;  // read lease timeout ("hard lease")
  Time put_start_time = 0;
  // Committed: nullopt = Disabled; a value = Active(D), or stale when now >= D
  // (still counted by the gauge until normalised, RFC 3028 "Read and
  // eviction paths": the gauge converges at the next cleanup).
  std::optional<Time> deadline;
  Replicas replicas;
  std::optional<CopyTask> task;            // a copy under way (rules copy.*)
  std::optional<OffloadTask> offload;      // rules local.*
  std::optional<PromotionTask> promotion;  // rules local.*
  uint64_t size = 0;
  std::optional<Pending> pending;
  GroupId group = 0;
  std::optional<uint64_t> reserved;  // a new write's reservation, until settle
  uint64_t replaced_charge = 0;      // a size-changing Upsert's old charge, until settle
  std::optional<uint64_t> checksum;  // declared by the last End of a write (rule read.checksum)
  Time recreate_after = 0;           // no dynamic copy before this: a dynamic replica went (rule dynrep.cooldown)

  uint32_t count(ReplicaKind kind) const {
    return static_cast<uint32_t>(
        std::count_if(replicas.begin(), replicas.end(), [&](const Replica& r) { return r.kind == kind; }));
  }
  Replica* find_replica(ReplicaId id) {
    for (Replica& r : replicas)
      if (r.id == id) return &r;
    return nullptr;
  }
  bool has_local_disk() const {
    return std::any_of(replicas.begin(), replicas.end(),
                       [](const Replica& r) { return r.kind == ReplicaKind::LocalDisk; });
  }
  bool has_disk() const {
    return std::any_of(replicas.begin(), replicas.end(), [](const Replica& r) { return r.kind == ReplicaKind::Disk; });
  }
  bool any_complete() const {
    return std::any_of(replicas.begin(), replicas.end(), [](const Replica& r) {
      return r.status == ReplicaStatus::Complete;
    });
  }
  bool all_complete() const {
    return std::all_of(replicas.begin(), replicas.end(), [](const Replica& r) {
      return r.status == ReplicaStatus::Complete;
    });
  }
  // The write's own replicas are all COMPLETE (a copy's targets are not the write's).
  bool write_complete() const {
    return std::all_of(replicas.begin(), replicas.end(), [](const Replica& r) {
      return r.copy || r.status == ReplicaStatus::Complete;
    });
  }
  // RFC 3028 rule 4: protection only while now < D.
  bool soft_pin_active(Time now) const { return deadline && now < *deadline; }
  // Multi-tenant mode: bytes charged to the tenant (rule tenant.charge). A
  // new write is charged what it reserved, size x the memory replicas it
  // asked for, until it settles; then size x its memory replicas. A
  // replaced object's charge is added until the write settles, a copy's
  // targets while they exist.
  uint64_t charged_bytes() const {
    uint64_t memory = 0, targets = 0;  // the write's memory replicas; a copy's targets, charged from its start
    for (const Replica& r : replicas) {
      targets += r.copy;
      memory += !r.copy && r.kind == ReplicaKind::Memory;
    }
    return reserved.value_or(size * memory) + replaced_charge + size * targets;
  }
  bool memory_processing() const {
    return std::any_of(replicas.begin(), replicas.end(), [](const Replica& r) {
      return !r.copy && r.kind == ReplicaKind::Memory && r.status == ReplicaStatus::Processing;
    });
  }
};

// Which replicas an End or a Revoke acts on. `all` is the replicas the
// client writes (memory, NoF, DFS), not a disk replica, which the storage
// backend acknowledges on its own (rule disk.replica).
inline bool selected(ReplicaSelector s, ReplicaKind k) {
  return (s == ReplicaSelector::All && k != ReplicaKind::Disk && k != ReplicaKind::LocalDisk) ||
         (s == ReplicaSelector::Memory && k == ReplicaKind::Memory) ||
         (s == ReplicaSelector::Nof && k == ReplicaKind::Nof) ||
         (s == ReplicaSelector::Disk && k == ReplicaKind::Disk) || (s == ReplicaSelector::Dfs && k == ReplicaKind::Dfs);
}

}  // namespace pinsim
