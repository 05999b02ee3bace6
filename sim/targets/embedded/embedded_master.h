// The embedded master: an in-process master built the way Mooncake's
// MasterService is for the soft pin and group retention (RFC 3028, PR 2835;
// docs/rules.md): sharded metadata behind shared mutexes, per-object soft-pin
// state, the deadline index and its expiry cycle, an incremental gauge, and
// the PR 2835 retention table with one global admission counter, hard pins,
// and in multi-tenant mode the tenant quota accounts with a per-object
// ledger and the quota-eviction retry of Starts (tenant_quota*.h), copies of
// a replica, dynamic replication (heat, proposals and their leases,
// dynamic_replication.cpp), DFS replicas with their slot allocator (dfs.cpp,
// dfs_allocator.h), and the local-disk tier's offloads and promotions
// (local_disk.cpp, local_disk_holder.h). It is thread-safe, and carries the
// seeded faults of faults.h. The lockstep runner checks it against the model step by step.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "config.h"
#include "deadline_index.h"
#include "dfs_allocator.h"
#include "faults.h"
#include "local_disk_holder.h"
#include "shard.h"
#include "segment_allocator.h"
#include "tenant_quota.h"
#include "target.h"

namespace pinsim::embedded {

class EmbeddedMaster final : public Target {
 public:
  EmbeddedMaster(const Config& config, const Faults& faults);
  ~EmbeddedMaster() override;

  std::string_view name() const override { return "embedded"; }
  Capabilities capabilities() const override { return kCapAll | kCapThreadSafe; }
  // The second eviction pass starts at a shard of its own (eviction.cpp).
  bool eviction_order_unspecified() const override { return true; }
  // With the local-disk tier, no snapshot, restore nor failover (the workload draws none there).
  bool supports(const Op& op) const override {
    return !config_.local_disk ||
           (op.kind != OpKind::Snapshot && op.kind != OpKind::Restore && op.kind != OpKind::Failover);
  }
  Outcome apply(const Op& op, Time now) override;
  View view(Time now) const override;
  void view_into(Time now, View* out) const override;
  std::optional<Placement> placement() const override;
  std::unique_ptr<Target> clone() const override;  // clone.cpp
  bool assign(const Target& from) override;        // clone.cpp

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
  // Multi-tenant mode: the charges the object ledgers hold, per tenant (the
  // accounts, View::usage, must equal them whenever no op is running).
  std::vector<UsageView> ledger_usage() const;

 private:
  struct Resolved {
    SoftPinAction action;
    uint64_t ttl_ms;
  };
  // What new metadata takes from the request or from the object it
  // replaces: the group, a carried deadline, the hard pin, and (Upsert Case
  // C) the old charge in the replaced bucket.
  struct Inherited {
    GroupId group = 0;
    std::optional<Time> deadline;
    bool hard_pinned = false;
    TenantQuotaLedger quota;
  };
  // One Put/UpsertStart request across its attempts: the preferred
  // segments of its ReplicateConfig, fixed when the request begins (a
  // batch's elements share the batch's), and its last quota deficit.
  struct StartRequest {
    PreferredSegments preferred;
    uint64_t deficit = 0;
  };
  struct Evicted {  // what one eviction candidate gave up
    uint64_t objects = 0;
    uint64_t bytes = 0;  // size x memory replicas taken
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
    bool hard_pinned;
    std::optional<uint64_t> checksum;
  };
  struct SnapshotImage {
    std::vector<ObjectRecord> objects;
    ReplicaId next_replica_id;
    std::vector<Discarded> discarded;  // MetadataSerializer writes discarded_replicas_
    std::vector<SegmentRecord> segments;  // SegmentSerializer: the segments mounted then, leaving or not
  };
  using ShardLock = std::unique_lock<std::shared_mutex>;
  struct AllShards {  // every shard's write lock, in index order
    std::vector<ShardLock> locks;
  };

  // Lookup (embedded_master.cpp).
  GroupId route_of(ObjectId id) const;
  void set_route(ObjectId id, GroupId group);
  void erase_route(ObjectId id);
  // A replacing Start's route, set before it erases an old object that had
  // one and kept through the insert, with both homes held: a lookup never
  // sees the key lose its route in between. Returns erase_object's keep_route.
  bool reroute(ObjectId id, GroupId old_group, GroupId group);
  // Write-locks the shard that holds `id` (its home for its current route),
  // retrying if the object moves meanwhile; returns the shard index.
  size_t lock_home_shard(ObjectId id, ShardLock* lock);
  // The same, and also shard `other` when it differs (into `second`), both
  // taken in index order: a Start that moves an object to its new group's
  // home holds both until the insert, so no call sees it gone in between.
  size_t lock_home_shard_and(ObjectId id, size_t other, ShardLock* lock, ShardLock* second);
  ObjectMetadata* find_in(size_t shard, ObjectId id);
  AllShards lock_all_shards();
  ObjectMetadata* find_locked(ObjectId id, size_t* shard = nullptr);  // all shards held
  std::vector<ObjectId> ids_in(size_t shard) const;                   // sorted; that shard held

  // Shared state changes.
  void apply_evaluation(ObjectId id, size_t shard, const SoftPinEvaluation& eval);
  void erase_object(size_t shard, ObjectId id, bool keep_route = false);  // EraseMetadata
  // Quota and placement for a new object, reserved before the old one goes;
  // `released` is the charge the replaced object gives back. A quota
  // refusal sets the request's deficit.
  // `dfs_freed`: the replaced object's DFS replicas, whose slots count as free.
  ErrorCode reserve(const Op& op, uint64_t released, std::vector<Replica>* out, StartRequest* request,
                    const std::vector<ReplicaId>& dfs_freed = {});
  void unreserve(const Op& op, const std::vector<Replica>& replicas, TenantQuotaLedger& quota);
  ErrorCode create_object(const Op& op, size_t shard, Inherited from, const Resolved& req,
                          std::vector<Replica> replicas, Time now);
  PreferredSegments preferred_segments() const;
  ErrorCode allocate_locked(const Op& op, const PreferredSegments& preferred, const std::vector<ReplicaId>& dfs_freed,
                            std::vector<Replica>* out);
  void free_replicas(ObjectMetadata& md, std::vector<Replica>::iterator from);
  void discard_replicas(ObjectMetadata& md, std::vector<Replica>::iterator from, Time release_at,
                        bool free_dfs = true);
  uint64_t release_discarded(Time now);
  void grant_lease(ObjectId id, size_t shard, ObjectMetadata& md, Time lease, Time now);

  // dfs.cpp (rules dfs.*)
  std::optional<ErrorCode> validate_dfs(const Op& op) const;
  bool same_dfs_topology(const Op& op, const ObjectMetadata& md) const;
  bool allocate_dfs_locked(const Op& op, const std::vector<ReplicaId>& freed_first, std::vector<Replica>* out);
  void free_dfs_locked(std::vector<Replica>::const_iterator from, std::vector<Replica>::const_iterator end);
  static std::vector<ReplicaId> dfs_replica_ids(const ObjectMetadata* md);

  // write_path.cpp
  std::optional<ErrorCode> validate_start(const Op& op, Resolved* out) const;
  std::optional<Time> carry_unexpired(const ObjectMetadata& md, Time now) const;
  ErrorCode reserve_for(const Op& op, const ObjectMetadata* replaced, bool keeps_charge, std::vector<Replica>* out,
                        StartRequest* request);
  ErrorCode reserve_late(const Op& op, bool replaced, std::vector<Replica>* out, StartRequest* request);
  void preempt(ObjectId id, ObjectMetadata& md, Time now);
  Inherited inherit_replaced(const Op& op, ObjectMetadata& md, bool case_a, Time now);
  void restart_in_place(const Op& op, ObjectMetadata& md, const Resolved& req, Time now);
  Outcome put_start(const Op& op, Time now) {
    return with_quota_eviction(op, now, &EmbeddedMaster::put_start_once, nullptr);
  }
  Outcome upsert_start(const Op& op, Time now, const PreferredSegments* batch_preferred = nullptr) {
    return with_quota_eviction(op, now, &EmbeddedMaster::upsert_start_once, batch_preferred);
  }
  Outcome put_start_once(const Op& op, Time now, StartRequest* request);
  Outcome upsert_start_once(const Op& op, Time now, StartRequest* request);
  Outcome end(const Op& op, Time now);
  Outcome revoke(const Op& op, Time now);
  // read_path.cpp
  void grant_read_lease(ObjectId id, size_t shard, ObjectMetadata& md, Time now);
  // `batch_seen`: a batch_get's keys already counted as heat (one hit per key per batch).
  Outcome get(const Op& op, Time now, std::set<ObjectId>* batch_seen = nullptr);
  void count_hit(const ObjectMetadata& md);
  Outcome exist(const Op& op, Time now);
  Outcome remove(const Op& op, Time now);
  Outcome remove_all(const Op& op, Time now);
  Outcome batch(const Op& op, Time now);  // embedded_master.cpp
  // eviction.cpp
  struct EvictCandidate {  // BatchEvict's Candidate: found again by key
    size_t shard;
    ObjectId id;
    Time lease;
  };
  struct Census {
    uint64_t eviction_base = 0;             // objects with an evictable memory replica
    std::vector<EvictCandidate> candidates;  // unpinned, when kept whole at once
    std::vector<Time> no_pin_timeouts;       // unpinned, otherwise
    std::vector<Time> soft_pin_timeouts;     // pinned (allow_evict_soft_pinned_objects)
  };
  struct FirstPass {
    int64_t evict_num = 0;
    Time cutoff = 0;
    int64_t evicted = 0;
    std::vector<Time> leftover;  // no_pin_objects: leases for pass 2
  };
  Outcome evict(const Op& op, Time now);
  bool normalise_if_expired(ObjectId id, Time now);
  void discard_expired_processing(size_t shard, Time now);
  Census evict_census(bool keep_candidates, Time now);
  std::vector<EvictCandidate> collect_candidates(std::optional<Time> cutoff, bool older_or_equal, Time now);
  FirstPass evict_first_pass(Census& census, int64_t ideal, bool prebypass, Time now);
  void evict_candidate_batch(const std::vector<EvictCandidate>& batch, FirstPass* pass, Time now);
  void evict_second_pass(int64_t n, bool pass_2a, Time cutoff, Time now);
  uint64_t evict_memory(ObjectId id);
  bool evictable_candidate(ObjectId id, ObjectMetadata& md, bool allow_soft, Time now);
  Evicted try_evict(ObjectId id, bool allow_soft, Time now);
  // tenant_quota_paths.cpp (multi-tenant mode)
  using StartAttempt = Outcome (EmbeddedMaster::*)(const Op&, Time, StartRequest*);
  Outcome with_quota_eviction(const Op& op, Time now, StartAttempt attempt, const PreferredSegments* preferred);
  std::optional<ErrorCode> check_registered(TenantId tenant) const;
  void settle_primary_write(ObjectId id, ObjectMetadata& md);
  void release_all_quota(ObjectId id, TenantQuotaLedger& quota);
  void evict_tenant_memory_for_quota(TenantId tenant, uint64_t target, Time now);
  uint64_t evict_tenant_memory_pass(TenantId tenant, uint64_t target, bool allow_soft, Time now);
  void rebuild_quota_usage();
  Outcome set_quota(const Op& op);
  Outcome delete_quota(const Op& op);
  bool tenant_has_objects(TenantId tenant) const;
  // expiry.cpp
  Outcome cleanup(Time now);
  // retention.cpp
  Outcome retain_groups(const Op& op, Time now);
  void inherit_retention(Shard& shard, ObjectId id, ObjectMetadata& md, Time now);
  void prune_expired_retention(Time now);
  // replication.cpp (a copy of a replica: CopyStart, CopyEnd, CopyRevoke)
  struct CopyCall {  // what a copy op sends: its client, segments and dynamic-replication token
    ClientId client = 0;
    uint32_t source = 0;
    std::vector<uint32_t> targets;
    uint64_t lease = 0;  // the token's lease id: 0 none (a plain copy), kUngrantedLease one no grant made
    Time epoch = 0;      // the token's version epoch
    bool dynamic() const { return lease != 0; }
  };
  static constexpr uint64_t kUngrantedLease = UINT64_MAX;
  Outcome copy_start(const Op& op, Time now);
  Outcome copy_end(const Op& op, Time now);
  Outcome copy_revoke(const Op& op);
  std::optional<ErrorCode> copy_targets_refused(const std::vector<uint32_t>& targets) const;
  std::optional<ErrorCode> copy_refused(size_t shard, ObjectId id, ObjectMetadata& md, const CopyCall& call,
                                        const std::vector<uint32_t>& fresh, Time now, ReplicaId* source);
  ErrorCode reserve_copy(ObjectId id, ObjectMetadata& md, const std::vector<uint32_t>& targets);
  ObjectMetadata* copy_owned(ObjectId id, const CopyCall& call, size_t shard, ErrorCode* refused);
  void end_copy(size_t shard, ObjectId id, ObjectMetadata& md, bool keep);
  void release_copy_charge(ObjectId id, ObjectMetadata& md, size_t targets);
  void discard_expired_copies(size_t shard, Time now);
  // dynamic_replication.cpp (rules dynrep.*; Mooncake's enforce mode, its
  // admission thread not run: proposals come through the API)
  using ProposalKey = std::pair<TenantId, uint32_t>;  // a tenant's proposal id
  struct HeatWindow {  // DynamicReplicationWindow
    Time start = 0;
    uint32_t hits = 0;
  };
  Outcome propose(const Op& op, Time now);  // SubmitReplicaActionProposal
  Outcome answer_proposal(ProposalKey key, const DynamicLease& lease);
  bool heat_observed(const ObjectMetadata& md) const;  // GetReplicaList's test before it observes a read
  void observe_heat(ObjectId id, Time now);            // ObserveDynamicReplicationAccess
  bool heat_admitted(ObjectId id, Time now) const;     // DynamicReplicationHeatAdmitted
  std::optional<DynamicLease> live_lease(ProposalKey key, Time now);
  bool admit_lease(ProposalKey key, const DynamicLease& lease, Time now);
  std::optional<ErrorCode> proposal_refused(size_t shard, ObjectId id, const ObjectMetadata& md, Time now);
  bool has_pending(size_t shard, ObjectId id, Time now);  // HasDynamicReplicationPending
  std::optional<std::pair<uint32_t, uint32_t>> select_plan(const ObjectMetadata& md) const;  // SelectDynamicReplicaPlan
  CopyCall copy_call(const Op& op) const;
  std::optional<ErrorCode> validate_pending_for_copy_start(size_t shard, ObjectId id, const CopyCall& call,
                                                           Time current_epoch, Time now);
  void register_dynamic_start(size_t shard, ObjectId id, ObjectMetadata& md, const std::vector<ReplicaId>& made,
                              Time now);
  void clear_dynamic_state(size_t shard, ObjectId id);  // ClearDynamicReplicationStateForKey
  void clear_all_dynamic_state();                       // every shard held (restore)
  // RecordDynamicReplicaRemoval: replicas [from, end) of `md` leave it.
  void record_dynamic_removal(ObjectMetadata& md, std::vector<Replica>::const_iterator from);
  // local_disk.cpp (rules local.*)
  void queue_offload(ObjectId id, const Op& op, ObjectMetadata& md, Time now);
  Outcome offload_take();
  Outcome offload_end(const Op& op);
  std::optional<ErrorCode> local_disk_refuses(ObjectId id, const ObjectMetadata& md) const;
  void cancel_offload(ObjectId id, ObjectMetadata& md);  // unpin, erase the marker, drop it from the mailbox
  bool memory_at_watermark() const;
  void queue_promotion(ObjectMetadata& md, Time now);
  Outcome promotion_start(const Op& op, Time now);
  Outcome promotion_end(const Op& op);
  void end_promotion(ObjectMetadata& md);  // its staged replica freed at once
  void discard_expired_local(size_t shard, Time now);
  // segments.cpp
  Outcome unmount(const Op& op);
  void unmount_segment(uint32_t segment);  // takes every shard
  Outcome mount(const Op& op);
  Outcome graceful_unmount(const Op& op);
  void clear_invalid_handles(size_t shard, ObjectId id, uint32_t segment);  // every shard held
  uint64_t memory_capacity() const;
  EmbeddedMaster(const EmbeddedMaster& other);  // clone.cpp
  void copy_state(const EmbeddedMaster& other);   // every member but the mutexes, config and faults
  // snapshot.cpp
  Outcome snapshot();
  Outcome restore(const Op& op, Time now);
  void reset_state(bool clear_index);
  void decode(const SnapshotImage& image, Time now, bool restore_rules);
  void finish_restore();
  // failover.cpp
  Outcome failover(Time now);
  SnapshotImage standby_image(Time now) const;

  const Config config_;
  const Faults faults_;
  std::atomic<Time> last_now_{0};
  // Lock order: snapshot_mutex_ (shared for ops, exclusive for snapshot and
  // restore) -> op stripe (Starts only) -> shards (ascending; a Start that
  // moves an object holds both, lock_home_shard_and) -> alloc_mutex_ ->
  // route_mutex_ -> the deadline index's mutex; dynamic_mutex_ and
  // tokens_mutex_ are taken after the shard locks and hold no other lock
  // (leaves, as dynamic_replication_mutex_ is). The object lock is taken
  // under a shard lock and released before the index mutex. A Start's quota
  // eviction runs between its attempts, with no op stripe held; the tenant
  // accounts are atomics and take no lock.
  std::array<std::mutex, 64> op_locks_;  // AcquireObjectOperationLock stripes
  mutable std::shared_mutex snapshot_mutex_;
  std::array<Shard, kShardCount> shards_;
  mutable std::mutex route_mutex_;
  std::unordered_map<ObjectId, GroupId, ObjectIdHash> routes_;  // object_group_ids_
  TenantQuotaTable quotas_;  // its own mutex (after the shard locks); charges are atomic
  mutable std::mutex alloc_mutex_;  // guards the four below
  SegmentAllocators segments_;
  DfsAllocator dfs_;  // the DFS allocator's records (rule dfs.slot)
  std::vector<Discarded> discarded_;
  ReplicaId next_replica_id_ = 1;
  DeadlineIndex index_;
  SoftPinGauge gauge_;
  std::atomic<uint64_t> retained_group_count_{0};  // PR 2835 admission counter
  std::atomic<uint64_t> memory_hit_bytes_{0}, disk_hit_bytes_{0};  // read-hit metrics; a restore keeps them
  std::atomic<uint64_t> memory_hits_{0}, disk_hits_{0};            // the same reads counted
  std::atomic<uint64_t> reads_served_{0};  // the valid-get metric; a restore keeps it
  // The quota-rejection, put-start allocation-failure and partial-allocation metrics.
  std::atomic<uint64_t> quota_rejections_{0}, placement_failures_{0}, partial_placements_{0};
  std::vector<SnapshotImage> snapshots_;           // under snapshot_mutex_ (exclusive)
  // Dynamic replication: the heat window of each key ever read (it outlives
  // the object) and the live leases by tenant and proposal id (the model's
  // scope: Mooncake keeps them per metadata shard), under dynamic_mutex_.
  mutable std::mutex dynamic_mutex_;
  std::map<ObjectId, HeatWindow> heat_;
  std::map<ProposalKey, DynamicLease> leases_;
  std::atomic<uint64_t> next_lease_id_{1};  // generate_uuid: a fresh lease id per grant
  // The client's side: the lease each proposal was answered with, the token
  // its copies send (never cleared: a client keeps its tokens).
  mutable std::mutex tokens_mutex_;
  std::map<ProposalKey, DynamicLease> tokens_;
  // The local-disk tier: the holder's mailbox and hand (its own leaf mutex).
  LocalDiskHolder holder_;
};

}  // namespace pinsim::embedded
