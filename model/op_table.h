// The op table: one row per op of the vocabulary. The enum, the wire names in
// traces, the op classes (and so every is_start/is_end predicate), the JSON
// field sets, the default workload weights and the schema's op list derive
// from it. Adding an op is a row here, the model's rule code, and each
// target's mapping: every `switch (op.kind)` has no default, so -Wswitch
// (an error here) names each place that must handle it.
//
// A batch op (field keys) is the single-key op element_kind() names applied
// to each key in order, after the whole-batch validation Mooncake's Batch*
// call states; it answers one result per key.
#pragma once
#include <cstdint>

namespace pinsim {

// What an op is to the lifecycle: which predicates hold.
enum class OpClass : uint8_t {
  Start,      // creates or restarts a write (Put/Upsert Start)
  End,        // completes a write's replicas
  Revoke,     // withdraws a write's replicas
  Read,       // grants the read lease (GetReplicaList, ExistKey)
  Remove,     // removes an object
  Retention,  // RetainGroups (PR 2835)
  Master,     // acts on the whole master: eviction, cleanup, snapshot, restore
  Policy,     // sets or deletes a tenant's quota policy (multi-tenant mode)
  Segment,    // unmounts or mounts a segment (a client leaving or joining)
  Replication,  // a replication task: a copy of an object's replica, an offload to or a promotion from the local disk
  Clock,      // moves virtual time
};

// The JSON fields an op reads besides "op", "t", "actor" and "expect".
enum OpField : uint32_t {
  kFieldTenant = 1u << 0,    // tenant
  kFieldKey = 1u << 1,       // key
  kFieldSize = 1u << 2,      // size
  kFieldSelector = 1u << 3,  // replicas: all, memory, nof
  kFieldForce = 1u << 4,     // force
  kFieldGroups = 1u << 5,    // groups, ttl_ms
  kFieldEvict = 1u << 6,     // target_pct, lowerbound_pct
  kFieldRestore = 1u << 7,   // fail_first_candidate
  kFieldAdvance = 1u << 8,   // ms
  kFieldWriteConfig = 1u << 9,  // memory_replicas, nof_replicas, soft_pin, group, group_ids, hard_pin
  kFieldKeys = 1u << 10,     // keys: a batch op's keys, applied in order
  kFieldSizes = 1u << 11,    // sizes: batch_upsert_start, one per key
  kFieldPattern = 1u << 12,  // keys: the keys remove_by_regex's pattern matches (the target writes the regex)
  kFieldQuota = 1u << 13,    // quota: the requested bytes of set_quota
  kFieldSegment = 1u << 14,  // segment: the index (into the config's segments) unmount, mount, graceful_unmount act on
  kFieldChecksum = 1u << 15,  // checksum: the object checksum a single-key End declares (optional)
  kFieldTargets = 1u << 16,   // targets: the segment indices copy_start copies to (segment: its source)
  kFieldProposal = 1u << 17,  // proposal: propose's id; on a copy op, the copy of that proposal's lease (optional)
  kFieldFail = 1u << 18,      // fail: offload_end, promotion_end report the holder's failure instead of its success
};

inline constexpr uint32_t kKeyFields = kFieldTenant | kFieldKey;
inline constexpr uint32_t kFieldWrite = kFieldSize | kFieldWriteConfig;
inline constexpr uint32_t kBatchFields = kFieldTenant | kFieldKeys;

// X(Kind, wire name, class, default campaign weight, fields). A weight of 0
// keeps an op out of the default mix and the swarm's random weights: a swarm
// switches it on from a stream of its own (draw_segment_churn), so a seed
// that does not draw it draws every other op exactly as before it existed.
#define PINSIM_OPS(X)                                                                               \
  X(PutStart, "put_start", Start, 12, kKeyFields | kFieldWrite)                                     \
  X(PutEnd, "put_end", End, 12, kKeyFields | kFieldSelector | kFieldChecksum)                                  \
  X(PutRevoke, "put_revoke", Revoke, 3, kKeyFields | kFieldSelector)                                \
  X(UpsertStart, "upsert_start", Start, 10, kKeyFields | kFieldWrite)                               \
  X(UpsertEnd, "upsert_end", End, 6, kKeyFields | kFieldSelector | kFieldChecksum)                             \
  X(UpsertRevoke, "upsert_revoke", Revoke, 2, kKeyFields | kFieldSelector)                          \
  X(Get, "get", Read, 10, kKeyFields)                                                               \
  X(Exist, "exist", Read, 6, kKeyFields)                                                            \
  X(Remove, "remove", Remove, 5, kKeyFields | kFieldForce)                                          \
  X(RemoveAll, "remove_all", Remove, 1, kFieldTenant | kFieldForce)                                \
  X(RemoveByRegex, "remove_by_regex", Remove, 1, kFieldTenant | kFieldPattern | kFieldForce)         \
  X(RetainGroups, "retain_groups", Retention, 5, kFieldTenant | kFieldGroups)                       \
  X(Evict, "evict", Master, 4, kFieldEvict)                                                         \
  X(Cleanup, "cleanup", Master, 5, 0)                                                               \
  X(Snapshot, "snapshot", Master, 2, 0)                                                             \
  X(Restore, "restore", Master, 2, kFieldRestore)                                                   \
  X(Failover, "failover", Master, 0, 0)                                                             \
  X(Advance, "advance", Clock, 16, kFieldAdvance)                                                   \
  X(BatchExist, "batch_exist", Read, 2, kBatchFields)                                               \
  X(BatchGet, "batch_get", Read, 3, kBatchFields)                                                   \
  X(BatchPutEnd, "batch_put_end", End, 3, kBatchFields | kFieldSelector)                            \
  X(BatchPutRevoke, "batch_put_revoke", Revoke, 1, kBatchFields | kFieldSelector)                   \
  X(BatchUpsertStart, "batch_upsert_start", Start, 3, kBatchFields | kFieldSizes | kFieldWriteConfig) \
  X(BatchUpsertEnd, "batch_upsert_end", End, 2, kBatchFields)                                       \
  X(BatchUpsertRevoke, "batch_upsert_revoke", Revoke, 1, kBatchFields)                              \
  X(BatchRemove, "batch_remove", Remove, 2, kBatchFields | kFieldForce)                            \
  X(SetQuota, "set_quota", Policy, 1, kFieldTenant | kFieldQuota)                                   \
  X(DeleteQuota, "delete_quota", Policy, 1, kFieldTenant)                                          \
  X(Unmount, "unmount", Segment, 0, kFieldSegment)                                                  \
  X(Mount, "mount", Segment, 0, kFieldSegment)                                                      \
  X(GracefulUnmount, "graceful_unmount", Segment, 0, kFieldSegment)                                 \
  X(CopyStart, "copy_start", Replication, 0, kKeyFields | kFieldSegment | kFieldTargets | kFieldProposal) \
  X(CopyEnd, "copy_end", Replication, 0, kKeyFields | kFieldProposal)                               \
  X(CopyRevoke, "copy_revoke", Replication, 0, kKeyFields | kFieldProposal)                         \
  X(Propose, "propose", Replication, 0, kKeyFields | kFieldProposal)                                \
  X(OffloadTake, "offload_take", Replication, 0, 0)                                                 \
  X(OffloadEnd, "offload_end", Replication, 0, kKeyFields | kFieldFail)                             \
  X(PromotionStart, "promotion_start", Replication, 0, kKeyFields)                                  \
  X(PromotionEnd, "promotion_end", Replication, 0, kKeyFields | kFieldFail)

}  // namespace pinsim
