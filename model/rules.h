// The rule catalogue: every rule the model implements, with where it comes
// from. Model code marks a rule when it applies it (a coverage mark, as
// TigerBeetle's `marks` do), so a run can report which rules it exercised and
// every scenario can name the rule it proves. One X-macro keeps ids, names and
// sources together.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace pinsim {

// X(id, name, source, summary)
#define PINSIM_RULES(X)                                                                  \
  X(Rfc1, "rfc.1", "RFC 3028 rule 1", "commit on the first zero-to-one COMPLETE change via the current write")    \
  X(Rfc2, "rfc.2", "RFC 3028 rule 2", "Enable(ttl) deadline = completion time + ttl")                 \
  X(Rfc3, "rfc.3", "RFC 3028 rule 3", "reads grant only the read lease, never touch the soft pin")     \
  X(Rfc4, "rfc.4", "RFC 3028 rule 4", "at now >= deadline the object is ordinary cache")              \
  X(Rfc5, "rfc.5", "RFC 3028 rule 5", "a later explicit Enable starts a new lifetime")                \
  X(Rfc6, "rfc.6", "RFC 3028 rule 6", "Disable removes the pin when the write becomes readable")       \
  X(Rfc7, "rfc.7", "RFC 3028 rule 7", "Preserve keeps an unexpired deadline, drops an expired one")    \
  X(Rfc8, "rfc.8", "RFC 3028 rule 8", "Enable with TTL 0 commits ordinary cache")                     \
  X(Rfc9, "rfc.9", "RFC 3028 rule 9", "soft pin is a priority: the second eviction pass may take it")  \
  X(Rfc10, "rfc.10", "RFC 3028 rule 10", "removal APIs remove pinned objects")                        \
  X(ReqR1, "request.preserve-ttl", "RFC 3028 Write API R1", "Preserve with a TTL is rejected")          \
  X(ReqR2, "request.disable-ttl", "RFC 3028 Write API R2", "Disable with a TTL is rejected")             \
  X(ReqR3, "request.default-ttl", "RFC 3028 Write API R3", "Enable without TTL uses the master default") \
  X(ReqR4, "request.max-ttl", "RFC 3028 Write API R4", "a TTL above max_kv_soft_pin_ttl is rejected")  \
  X(ReqR5, "request.unknown-action", "RFC 3028 Write API R5", "an unknown action is rejected")          \
  X(ConfigC1, "config.default-le-max", "RFC 3028 Master configuration C1", "default TTL <= max TTL")    \
  X(SatC2, "config.saturation", "RFC 3028 Master configuration C2", "deadline arithmetic saturates")    \
  X(NoCommitLaterEnd, "pending.no-refresh", "RFC 3028 Object state model", "later and duplicate Ends never refresh") \
  X(PendingKept, "pending.revoke-kept", "RFC 3028 Revoke, preemption, and processing cleanup",                       \
    "Pending survives a partial revoke while a viable eligible replica remains")                                     \
  X(PendingCleared, "pending.revoke-cleared", "RFC 3028 Revoke, preemption, and processing cleanup",                 \
    "Pending cleared when no viable eligible replica remains")                                                       \
  X(PendingPreempted, "pending.preempted", "RFC 3028 Revoke, preemption, and processing cleanup",                    \
    "a newer Upsert preempts the write and clears Pending")                                                          \
  X(UpsertInPlace, "upsert.in-place", "RFC 3028 Revoke, preemption, and processing cleanup (UpsertStart Case B)",    \
    "same-size Upsert reuses replicas; committed untouched until End")                                               \
  X(UpsertReplace, "upsert.size-change", "RFC 3028 Revoke, preemption, and processing cleanup (UpsertStart Case C)", \
    "size-changing Upsert carries an unexpired deadline")                                                            \
  X(UpsertAfterPreempt, "upsert.preempt-replace",                                                                    \
    "RFC 3028 Revoke, preemption, and processing cleanup (UpsertStart Case A)",                                      \
    "preempted write with no COMPLETE replica is replaced, unexpired deadline carried")                              \
  X(StartFailureAtomic, "start.failure-atomic", "RFC 3028 Revoke, preemption, and processing cleanup",               \
    "a refused Start that would replace an object leaves it, its deadline and its write as they were")               \
  X(PutReplacesStale, "put.replace-stale", "Mooncake main PutStart (unchanged path)",                                \
    "PutStart over stale PROCESSING replicas recreates without carry")                                               \
  X(Cleanup, "expiry.cleanup", "RFC 3028 Expiration cleanup", "one cycle resets every stored deadline <= now")                        \
  X(LazyExpiry, "expiry.lazy", "RFC 3028 Read and eviction paths", "eviction normalises an expired pin it meets")                     \
  X(Gauge, "gauge.transition", "RFC 3028 Metrics",                                                                   \
    "the gauge moves only at Disabled<->Active transitions: +1, -1, 0 for a new deadline")                           \
  X(EvictPass1, "evict.pass1", "Mooncake main BatchEvict (unchanged path)",                                          \
    "first pass takes only objects without an active pin")                                                           \
  X(EvictGroupSkip, "evict.group-lease", "Mooncake main BatchEvict (unchanged path)",                                \
    "a group is skipped while any member holds a lease")                                                             \
  X(RemoveLease, "remove.lease", "Mooncake main Remove (unchanged path)",                                            \
    "non-forced remove refuses an object with a live lease")                                                         \
  X(RemoveByRegex, "remove.by-regex", "Mooncake main RemoveByRegex",                                              \
    "the tenant's objects whose key matches go, under RemoveAll's conditions")                                       \
  X(Quota, "tenant.quota", "Mooncake main tenant quota (docs/interpretations.md, Tenants and quotas)",              \
    "a write over the tenant's effective quota is refused after its quota-eviction retries")                         \
  X(TenantNotRegistered, "tenant.registration", "Mooncake main multi-tenant mode (ResolveTenantIdForWrite)",          \
    "in multi-tenant mode a write by a tenant without a quota policy is TENANT_NOT_REGISTERED")                      \
  X(EffectiveQuota, "tenant.effective-quota", "Mooncake main tenant quota (BuildEffectiveQuotaAssignments)",          \
    "quotas above the memory capacity are scaled down in proportion, largest remainders first")                      \
  X(QuotaCharge, "tenant.charge", "Mooncake main tenant quota ledger (docs/interpretations.md)",                      \
    "a tenant is charged size x memory replicas; a replaced object's charge stays until the new write settles")      \
  X(QuotaEviction, "tenant.quota-eviction", "Mooncake main EvictTenantMemoryForQuota",                               \
    "a write refused for quota evicts the tenant's own evictable objects and is retried, three attempts in all")     \
  X(QuotaPolicySet, "tenant.policy-set", "Mooncake main UpsertTenantQuotaPolicy",                                   \
    "a policy of 1..2^63-1 bytes is set at run time; effective quotas are recomputed, charges stay")                 \
  X(QuotaPolicyDelete, "tenant.policy-delete", "Mooncake main DeleteTenantQuotaPolicy",                             \
    "a policy is deleted only while its tenant holds no charge and no object; the tenant is then unregistered")     \
  X(GroupIdsShape, "group.ids-shape", "Mooncake main GetGroupIdForKey, UpsertStart group immutability",           \
    "group_ids must hold one id per key; an explicit empty id is ungrouped and must match the object")               \
  X(HardPinSet, "hardpin.set", "Mooncake main ReplicateConfig::with_hard_pin",                                       \
    "a hard pin is set when the object is created, from the request")                                                \
  X(HardPinKept, "hardpin.kept", "Mooncake main UpsertStart Cases B and C",                                          \
    "an upsert keeps the hard pin: in place unchanged, a size change ORs in the request's")                          \
  X(HardPinNeverEvicted, "hardpin.never-evicted", "Mooncake main BatchEvict, EvictTenantMemoryForQuota",              \
    "no eviction takes a hard-pinned object, and none normalises its soft pin")                                      \
  X(NoHandle, "alloc.no-handle", "Mooncake main PutStart, UpsertStart (unchanged path)",                             \
    "allocation without room fails with NO_AVAILABLE_HANDLE and counts a placement failure")                         \
  X(PartialPlacement, "alloc.partial", "RFC silent; docs/interpretations.md (Metrics the View compares); "          \
    "Mooncake main AllocateAndInsertMetadata",                                                                     \
    "a write placed with fewer replicas than it asked for succeeds and counts a partial placement")                 \
  X(RestoreRfc, "restore.rfc", "RFC 3028 Snapshot and HA semantics", "restore keeps unexpired deadlines, normalises expired ones")    \
  X(RestoreMain, "restore.mooncake-main", "Mooncake main ApplySnapshotState (mooncake-main profile)",                \
    "restore makes every object ordinary cache, drops lease-expired ones")                                           \
  X(RestoreFallback, "restore.fallback", "RFC 3028 Snapshot and HA semantics", "a failed candidate leaves nothing behind")            \
  X(GroupRefresh, "group.read-refresh", "RFC 3028 Read and eviction paths; Mooncake main GrantLeaseForGroup",        \
    "a group read refreshes member leases, coalesced, never soft pins")                                              \
  X(Pr2835Results, "pr2835.results", "PR 2835 rule 1", "per-group results: accepted, full, INVALID_PARAMS")                          \
  X(Pr2835MaxDeadline, "pr2835.max-deadline", "PR 2835 rule 2", "a group deadline is max(existing, now + ttl)")                       \
  X(Pr2835Intent, "pr2835.intent", "PR 2835 rule 3", "future members inherit an unexpired group deadline")                           \
  X(Pr2835Protection, "pr2835.protection", "PR 2835 rule 4", "retention is the read lease on every current member")                  \
  X(Pr2835Admission, "pr2835.admission", "PR 2835 rule 5", "live retained groups <= cap; extensions accepted at capacity")           \
  X(Pr2835Expiry, "pr2835.expiry", "PR 2835 rule 7", "expired entries are pruned and stop counting")                                 \
  X(Pr2835Restore, "pr2835.restore", "PR 2835 rule 9", "the retention table is not durable")                     \
  X(SegmentUnmount, "segment.unmount", "RFC silent; docs/interpretations.md (Segments); Mooncake main UnmountSegment", \
    "an unmounted segment's replicas go; an object left with none is erased (the gauge -1 with a deadline)")       \
  X(SegmentUnmountKeeps, "segment.unmount-keeps",                                                                  \
    "RFC 3028 Revoke, preemption, and processing cleanup; docs/interpretations.md (Segments)",                       \
    "an object with replicas elsewhere keeps them, pin, lease, group; Pending goes with its last eligible replica")  \
  X(SegmentMount, "segment.mount", "RFC silent; docs/interpretations.md (Segments); Mooncake main MountSegment",      \
    "a mounted segment starts empty, an unmounted one takes nothing; both calls are idempotent")                     \
  X(SegmentRestore, "segment.restore", "RFC 3028 Snapshot and HA semantics; docs/interpretations.md (Segments)",     \
    "a restore brings back the segments mounted when the snapshot was taken")                                       \
  X(FailoverStandby, "failover.standby", "RFC 3028 Snapshot and HA semantics; docs/interpretations.md (Failover)",   \
    "a failover keeps objects with a COMPLETE replica, a fresh lease, the pin as a restore; no intent, copy")       \
  X(FailoverNoStandby, "failover.no-standby", "RFC silent; docs/interpretations.md (Failover)",                     \
    "outside HA-OpLog mode there is no standby: UNAVAILABLE_IN_CURRENT_MODE, nothing changes")                      \
  X(LogWindow, "log.window", "Mooncake RFC 2756 Phase 4; docs/interpretations.md (The log's window)",               \
    "while the log lags a logged removal is visible at once; memory, charge, pin and cached count are held")       \
  X(LogCatchUp, "log.catch-up", "Mooncake RFC 2756 Phase 4; docs/interpretations.md (The log's window)",            \
    "the log catches up at an advance and before a failover (a restore starts afresh): what retiring held is freed") \
  X(SegmentGraceful, "segment.graceful",                                                                       \
    "RFC silent; docs/interpretations.md (Segments); Mooncake main GracefulUnmountSegment",                        \
    "the owner's graceful unmount: no new replicas, still readable, ended by an unmount or a restore")            \
  X(ReadChecksum, "read.checksum", "RFC silent; docs/interpretations.md (Checksums); Mooncake main PutEnd",         \
    "a get returns the checksum the last End of a write declared, or none; a retried End changes nothing")        \
  X(DiskReplica, "disk.replica", "RFC silent; docs/interpretations.md (Disk replicas); Mooncake main PutStart",       \
    "disk mode: a write gets a disk replica, PROCESSING until an End names disk; `all` names the others only")      \
  X(DiskSurvives, "disk.survives", "RFC silent; docs/interpretations.md (Disk replicas); Mooncake main BatchEvict",  \
    "eviction and unmount take memory only: an object with a disk replica stays, readable from disk once COMPLETE") \
  X(ReadHit, "read.hit", "RFC silent; docs/interpretations.md (Metrics the View compares); Mooncake GetReplicaList", \
    "a successful get counts as a read served, and its bytes as a memory hit, else a disk hit from disk") \
  X(ReqReplicas, "request.replicas", "RFC silent; Mooncake main PutStart, UpsertStart (replica_num, size checks)",    \
    "a write that asks for no replica at all, or for 0 bytes, is INVALID_PARAMS and changes nothing")              \
  X(CopyStart, "copy.start", "RFC silent; docs/interpretations.md (Copies); Mooncake main CopyStart",               \
    "a copy adds a PROCESSING target on each named segment without a replica of the object, from a COMPLETE "      \
    "source, one task per object; a refused copy changes nothing")                                                 \
  X(CopyEnd, "copy.end", "RFC silent; docs/interpretations.md (Copies); Mooncake main CopyEnd, CopyRevoke",        \
    "the owner's End completes the targets left; a lost source fails it and drops them; a Revoke drops them")     \
  X(CopyNoPin, "copy.no-pin", "RFC 3028 Summary; Non-goals (Copy, Move, promotion are no activation points)",     \
    "a copy never commits, extends, refreshes or clears a soft pin or a Pending, nor grants a lease")              \
  X(CopyTargets, "copy.targets", "RFC silent; docs/interpretations.md (Copies)",                                   \
    "a write's End, Revoke and release timeout never act on a copy's targets")                                     \
  X(CopyBlocks, "copy.blocks", "RFC silent; docs/interpretations.md (Copies); Mooncake main Remove, UpsertStart",   \
    "an object being copied is not removed nor replaced by an Upsert, and its source replica is not evicted")     \
  X(CopyExpiry, "copy.expiry", "RFC silent; docs/interpretations.md (Copies); DiscardExpiredProcessingReplicas", \
    "a copy older than the release timeout is discarded at the next eviction; a restore keeps no copy")            \
  X(DynHeat, "dynrep.heat", "RFC silent; docs/interpretations.md (Dynamic replication); Mooncake main GetReplicaList", \
    "a read of an object with 1..max-1 COMPLETE memory replicas is a hit of its key (one per batch); min_hits "     \
    "hits in one window make the key hot")                                                                         \
  X(DynPropose, "dynrep.propose", "RFC silent; docs/interpretations.md (Dynamic replication); Mooncake main "        \
    "SubmitReplicaActionProposal", "a proposal for a hot, idle object with room elsewhere is granted a 30-s lease " \
    "(source, target); a retry of a live one answers it again; a refused one changes nothing")                      \
  X(DynCooldown, "dynrep.cooldown", "RFC silent; docs/interpretations.md (Dynamic replication)",                     \
    "a key takes no proposal for 30 s after a grant unless its copy ends, nor for 60 s after a dynamic replica goes") \
  X(DynCopy, "dynrep.copy", "RFC silent; docs/interpretations.md (Dynamic replication); Mooncake main CopyStart",    \
    "a copy with the lease's token copies its source to its target and ends its lease; a stale token is refused") \
  X(DfsRequest, "dfs.request", "RFC silent; docs/interpretations.md (DFS replicas); Mooncake main PutStart",       \
    "a write asks for at most one DFS replica, beside a memory one, in the default tenant, of a master with DFS")  \
  X(DfsSlot, "dfs.slot", "RFC silent; docs/interpretations.md (DFS replicas); Mooncake main DfsGlobalAllocator",   \
    "a DFS write needs all its replicas placed and a free slot; a DFS replica frees its slot the moment it goes")  \
  X(DfsUpsert, "dfs.upsert", "RFC silent; docs/interpretations.md (DFS replicas); Mooncake main UpsertStart",      \
    "a same-size Upsert where DFS is involved asks for the replicas the object has, else INVALID_PARAMS")           \
  X(DfsSurvives, "dfs.survives", "RFC silent; docs/interpretations.md (DFS replicas); Mooncake main BatchEvict",    \
    "eviction and unmount take memory only: an object with a DFS replica stays, readable from it once COMPLETE")     \
  X(LocalOffload, "local.offload", "RFC silent; docs/interpretations.md (The local-disk tier); Mooncake main PutEnd", \
    "an End queues one offload of a COMPLETE memory replica on the holder's segments, unless one is under way; "   \
    "that replica is not evicted meanwhile; an in-place Upsert drops the stale disk replica")                      \
  X(LocalComplete, "local.complete", "RFC silent; docs/interpretations.md (The local-disk tier); "                   \
    "Mooncake main OffloadObjectHeartbeat, NotifyOffloadSuccess", "the holder takes the queued offloads; its "      \
    "report of the object's own offload ends it, a success adding the disk replica; any other report changes nothing") \
  X(LocalPromote, "local.promote", "RFC silent; docs/interpretations.md (The local-disk tier); Mooncake main "        \
    "GetReplicaList", "a read of an object with a LOCAL_DISK replica and no memory one, whose write is not in "    \
    "flight, queues one promotion unless memory is at the high watermark")                                          \
  X(LocalStage, "local.stage", "RFC silent; docs/interpretations.md (The local-disk tier); Mooncake main "            \
    "PromotionAllocStart, NotifyPromotionSuccess, NotifyPromotionFailure", "the holder stages one PROCESSING "      \
    "memory replica for a queued promotion; its success completes it, its failure or the replica's loss ends it")   \
  X(LocalBlocks, "local.blocks", "RFC silent; docs/interpretations.md (The local-disk tier); Mooncake main "          \
    "UpsertStart", "an Upsert is refused while a promotion or a taken offload is under way; one that goes ahead "  \
    "cancels a queued offload")                                                                                     \
  X(LocalExpiry, "local.expiry", "RFC silent; docs/interpretations.md (The local-disk tier); Mooncake main "          \
    "DiscardExpiredProcessingReplicas", "an offload or a promotion older than the release timeout is cancelled "   \
    "at the next eviction, a staged replica freed")                                                                 \
  X(LocalSurvives, "local.survives", "RFC silent; docs/interpretations.md (The local-disk tier)",                     \
    "eviction and unmount take memory only: an object with a LOCAL_DISK replica stays, readable from it")          \
  X(LocalNoPin, "local.no-pin", "RFC 3028 Summary (a deadline is not extended by storage promotion); Non-goals",     \
    "an offload or a promotion never commits, extends, refreshes or clears a soft pin or a Pending")

enum class Rule : uint16_t {
#define PINSIM_RULE_ENUM(id, name, source, summary) id,
  PINSIM_RULES(PINSIM_RULE_ENUM)
#undef PINSIM_RULE_ENUM
};

#define PINSIM_RULE_COUNT(id, name, source, summary) +1
inline constexpr int kRuleCount = 0 PINSIM_RULES(PINSIM_RULE_COUNT);
#undef PINSIM_RULE_COUNT

struct RuleInfo {
  Rule rule;
  std::string_view name;
  std::string_view source;
  std::string_view summary;
};

const std::array<RuleInfo, kRuleCount>& rule_catalogue();
std::optional<Rule> parse_rule(std::string_view name);

// How often each rule was applied; owned by a Model instance (no globals).
struct RuleHits {
  std::array<uint64_t, kRuleCount> count{};
  void hit(Rule r) { ++count[static_cast<int>(r)]; }
  uint64_t operator[](Rule r) const { return count[static_cast<int>(r)]; }
  void merge(const RuleHits& other) {
    for (int i = 0; i < kRuleCount; ++i) count[i] += other.count[i];
  }
};

}  // namespace pinsim
