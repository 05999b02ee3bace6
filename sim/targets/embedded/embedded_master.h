// The embedded master: an in-process master built the way Mooncake's
// MasterService is for the soft pin and group retention (RFC 3028, PR 2835;
// docs/rules.md): sharded metadata behind shared mutexes, per-object soft-pin
// state, the deadline index and its expiry cycle, an incremental gauge, and
// the PR 2835 retention table with one global admission counter. It is
// thread-safe, and carries the seeded faults of faults.h. The lockstep runner
// checks it against the model step by step.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "config.h"
#include "deadline_index.h"
#include "faults.h"
#include "shard.h"
#include "model.h"  // preference_order
#include "target.h"

namespace pinsim::embedded {

class EmbeddedMaster final : public Target {
 public:
  EmbeddedMaster(const Config& config, const Faults& faults);
  ~EmbeddedMaster() override;

  std::string_view name() const override { return "embedded"; }
  Capabilities capabilities() const override { return kCapAll; }
  Outcome apply(const Op& op, Time now) override;
  View view(Time now) const override;

  // For tests and benchmarks.
  size_t heap_size() const { return index_.heap_size(); }
  size_t registration_count() const { return index_.registration_count(); }
  int64_t gauge() const { return gauge_.value(); }
  size_t stored_deadlines() const;  // objects with a stored deadline
  // The soft-pin part of one cleanup cycle, through the index (the RFC's
  // cycle) or by scanning every object (kept for comparison); both return
  // how many pins they cleared. Not to be run concurrently with a snapshot
  // or restore (apply's Cleanup op is the thread-safe way).
  int64_t run_expiry_cycle(Time now);
  int64_t run_scan_cycle(Time now);

 private:
  struct Resolved {
    SoftPinAction action;
    uint64_t ttl_ms;
  };
  struct Discarded {
    Time release_at;
    std::vector<Replica> replicas;
    uint64_t size;
  };
  struct ObjectRecord {  // one object as a snapshot serialises it
    ObjectId id;
    ClientId client;
    uint64_t size;
    std::vector<Replica> replicas;
    std::optional<Time> deadline;
    Time lease;
    Time put_start_time;
    GroupId group;
  };
  struct SnapshotImage {
    std::vector<ObjectRecord> objects;
    ReplicaId next_replica_id;
    std::vector<Discarded> discarded;  // MetadataSerializer writes discarded_replicas_
  };
  using ShardLock = std::unique_lock<std::shared_mutex>;
  struct AllShards {  // every shard's write lock, in index order
    std::vector<ShardLock> locks;
  };

  // Lookup (embedded_master.cpp).
  GroupId route_of(ObjectId id) const;
  void set_route(ObjectId id, GroupId group);
  void erase_route(ObjectId id);
  // Write-locks the shard that holds `id` (its home for its current route),
  // retrying if the object moves meanwhile; returns the shard index.
  size_t lock_home_shard(ObjectId id, ShardLock* lock);
  ObjectMetadata* find_in(size_t shard, ObjectId id);
  AllShards lock_all_shards();
  ObjectMetadata* find_locked(ObjectId id, size_t* shard = nullptr);  // all shards held
  std::vector<ObjectId> all_ids_locked() const;                       // sorted

  // Shared state changes.
  void apply_evaluation(ObjectId id, size_t shard, const SoftPinEvaluation& eval);
  void erase_object(size_t shard, ObjectId id);  // EraseMetadata
  // Quota and placement for a new object, reserved before the old one goes;
  // `released` is the charge the replaced object gives back.
  ErrorCode reserve(const Op& op, uint64_t released, std::vector<Replica>* out);
  void unreserve(ObjectId id, const std::vector<Replica>& replicas, uint64_t size);
  ErrorCode create_object(const Op& op, size_t shard, GroupId group, const Resolved& req,
                          std::vector<Replica> replicas, std::optional<Time> carried, Time now);
  bool allocate_locked(const Op& op, std::vector<Replica>* out);
  void free_replicas(ObjectId id, ObjectMetadata& md, std::vector<Replica>::iterator from);
  void discard_replicas(ObjectId id, ObjectMetadata& md, std::vector<Replica>::iterator from,
                        Time release_at);
  uint64_t release_discarded(Time now);
  void grant_lease(ObjectId id, size_t shard, ObjectMetadata& md, Time lease, Time now);

  // write_path.cpp
  std::optional<ErrorCode> validate_start(const Op& op, Resolved* out) const;
  std::optional<Time> carry_unexpired(const ObjectMetadata& md, Time now) const;
  ErrorCode reserve_for(const Op& op, const ObjectMetadata* replaced, std::vector<Replica>* out);
  ErrorCode reserve_late(const Op& op, bool replaced, std::vector<Replica>* out);
  void restart_in_place(const Op& op, ObjectMetadata& md, const Resolved& req, Time now);
  Outcome put_start(const Op& op, Time now);
  Outcome upsert_start(const Op& op, Time now);
  Outcome end(const Op& op, Time now);
  Outcome revoke(const Op& op, Time now);
  // read_path.cpp
  void grant_read_lease(ObjectId id, size_t shard, ObjectMetadata& md, Time now);
  Outcome get(const Op& op, Time now);
  Outcome exist(const Op& op, Time now);
  Outcome remove(const Op& op, Time now);
  Outcome remove_all(const Op& op, Time now);
  Outcome batch(const Op& op, Time now);  // embedded_master.cpp
  // eviction.cpp
  Outcome evict(const Op& op, Time now);
  bool normalise_if_expired(ObjectId id, Time now);
  void discard_expired_processing(Time now);
  void evict_memory(ObjectId id);
  uint64_t try_evict(ObjectId id, bool allow_soft, Time now);
  // expiry.cpp
  Outcome cleanup(Time now);
  // retention.cpp
  Outcome retain_groups(const Op& op, Time now);
  void inherit_retention(Shard& shard, ObjectId id, ObjectMetadata& md, Time now);
  void prune_expired_retention(Time now);
  // snapshot.cpp
  Outcome snapshot();
  Outcome restore(const Op& op, Time now);
  void reset_state(bool clear_index);
  void decode(const SnapshotImage& image, Time now);

  const Config config_;
  const Faults faults_;
  std::atomic<Time> last_now_{0};
  // Lock order: snapshot_mutex_ (shared for ops, exclusive for snapshot and
  // restore) -> op stripe (Starts only) -> shards (ascending; a path that
  // moves an object releases one before taking the next) -> alloc_mutex_ ->
  // route_mutex_ -> the deadline index's mutex. The object lock is taken
  // under a shard lock and released before the index mutex.
  std::array<std::mutex, 64> op_locks_;  // AcquireObjectOperationLock stripes
  mutable std::shared_mutex snapshot_mutex_;
  std::array<Shard, kShardCount> shards_;
  mutable std::mutex route_mutex_;
  std::unordered_map<ObjectId, GroupId, ObjectIdHash> routes_;  // object_group_ids_
  mutable std::mutex alloc_mutex_;  // guards the five below
  std::vector<uint64_t> segment_used_;
  std::vector<uint64_t> batch_preference_;  // during a batch start (one ReplicateConfig): see Model::batch
  std::map<TenantId, uint64_t> tenant_used_;
  std::vector<Discarded> discarded_;
  ReplicaId next_replica_id_ = 1;
  DeadlineIndex index_;
  SoftPinGauge gauge_;
  std::atomic<uint64_t> retained_group_count_{0};  // PR 2835 admission counter
  std::vector<SnapshotImage> snapshots_;           // under snapshot_mutex_ (exclusive)
};

}  // namespace pinsim::embedded
