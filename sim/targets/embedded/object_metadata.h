// Per-object state as Mooncake's ObjectMetadata keeps it: replicas, the
// committed soft pin (soft_pin_timeout, behind the object's own lock because
// the expiry cycle clears it under a shard *read* lock), the Pending write
// intent with its eligible replica ids, the read lease, the group, the hard
// pin, the replication task (a copy under way), the marks of the replicas
// dynamic copies made with the recreate cooldown they leave, the tenant
// quota ledger, and the local-disk tier's offload marker, promotion task and
// per-replica pin counts (local_disk.cpp). The
// object owns its share of the gauge: +1 when built with a deadline, -1 when
// destroyed with one stored (RFC 3028 "Metrics": object destruction remains
// responsible for decrementing an active committed soft pin).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "object.h"
#include "local_disk_holder.h"
#include "soft_pin_gauge.h"
#include "tenant_quota_ledger.h"
#include "virtual_time.h"

namespace pinsim::embedded {

// What a soft-pin evaluation or commit asks the caller to apply once the
// object lock is released (ApplySoftPinEvaluation): an index Upsert of
// `deadline_to_index`, else a RemoveIfMatches of `removed_deadline`, then the
// gauge delta.
struct SoftPinEvaluation {
  bool active = false;
  int64_t delta = 0;
  std::optional<Time> deadline_to_index;
  std::optional<Time> removed_deadline;
};

// ComputeSoftPinDeadline: now + ttl, saturating (RFC 3028 C2), or wrapping
// when `wrap` (fault F6).
Time compute_deadline(Time now, uint64_t ttl_ms, bool wrap);

class ObjectMetadata {
 public:
  // `f3_shadow`: fault F3 (see the destructor).
  ObjectMetadata(SoftPinGauge& gauge, std::optional<Time> committed, bool f3_shadow);
  ~ObjectMetadata();
  ObjectMetadata(const ObjectMetadata&) = delete;
  // EmbeddedMaster::clone: a copy counted in `gauge`, which the copy of the
  // master's gauge already counts it in (so the copy adds nothing to it).
  std::unique_ptr<ObjectMetadata> copy_for(SoftPinGauge& gauge) const;
  ObjectMetadata& operator=(const ObjectMetadata&) = delete;

  // GetCommittedSoftPinTimeout: a copy, taken under the object lock.
  std::optional<Time> committed_deadline() const;
  // EvaluateSoftPin: resets a stale deadline (now >= D) and reports it.
  SoftPinEvaluation evaluate(Time now);
  // CommitPendingSoftPin: applies and clears `pending` (shard write lock held).
  SoftPinEvaluation commit_pending(Time now, bool wrap);
  // ExpireSoftPinIfDeadlineMatches: clears the pin only if it still equals
  // `expected` and now >= expected; `check_equality` false is fault F2.
  bool expire_if_matches(Time expected, Time now, bool check_equality);
  // Sets a new deadline (the renewal faults F1 and F10): Upsert, +1 if none.
  SoftPinEvaluation renew_to(Time deadline);
  // The TTL of the last Enable commit (used by fault F10 only).
  uint64_t committed_ttl_ms() const { return committed_ttl_ms_; }

  // Guarded by the shard lock (written under the write lock only).
  ClientId client = 0;
  uint64_t size = 0;
  std::vector<Replica> replicas;
  std::optional<Pending> pending;
  Time lease = 0;
  Time put_start_time = 0;
  GroupId group = 0;
  bool hard_pinned = false;  // with_hard_pin: set at creation only, never evicted
  bool processing = false;   // in processing_keys
  std::optional<uint64_t> checksum;  // object_checksum: set by every End of a write
  std::optional<CopyTask> task;      // the replication task: its targets are the replicas marked `copy`
  TenantQuotaLedger quota;   // multi-tenant mode: this object's charge
  // Dynamic replication (MarkDynamicReplica): the replicas dynamic copies
  // made, and (DynamicReplicationRecreateBlocked) no dynamic copy before
  // `recreate_after`, set when one of them leaves. Neither is serialised.
  std::set<ReplicaId> dynamic_replicas;
  Time recreate_after = 0;
  // The local-disk tier (rules local.*): the offload under way, the promotion
  // under way (its staged replica marked `copy`: only the promotion settles
  // it), and each replica's refcnt (an offload pins its source: no eviction).
  std::optional<OffloadMarker> offload;
  std::optional<PromotionTask> promotion;
  std::map<ReplicaId, uint32_t> refcnt;

  // VisitReplicas(fn_is_completed, fn).
  template <typename Fn>
  void visit_complete_replicas(Fn fn) {
    for (Replica& r : replicas)
      if (r.status == ReplicaStatus::Complete) fn(r);
  }
  // BeginSoftPinAction: the write's intent and the replicas it may commit on.
  void begin_soft_pin_action(SoftPinAction action, uint64_t ttl_ms, ReplicaIds eligible) {
    pending = Pending{action, ttl_ms, std::move(eligible)};
  }

  // ForgetDynamicReplicas for replicas [from, end): how many were marked.
  size_t forget_dynamic_replicas(std::vector<Replica>::const_iterator from, std::vector<Replica>::const_iterator end);
  const Replica* replica_on(uint32_t segment) const;  // GetReplicaBySegmentName
  uint32_t complete_memory_replicas() const;          // readable memory replicas

  bool any_complete() const;
  bool all_complete() const;
  bool write_complete() const;              // every replica but a copy's targets is COMPLETE
  bool evictable(const Replica& r) const;   // a COMPLETE memory replica of the object no copy reads, refcnt 0
  bool has_evictable_memory() const;
  bool memory_processing() const;           // a memory replica of the write (not a copy's) is PROCESSING
  uint64_t complete_memory_bytes() const;   // size x COMPLETE memory replicas, a copy's targets aside
  uint64_t write_memory_bytes() const;      // size x the write's memory replicas (a copy's targets aside)
  uint32_t viable_pending_replicas() const;

 private:
  ObjectMetadata(const ObjectMetadata& other, SoftPinGauge& gauge);  // copy_for: adds nothing to `gauge`
  SoftPinGauge& gauge_;
  mutable std::mutex lock_;  // Mooncake's per-object SpinLock
  std::optional<Time> soft_pin_timeout_;
  // F3: the deadline as last set by a commit, carry or lazy expiry; the
  // expiry cycle does not update it.
  std::optional<Time> last_committed_;
  bool f3_shadow_ = false;
  uint64_t committed_ttl_ms_ = 0;
};

}  // namespace pinsim::embedded
