// Friend access into MasterService's internals, for the Mooncake target only.
// MasterService befriends mooncake::test::MasterServiceSnapshotTestBase (its
// own snapshot tests' fixture); the adapter defines that class here, with no
// test code of Mooncake's, to stop the background threads the constructor
// starts, read the metadata shards, the deadlines and the local-disk tier's
// tasks for the View, call the background work (BatchEvict,
// CleanupExpiredSoftPins) directly, encode, decode and apply snapshots, and
// check and restart the DFS allocator.
// Include it from the adapter only, and never link Mooncake's own test
// objects beside it (two definitions of one class). The PINSIM_MC_HAS_*
// definitions come from cmake/MooncakeTree.cmake (DFS from CMakeLists.txt).
#pragma once
#include <chrono>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#if PINSIM_MC_HAS_SNAPSHOT_CODEC
#include "ha/snapshot/master_snapshot_codec.h"
#endif
#include "master_metric_manager.h"
#include "master_service.h"
#if PINSIM_MC_HAS_SEGMENT_POOL
#include "segment/pool_view.h"
#endif
#if PINSIM_MC_HAS_DFS
#include "storage/distributed/dfs_global_allocator.h"
#endif
#include "view.h"
#include "virtual_clock.h"

namespace mooncake::test {

class MasterServiceSnapshotTestBase {
 public:
  using Clock = std::chrono::system_clock;

#if PINSIM_MC_HAS_OPLOG_WRITER_FACTORY
  // The factory InitializeBatchOpLogWriter makes its writer with (oplog_mode.h),
  // set again for each run of a kept master (the public setter takes one once).
  static void SetOpLogWriterFactory(MasterService& s, MasterService::BatchOpLogWriterFactory factory) {
    s.batch_oplog_writer_factory_ = std::move(factory);
  }
#endif

  // Stops and joins the threads the constructor started, as ~MasterService
  // does; the destructor then finds nothing joinable.
  static void Quiesce(MasterService& s) {
    const pinsim::mooncake_clock::SleepsCut cut;
    s.eviction_running_ = false;
    s.client_monitor_running_ = false;
    {  // under the waiters' mutexes, so no wake-up is lost
      std::lock_guard<std::mutex> lock(s.task_cleanup_mutex_);
      s.task_cleanup_running_ = false;
    }
    s.job_dispatch_running_ = false;
#if PINSIM_MC_HAS_DYN_REPL_ADMISSION
    {
      std::lock_guard<std::mutex> lock(s.dynamic_replication_admission_mutex_);
      s.dynamic_replication_admission_running_ = false;
    }
#endif
    s.task_cleanup_cv_.notify_all();
#if PINSIM_MC_HAS_DYN_REPL_ADMISSION
    s.dynamic_replication_admission_cv_.notify_all();
#endif
    if (s.eviction_thread_.joinable()) s.eviction_thread_.join();
    if (s.client_monitor_thread_.joinable()) s.client_monitor_thread_.join();
    while (s.task_cleanup_thread_.joinable()) {
      s.task_cleanup_cv_.notify_all();
      s.task_cleanup_thread_.join();
    }
    if (s.job_dispatch_thread_.joinable()) s.job_dispatch_thread_.join();
#if PINSIM_MC_HAS_DYN_REPL_ADMISSION
    while (s.dynamic_replication_admission_thread_.joinable()) {
      s.dynamic_replication_admission_cv_.notify_all();
      s.dynamic_replication_admission_thread_.join();
    }
#endif
#if PINSIM_MC_HAS_REPLICA_CLEANUP_WORKER
    s.replica_cleanup_worker_.Stop();
#endif
  }

  struct Replica {
    bool memory;
    bool nof;
    bool disk;  // a DISK replica (disk mode's file)
    bool dfs;   // a DFS replica (a slot of the DFS allocator)
    bool local;  // a LOCAL_DISK replica (the holder's own disk, the local-disk tier)
    ReplicaStatus status;
    ReplicaID id;
    bool invalid;  // a memory replica on an unmounted segment (has_invalid_mem_handle)
  };
  struct Object {
    std::string tenant;  // Mooncake's tenant id ("default" without multi-tenant mode)
    std::string key;
    bool hard_pinned;
    uint64_t size;
    std::vector<Replica> replicas;
    std::optional<Clock::time_point> deadline;
    bool has_pending;
    uint8_t pending_action;
    uint64_t pending_ttl;
    std::vector<ReplicaID> eligible;
    Clock::time_point lease;
    std::string group;
    std::vector<std::string> disk_files;  // the file each DISK replica names (disk mode)
    bool copying;  // a replication task (CopyStart) is under way
    std::vector<ReplicaID> expiring_targets;  // the targets of a task whose logged expiry awaits the log
    bool offloading;  // the tenant's offloading_tasks has the key (local-disk tier)
    bool promoting;   // the tenant's promotion_tasks has the key (local-disk tier)
  };

  static constexpr size_t kShards = MasterService::kNumShards;

  // The client that mounted segment `name`; none when it is not mounted.
  static std::optional<UUID> SegmentOwner(MasterService& s, const std::string& name) {
    UUID client{};
#if PINSIM_MC_HAS_SEGMENT_POOL
    const auto access = s.segment_pool_.getView();
#else
    ScopedSegmentAccess access = s.segment_manager_.getSegmentAccess();
#endif
    if (access.GetClientIdBySegmentName(name, client) != ErrorCode::OK) return std::nullopt;
    return client;
  }

  // The shard that holds (or would hold) `key` of `tenant`: Mooncake's own
  // routing, which on main puts a grouped key in its group's shard.
  template <typename Tenant>
  static size_t ShardOf(const MasterService& s, const Tenant& tenant, const std::string& key) {
#if PINSIM_MC_HAS_GROUP_ROUTE
    return s.getMetadataShardIndex(tenant, key);
#else
    return s.getShardIndex(tenant, key);
#endif
  }

  // Every object of every tenant in shard `i`, in no particular order.
  static std::vector<Object> Objects(const MasterService& s, size_t i) {
    std::vector<Object> out;
    {
      MasterService::MetadataShardAccessorRO shard(&s, i);
      for (const auto& [tenant, state] : shard->tenants) {
        for (const auto& [key, md] : state.metadata) {
          Object o;
          o.tenant = TenantName(tenant);
          o.key = key;
          o.size = md.size;
#if PINSIM_MC_HAS_HARD_PIN
          o.hard_pinned = md.IsHardPinned();
#else
          o.hard_pinned = false;
#endif
          for (const auto& r : md.GetAllReplicas())
            if (r.is_disk_replica()) o.disk_files.push_back(r.get_descriptor().get_disk_descriptor().file_path);
          for (const auto& r : md.GetAllReplicas())
            o.replicas.push_back({r.is_memory_replica(), r.is_nof_replica(), r.is_disk_replica(), IsDfs(r),
                                  IsLocalDisk(r), r.status(), r.id(), r.has_invalid_mem_handle()});
          {
            SpinLocker locker(&md.lock);
            o.deadline = md.soft_pin_timeout;
            o.lease = md.lease_timeout;
          }
#if PINSIM_MC_HAS_SOFT_PIN_ACTION
          o.has_pending = md.pending_soft_pin_action.has_value();
          if (o.has_pending) {
            o.pending_action = static_cast<uint8_t>(md.pending_soft_pin_action->action);
            o.pending_ttl = md.pending_soft_pin_action->ttl_ms;
            o.eligible = md.pending_soft_pin_action->eligible_replica_ids;
          }
#else
          o.has_pending = false;
#endif
          o.group = md.group_id;
          CopyTask(state, key, o);
          LocalDiskTasks(state, key, o);
          out.push_back(std::move(o));
        }
      }
    }
    return out;
  }

  // Whether `replica` is a DFS replica (none on a tree without them).
  template <typename R>
  static bool IsDfs(const R& replica) {
#if PINSIM_MC_HAS_DFS
    return replica.is_dfs_replica();
#else
    (void)replica;
    return false;
#endif
  }

  // Whether `replica` is a LOCAL_DISK replica (none on a tree without the tier).
  template <typename R>
  static bool IsLocalDisk(const R& replica) {
#if PINSIM_MC_HAS_LOCAL_DISK
    return replica.is_local_disk_replica();
#else
    (void)replica;
    return false;
#endif
  }

  // The replication task for `key` of a tenant's state: under way, or
  // expired with its expiry logged (durable_cleanup_pending: the reaper's
  // mark, which the durable callback finalises), whose targets are retiring.
  template <typename State>
  static void CopyTask(const State& state, const std::string& key, Object& o) {
    auto task = state.replication_tasks.find(key);
    o.copying = task != state.replication_tasks.end();
#if PINSIM_MC_HAS_TASK_DURABLE_CLEANUP
    if (o.copying && task->second.durable_cleanup_pending) {
      o.copying = false;
      o.expiring_targets = task->second.replica_ids;
    }
#endif
  }

  // The local-disk tier's tasks for `key` of a tenant's state: an offload
  // marker, a promotion task (none on a tree without the tier).
  template <typename State>
  static void LocalDiskTasks(const State& state, const std::string& key, Object& o) {
#if PINSIM_MC_HAS_LOCAL_DISK
    o.offloading = state.offloading_tasks.count(key) > 0;
    o.promoting = state.promotion_tasks.count(key) > 0;
#else
    (void)state, (void)key;
    o.offloading = o.promoting = false;
#endif
  }

#if PINSIM_MC_HAS_LOCAL_DISK
  // A new, empty promotion frequency sketch for a kept master, as its
  // constructor makes one: ResetStateAfterFailedRestoreAttempt leaves the
  // counts of the runs before (every count passes a threshold of 1, but a
  // run must not depend on them).
  static void ResetPromotionSketch(MasterService& s) {
    if (s.promotion_sketch_) s.promotion_sketch_ = std::make_unique<CountMinSketch>();
  }
#endif

#if PINSIM_MC_HAS_DFS
  // Whether the master really has DFS: the constructor turns it off
  // silently (enable_dfs_ false, no allocator) when the allocator fails to start.
  static bool DfsOn(const MasterService& s) {
    return s.enable_dfs_ && s.dfs_allocator_ && s.dfs_allocator_->IsInitialized();
  }
  static const DfsGlobalAllocator* DfsAllocator(const MasterService& s) { return s.dfs_allocator_.get(); }
  // A new DFS allocator, started as the constructor starts it, from the
  // environment (which the caller sets): for a kept master, whose old
  // allocator still holds the slots of the objects the reset dropped
  // (ResetStateAfterFailedRestoreAttempt leaves the allocator alone, and a
  // Replica's destructor frees no slot). No thread uses it meanwhile.
  static void RestartDfs(MasterService& s, const MasterServiceConfig& config) {
    s.dfs_allocator_.reset();
    s.InitDfsAllocatorFromEnvironment(config);
  }
#endif

#if PINSIM_MC_HAS_TENANT_ID_CLASS
  static bool IsDefaultTenant(const TenantId& t) { return t == TenantId::Default(); }
  static const std::string& TenantName(const TenantId& t) { return t.value(); }
#else  // the PR 2835 tree: tenant ids are strings, "default" without multi-tenancy
  static bool IsDefaultTenant(const std::string& t) { return t == "default"; }
  static const std::string& TenantName(const std::string& t) { return t; }
#endif

#if PINSIM_MC_HAS_MULTI_TENANT
  // Each tenant Mooncake lists (a policy or a charge), by Mooncake's tenant name.
  struct TenantQuota {
    std::string name;
    uint64_t charged;
    bool has_policy;
    uint64_t effective_quota;
  };
  static std::vector<TenantQuota> TenantQuotas(const MasterService& s) {
    std::vector<TenantQuota> out;
    for (const auto& snap : s.ListTenantQuotaSnapshots())
      out.push_back({snap.tenant_id.value(), snap.charged_bytes, snap.has_explicit_policy, snap.effective_quota_bytes});
    return out;
  }
  // One tenant's, as ListTenantQuotaSnapshots lists it; none when it is not listed.
  static std::optional<TenantQuota> TenantQuotaOf(const MasterService& s, const std::string& tenant) {
    auto snap = s.GetTenantQuotaSnapshot(TenantId(tenant));
    if (!snap) return std::nullopt;
    return TenantQuota{tenant, snap->charged_bytes, snap->has_explicit_policy, snap->effective_quota_bytes};
  }
  // What the constructor does in multi-tenant mode before rebuilding the
  // charges: load the policies from the connector (throws when it cannot).
  static void LoadPolicies(MasterService& s) { s.LoadTenantQuotaPoliciesFromStoreOrThrow(); }
  // What a restarted master does after restoring a snapshot (its constructor
  // rebuilds every tenant's charge from the restored metadata).
  static void RebuildCharges(MasterService& s) { s.RebuildTenantQuotaUsageFromMetadata(); }
#endif

  static void Evict(MasterService& s, double target, double lowerbound) {
#if PINSIM_MC_HAS_EVICT_FOR_TESTING
    s.RunBatchEvictForTesting(target, lowerbound);
#else
    s.BatchEvict(target, lowerbound);
#endif
  }

#if PINSIM_MC_HAS_RETAIN_GROUPS
  // The default tenant's retention entries (group name, deadline), expired
  // ones included, and the admission counter (one for all tenants).
  static std::vector<std::pair<std::string, Clock::time_point>> Retention(const MasterService& s) {
    std::vector<std::pair<std::string, Clock::time_point>> out;
    for (size_t i = 0; i < MasterService::kNumShards; ++i) {
      MasterService::MetadataShardAccessorRO shard(&s, i);
      for (const auto& [tenant, state] : shard->tenants) {
        if (!IsDefaultTenant(tenant)) continue;
        for (const auto& [group, deadline] : state.group_retention_deadlines) out.push_back({group, deadline});
      }
    }
    return out;
  }
  static uint64_t RetainedGroupCount(const MasterService& s) { return s.retained_group_count_.load(); }
#endif

  // What the replica-cleanup worker does when UnmountSegment schedules it
  // (the worker is stopped here, so its request would be dropped): the
  // ClearInvalidHandles sweep. Trees without the worker sweep inside
  // UnmountSegment, and this does nothing.
  static void SweepAfterUnmount(MasterService& s) {
#if PINSIM_MC_HAS_REPLICA_CLEANUP_WORKER
    s.ClearInvalidHandles();
#else
    (void)s;
#endif
  }

  // The graceful unmounts' timers a run left (their grace is longer than any
  // run): dropped when the master is kept for the next run, whose segments
  // have the same ids, so that no timer of one run can unmount another's.
  static void DropGraceTimers(MasterService& s) {
#if PINSIM_MC_HAS_GRACEFUL_UNMOUNT
    s.graceful_unmount_scheduler_.RemoveIf([](const auto&) { return true; });
#else
    (void)s;
#endif
  }

  // Dynamic replication's heat and admission state, which
  // ResetStateAfterFailedRestoreAttempt leaves: the per-key heat windows
  // (steady-clock starts), their cleanup order and next cleanup time, and the
  // admission queue with its set of queued keys. Cleared when the master is
  // kept for the next run, whose steady time starts again at the same base,
  // so that no window or proposal of one run counts in another.
  static void ResetDynamicReplication(MasterService& s) {
#if PINSIM_MC_HAS_DYN_REPL_WINDOWS
    {
      std::lock_guard<std::mutex> lock(s.dynamic_replication_mutex_);
      s.dynamic_replication_windows_.clear();
      s.dynamic_replication_window_order_.clear();
      s.dynamic_replication_next_window_cleanup_ = {};
    }
#endif
#if PINSIM_MC_HAS_DYN_REPL_ADMISSION
    {
      std::lock_guard<std::mutex> lock(s.dynamic_replication_admission_mutex_);
      s.dynamic_replication_admission_queue_ = {};
      s.dynamic_replication_admission_queued_.clear();
    }
#endif
    (void)s;
  }

  // What one cycle of the task-cleanup thread does to the object lifecycle,
  // as the tree has it: under the snapshot mutex (shared),
  // CleanupExpiredSoftPins (main, the deadline index) and
  // PruneExpiredGroupRetentions (PR 2835; it reads the virtual clock itself).
  static void Cleanup(MasterService& s, Clock::time_point now) {
#if PINSIM_MC_HAS_CLEANUP || PINSIM_MC_HAS_RETAIN_GROUPS
    std::shared_lock<std::shared_mutex> snapshot(s.snapshot_mutex_);
#endif
#if PINSIM_MC_HAS_CLEANUP
    s.CleanupExpiredSoftPins(now);
#endif
#if PINSIM_MC_HAS_RETAIN_GROUPS
    s.PruneExpiredGroupRetentions();
#endif
    (void)s;
    (void)now;
  }

#if PINSIM_MC_HAS_SNAPSHOT_CODEC
  static tl::expected<ha::MasterSnapshotPayloads, SerializationError> Encode(MasterService& s) {
    ha::MasterSnapshotCodec codec;
#if PINSIM_MC_HAS_SEGMENT_POOL  // the pool's view has no NoF manager of its own
    ha::MasterSnapshotStateView view(s, s.segment_pool_, s.local_ssd_manager_, s.task_manager_);
#elif PINSIM_MC_HAS_LOCAL_SSD_VIEW
    ha::MasterSnapshotStateView view(s, s.segment_manager_, s.local_ssd_manager_, s.nof_segment_manager_,
                                     s.task_manager_);
#else  // pre-#2909 tree: the view has no local-SSD manager
    ha::MasterSnapshotStateView view(s, s.segment_manager_, s.nof_segment_manager_, s.task_manager_);
#endif
    return codec.Encode(view);
  }

  static tl::expected<void, SerializationError> Decode(MasterService& s, const ha::MasterSnapshotPayloads& p) {
    ha::MasterSnapshotCodec codec;
    return codec.Decode(&s, p);
  }

  static void ResetState(MasterService& s) { s.ResetStateAfterFailedRestoreAttempt(); }
#if PINSIM_MC_HAS_RELEASE_CAPACITY && !PINSIM_MC_HAS_SEGMENT_POOL
  // What ~MasterService does last for the metrics: the mounted segments'
  // capacity leaves the totals, and their labels are removed.
  static void ReleaseCapacityMetrics(MasterService& s) { s.segment_manager_.releaseCapacityMetrics(); }
#endif

  static tl::expected<void, SerializationError> Apply(MasterService& s, Clock::time_point now) {
    return s.ApplySnapshotState(now);
  }
#endif

  // A name for a lock of `s` by its address: the member of MasterService it
  // lies in ("shard[17]", "deadline_index", "snapshot_mutex", ...), "metrics"
  // inside the metric manager, "" elsewhere. For the lock graph.
  static std::string LockName(const MasterService& s, const void* lock) {
    const char* p = static_cast<const char*>(lock);
    auto in = [p](const auto& member) {
      const char* b = reinterpret_cast<const char*>(&member);
      return p >= b && p < b + sizeof(member);
    };
    auto index = [p](const auto& array) {
      return std::to_string((p - reinterpret_cast<const char*>(&array[0])) / sizeof(array[0]));
    };
    if (in(s.metadata_shards_)) return "shard[" + index(s.metadata_shards_) + "]";
    if (in(s.object_operation_locks_)) return "object_op_lock[" + index(s.object_operation_locks_) + "]";
#if PINSIM_MC_HAS_CLEANUP
    if (in(s.soft_pin_deadline_index_)) return "deadline_index";
#endif
    if (in(s.snapshot_mutex_)) return "snapshot_mutex";
    if (in(s.client_mutex_)) return "client_mutex";
#if PINSIM_MC_HAS_GROUP_ROUTE
    if (in(s.group_routing_mutex_)) return "group_routing_mutex";
#endif
    if (in(s.discarded_replicas_mutex_)) return "discarded_replicas_mutex";
    if (in(s.tenant_quota_policy_mutex_)) return "tenant_quota_policy_mutex";
    if (in(s.tenant_quota_recompute_mutex_)) return "tenant_quota_recompute_mutex";
#if PINSIM_MC_HAS_MULTI_TENANT
    if (in(s.tenant_quota_table_)) return "tenant_quota_table";  // its shards' mutexes and its own
#endif
#if PINSIM_MC_HAS_SEGMENT_POOL  // the pool's mutex keeps the manager's name in the lock order
    if (in(s.segment_pool_)) return "segment_manager";
#else
    if (in(s.segment_manager_)) return "segment_manager";
#endif
    if (in(s.task_manager_)) return "task_manager";
    if (in(s)) return "master_service+" + std::to_string(p - reinterpret_cast<const char*>(&s));
    if (in(MasterMetricManager::instance())) return "metrics";
    return "";
  }

  // A seeded lock-order fault, for the concurrency lane's tests: shard 0's
  // lock, then the snapshot mutex (MasterService documents the reverse).
  static void LockShardThenSnapshot(const MasterService& s) {
    const std::lock_guard<SharedMutex> shard(s.metadata_shards_[0].mutex);
    const std::lock_guard<std::shared_mutex> snapshot(s.snapshot_mutex_);
  }

#if PINSIM_MC_HAS_GRACEFUL_UNMOUNT
  // Each segment by id, under one hold of the segment lock: the bytes its own
  // allocator holds (a leaving segment's is out of the manager, still valid)
  // and its state for View::mounted (not mounted; mounted and OK; mounted in
  // another status: leaving).
  struct SegmentState {
    size_t held;
    uint8_t mounted;
  };
  static std::vector<SegmentState> SegmentStates(const MasterService& cs, const std::vector<UUID>& ids) {
#if PINSIM_MC_HAS_SEGMENT_POOL
    const auto access = cs.segment_pool_.getView();
#else
    auto& s = const_cast<MasterService&>(cs);  // the segment accessor is not const; this only reads
    ScopedSegmentAccess access = s.segment_manager_.getSegmentAccess();
#endif
    std::vector<SegmentState> out;
    for (const UUID& id : ids) {
      SegmentStatus status = SegmentStatus::UNDEFINED;
      if (access.GetSegmentStatusById(id, status) != ErrorCode::OK) {
        out.push_back({0, pinsim::kUnmounted});
        continue;
      }
      const auto allocator = access.GetAllocator(id);
      out.push_back({allocator ? allocator->size() : 0,
                     status == SegmentStatus::OK ? pinsim::kMounted : pinsim::kLeaving});
    }
    return out;
  }
#endif

  // Used bytes of each named memory segment (for deterministic placement).
  static std::vector<std::pair<size_t, size_t>> Usage(const MasterService& cs, const std::vector<std::string>& names) {
    std::vector<std::pair<size_t, size_t>> out;  // {used, capacity}
#if PINSIM_MC_HAS_SEGMENT_POOL
    const auto view = cs.segment_pool_.getView();
    for (const std::string& name : names) {
      size_t used = 0, cap = 0;
      if (view.QuerySegments(name, used, cap) != ErrorCode::OK) used = cap = 0;
      out.push_back({used, cap});
    }
    return out;
#else
    auto& s = const_cast<MasterService&>(cs);  // the allocator accessor is not const; this only reads
    auto access = s.segment_manager_.getAllocatorAccess();
    const auto& manager = access.getAllocatorManager();
    for (const std::string& name : names) {
      size_t used = 0, cap = 0;
      if (const auto* allocators = manager.getAllocators(name)) {
        for (const auto& a : *allocators) {
          used += a->size();
          cap += a->capacity();
        }
      }
      out.push_back({used, cap});
    }
    return out;
#endif
  }
};

}  // namespace mooncake::test
