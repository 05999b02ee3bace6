// The op vocabulary shared by the model, every target and the trace format
// (docs/trace-format.md). Ops mirror MasterService's public API reduced to
// what the object lifecycle needs. Identifiers are small integers: a target
// maps them to its own names (tenant 0 is "default", group 0 is the empty
// group id, which means "ungrouped" on a write and is invalid in RetainGroups).
#pragma once
#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <string_view>
#include <vector>

#include "op_table.h"
#include "virtual_time.h"

namespace pinsim {

using TenantId = uint32_t;
using KeyId = uint32_t;
using GroupId = uint32_t;
using ClientId = uint32_t;
// The setup's client: it mounts the config's segments and is never drawn as
// an actor (actor 0 is an actor like any other).
inline constexpr ClientId kSetupClient = UINT32_MAX;

struct ObjectId {
  TenantId tenant = 0;
  KeyId key = 0;
  auto operator<=>(const ObjectId&) const = default;
};

// RFC 3028 "Write API": SoftPinAction { PRESERVE=0, ENABLE=1, DISABLE=2 }.
enum class SoftPinAction : uint8_t { Preserve = 0, Enable = 1, Disable = 2 };

// The request as a client sends it. `action` is the raw wire byte so that an
// unknown action (RFC request rule R5) is expressible.
struct SoftPinRequest {
  uint8_t action = static_cast<uint8_t>(SoftPinAction::Preserve);
  std::optional<uint64_t> ttl_ms;
  bool operator==(const SoftPinRequest&) const = default;
};

// The shape of ReplicateConfig::group_ids a write sends (Mooncake main
// distinguishes them): ByGroup is unset for group 0 and one id per key
// otherwise; Explicit is one id per key even for group 0 (the empty id:
// explicitly ungrouped, which an existing grouped object refuses); EmptyList
// is an empty list and TwoIds one id too many, both INVALID_PARAMS.
enum class GroupShape : uint8_t { ByGroup, Explicit, EmptyList, TwoIds };

// Replica kinds: memory plus NoF SSD, enough for partial End/Revoke (B4).
// Disk: the storage backend's file (disk mode); Dfs: a slot of the DFS allocator;
// LocalDisk: a file on the holder's own disk, written by an offload (rules local.*).
enum class ReplicaKind : uint8_t { Memory, Nof, Disk, Dfs, LocalDisk };
// Mooncake's ReplicaType selector on End/Revoke.
enum class ReplicaSelector : uint8_t { All, Memory, Nof, Disk, Dfs };  // All: the synchronous kinds (DFS too), not Disk

// The ops, in op_table.h order.
enum class OpKind : uint8_t {
#define PINSIM_OP_ENUM(kind, name, cls, weight, fields) kind,
  PINSIM_OPS(PINSIM_OP_ENUM)
#undef PINSIM_OP_ENUM
};
#define PINSIM_OP_COUNT(kind, name, cls, weight, fields) +1
inline constexpr int kOpKindCount = 0 PINSIM_OPS(PINSIM_OP_COUNT);
#undef PINSIM_OP_COUNT

struct OpInfo {
  OpKind kind;
  std::string_view name;
  OpClass cls;
  uint32_t weight;  // default campaign weight
  uint32_t fields;  // OpField bits
};

inline constexpr std::array<OpInfo, kOpKindCount> kOpTable{{
#define PINSIM_OP_INFO(kind, name, cls, weight, fields) {OpKind::kind, name, OpClass::cls, weight, fields},
    PINSIM_OPS(PINSIM_OP_INFO)
#undef PINSIM_OP_INFO
}};

constexpr const OpInfo& op_info(OpKind k) { return kOpTable[static_cast<size_t>(k)]; }
constexpr bool has_field(OpKind k, OpField f) { return (op_info(k).fields & f) != 0; }
constexpr bool is_start(OpKind k) { return op_info(k).cls == OpClass::Start; }
constexpr bool is_end(OpKind k) { return op_info(k).cls == OpClass::End; }
constexpr bool is_revoke(OpKind k) { return op_info(k).cls == OpClass::Revoke; }
constexpr bool is_key_op(OpKind k) { return has_field(k, kFieldKey); }
constexpr bool is_batch(OpKind k) { return has_field(k, kFieldKeys); }

// The single-key op a batch op applies to each of its keys; any other op is
// its own element, so a new single-key row needs nothing here, and a new
// batch row without its case fails OpTable.BatchOpsApplyTheirSingleKeyElement,
// naming the op.
constexpr OpKind element_kind(OpKind k) {
  switch (k) {
    case OpKind::BatchExist: return OpKind::Exist;
    case OpKind::BatchGet: return OpKind::Get;
    case OpKind::BatchPutEnd: return OpKind::PutEnd;
    case OpKind::BatchPutRevoke: return OpKind::PutRevoke;
    case OpKind::BatchUpsertStart: return OpKind::UpsertStart;
    case OpKind::BatchUpsertEnd: return OpKind::UpsertEnd;
    case OpKind::BatchUpsertRevoke: return OpKind::UpsertRevoke;
    case OpKind::BatchRemove: return OpKind::Remove;
    default: return k;
  }
}

// One flat record; each op reads only its own fields (see docs/trace-format.md).
struct Op {
  OpKind kind = OpKind::Advance;
  ClientId client = 0;           // the actor issuing the op
  ObjectId object{};             // key ops; RetainGroups uses object.tenant
  uint64_t size = 0;             // *_start
  uint32_t memory_replicas = 0;  // *_start
  uint32_t nof_replicas = 0;     // *_start
  uint32_t dfs_replicas = 0;     // *_start: Mooncake's dfs_replica_num (rules dfs.*)
  SoftPinRequest soft_pin{};     // *_start
  GroupId group = 0;             // *_start: 0 = ungrouped
  bool hard_pin = false;         // *_start: Mooncake's with_hard_pin
  GroupShape group_shape = GroupShape::ByGroup;  // *_start: how group_ids is sent
  ReplicaSelector selector = ReplicaSelector::All;  // *_end, *_revoke
  bool force = false;            // remove
  std::vector<GroupId> groups;   // retain_groups
  uint64_t ttl_ms = 0;           // retain_groups
  uint32_t evict_target_pct = 0;      // evict: fraction of candidates, percent
  uint32_t evict_lowerbound_pct = 0;  // evict: second-pass bound, percent
  bool fail_first_candidate = false;  // restore
  bool fail = false;                  // offload_end, promotion_end: the holder reports a failure (rules local.*)
  uint32_t segment = 0;               // unmount, mount, copy_start (its source): an index into Config::segments
  std::vector<uint32_t> targets;      // copy_start: the segments it copies to, indices into Config::segments
  uint64_t advance_ms = 0;            // advance
  uint64_t quota_bytes = 0;           // set_quota: the requested quota
  std::vector<KeyId> keys;            // batch ops, in call order (duplicates allowed); remove_by_regex: matched keys
  std::vector<uint64_t> sizes;        // batch_upsert_start: one per key (a mismatch is INVALID_PARAMS)
  std::optional<uint64_t> checksum;   // put_end, upsert_end: the object checksum the End declares (ObjectMeta)
  // propose: the proposal's id; copy_start/end/revoke: the copy of that
  // proposal's lease (its token, source and target; rules dynrep.*).
  std::optional<uint32_t> proposal;
  bool operator==(const Op&) const = default;
  // Every field, for digests. A new field must be added here too: the size
  // check below fails to compile until someone looks.
  auto fields() const {
    return std::tie(kind, client, object.tenant, object.key, size, memory_replicas, nof_replicas, dfs_replicas,
                    soft_pin.action, soft_pin.ttl_ms, group, hard_pin, group_shape, selector, force, groups, ttl_ms,
                    evict_target_pct, evict_lowerbound_pct, fail_first_candidate, advance_ms, quota_bytes, segment,
                    targets, keys, sizes, checksum, proposal, fail);
  }
};
static_assert(sizeof(Op) == 232, "Op changed: update Op::fields() and the op table's field sets");

// Element i of a batch, made from another element of the same batch (a
// batch's elements differ only in key and size): a copy of the batch per key,
// its key lists included, cost more than the key's own call.
inline void move_element(Op* e, const Op& batch, size_t i) {
  e->object.key = batch.keys[i];
  e->size = i < batch.sizes.size() ? batch.sizes[i] : batch.size;
}
// Element i of a batch op (i < keys.size()): the single-key op on keys[i],
// with the batch's client, tenant, write config, selector and force, and
// sizes[i] as its size when the batch carries sizes.
inline Op batch_element(const Op& batch, size_t i) {
  Op e = batch;
  e.kind = element_kind(batch.kind);
  move_element(&e, batch, i);
  e.keys.clear();
  e.sizes.clear();
  return e;
}

// Whole-batch validation (Mooncake's BatchUpsertStart): sizes, and group_ids
// when sent, must pair with keys one to one, else every element is
// INVALID_PARAMS and nothing changes.
// GetGroupIdForKey: group_ids, when a write sends it, holds one id per key.
inline bool one_group_id_per_key(const Op& op) {
  return op.group_shape == GroupShape::ByGroup || op.group_shape == GroupShape::Explicit;
}

inline bool batch_well_formed(const Op& batch) {
  if (!has_field(batch.kind, kFieldSizes)) return true;
  return batch.sizes.size() == batch.keys.size() && one_group_id_per_key(batch);
}

// Whether a write sends group_ids (a group it must match, 0 meaning "none").
inline bool sends_group(const Op& op) { return op.group != 0 || op.group_shape == GroupShape::Explicit; }

// The virtual time at which `op` applies, from `now`: an advance moves the
// clock (saturating at kTimeMax), every other op keeps it.
constexpr Time time_after(Time now, const Op& op) {
  return op.kind == OpKind::Advance ? saturating_deadline(now, op.advance_ms) : now;
}

// Whether `op` names the object: its key, or one of a batch op's keys.
inline bool touches(const Op& op, ObjectId id) {
  if (!is_batch(op.kind)) return is_key_op(op.kind) && op.object == id;
  if (id.tenant != op.object.tenant) return false;
  for (KeyId k : op.keys)
    if (k == id.key) return true;
  return false;
}

// The objects `op` names: its key's, or a batch op's keys'; none for an op
// of no key.
inline std::vector<ObjectId> named_objects(const Op& op) {
  std::vector<ObjectId> ids;
  if (is_batch(op.kind))
    for (KeyId k : op.keys) ids.push_back({op.object.tenant, k});
  else if (is_key_op(op.kind))
    ids.push_back(op.object);
  return ids;
}

// "t<tenant>/k<key>", how reports name an object.
inline std::string object_name(ObjectId id) { return "t" + std::to_string(id.tenant) + "/k" + std::to_string(id.key); }

std::string_view to_string(OpKind kind);
std::optional<OpKind> parse_op_kind(std::string_view name);
std::string_view to_string(SoftPinAction action);
std::optional<SoftPinAction> parse_soft_pin_action(std::string_view name);
std::string_view to_string(ReplicaSelector selector);
std::optional<ReplicaSelector> parse_replica_selector(std::string_view name);
std::string_view to_string(ReplicaKind kind);
std::string_view to_string(GroupShape shape);
std::optional<GroupShape> parse_group_shape(std::string_view name);

}  // namespace pinsim
