// The embedded master's DFS replicas (rules dfs.*), the way Mooncake's
// MasterService handles them: PutStart and UpsertStart check the request's
// dfs_replica_num (at most one, beside a memory replica, in the default
// tenant, of a master with DFS), a write asking for one is
// RELIABLE_MULTI_REPLICA (has_expected_allocation), and after its memory, NoF
// and disk replicas it takes a slot of the DFS allocator (dfs_allocator.h)
// for one more replica, last, PROCESSING, on no segment. A same-size Upsert
// where DFS is involved must ask for the object's replicas. Every path by
// which replicas leave an object (freed, discarded, erased) calls
// FreeDfsReplicas on them: a DFS replica frees its slot the moment it goes,
// and a discarded one waits in the discarded list without a slot.
// Evictions and unmounts take memory only, so they never reach one.
#include <algorithm>

#include "embedded_master.h"

namespace pinsim::embedded {

// PutStart's and UpsertStart's DFS checks, in Mooncake's order (after the
// no-replica and size check, before the group ids), but for the last: a
// master without DFS answers DFS_SERVICE_UNAVAILABLE only to a request that
// breaks no request rule (validate_start; Mooncake checks it here).
std::optional<ErrorCode> EmbeddedMaster::validate_dfs(const Op& op) const {
  if (op.dfs_replicas == 0) return std::nullopt;
  if (op.dfs_replicas > 1 || op.memory_replicas == 0) return ErrorCode::INVALID_PARAMS;  // invalid_dfs_replica_config
  if (op.object.tenant != 0) return ErrorCode::INVALID_PARAMS;  // dfs_currently_requires_default_tenant
  return std::nullopt;
}

// UpsertStart Case B's dfs_upsert_topology_mismatch: where the request asks
// for DFS or the object has a DFS replica, the request must ask for the
// replicas the in-place write reuses, by kind. Mooncake counts them after
// preempting a write in flight (its COMPLETE ones are left); here they are
// counted before, so that a refusal changes nothing (the model's order).
bool EmbeddedMaster::same_dfs_topology(const Op& op, const ObjectMetadata& md) const {
  auto count = [&md](ReplicaKind kind) {  // CountReplicas, of the replicas the in-place write reuses
    return static_cast<uint32_t>(std::count_if(md.replicas.begin(), md.replicas.end(), [kind](const Replica& r) {
      return r.status == ReplicaStatus::Complete && r.kind == kind;
    }));
  };
  const uint32_t existing_dfs = count(ReplicaKind::Dfs);
  if (op.dfs_replicas == 0 && existing_dfs == 0) return true;
  return count(ReplicaKind::Memory) == op.memory_replicas && count(ReplicaKind::Nof) == op.nof_replicas &&
         existing_dfs == op.dfs_replicas;
}

// DfsGlobalAllocator::Allocate for a write that asks for DFS, after its other
// replicas (alloc_mutex_ held): the replica goes last. `freed_first` are the
// DFS replicas of the object the write replaces, whose slots count as free.
bool EmbeddedMaster::allocate_dfs_locked(const Op& op, const std::vector<ReplicaId>& freed_first,
                                         std::vector<Replica>* out) {
  if (op.dfs_replicas == 0) return true;
  const ReplicaId id = next_replica_id_++;
  if (!dfs_.allocate(id, freed_first)) return false;
  out->push_back({.id = id, .segment = kNoSegment, .kind = ReplicaKind::Dfs});
  return true;
}

// FreeDfsReplicas (alloc_mutex_ held): the DFS replicas among [from, end)
// give their slots back.
void EmbeddedMaster::free_dfs_locked(std::vector<Replica>::const_iterator from,
                                     std::vector<Replica>::const_iterator end) {
  for (auto r = from; r != end; ++r)
    if (r->kind == ReplicaKind::Dfs) dfs_.free(r->id);
}

// The DFS replicas of an object a Start replaces.
std::vector<ReplicaId> EmbeddedMaster::dfs_replica_ids(const ObjectMetadata* md) {
  std::vector<ReplicaId> ids;
  if (md)
    for (const Replica& r : md->replicas)
      if (r.kind == ReplicaKind::Dfs) ids.push_back(r.id);
  return ids;
}

}  // namespace pinsim::embedded
