// Where the bytes of each replica are: the segment of every replica of every
// object, and of every discarded replica not yet released. A View shows only
// the bytes allocated per segment, so two states with one View may still
// differ here, and the next placement, remove or release tells them apart.
// The concurrent lane (sim/sched) compares it at the end of a round, so that
// it goes on from the model states that placed as the target did.
#pragma once
#include <algorithm>
#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "object.h"
#include "op.h"
#include "virtual_time.h"

namespace pinsim {

// One replica, without its id (ids differ between targets; the pending
// write's eligibility, the one thing an id decides, is kept).
struct ReplicaPlacement {
  ReplicaKind kind = ReplicaKind::Memory;
  ReplicaStatus status = ReplicaStatus::Processing;
  uint32_t segment = 0;
  bool eligible = false;  // in the object's Pending eligible set
  auto operator<=>(const ReplicaPlacement&) const = default;
};

struct ObjectPlacement {
  ObjectId id{};
  std::vector<ReplicaPlacement> replicas;  // in the object's order
  auto operator<=>(const ObjectPlacement&) const = default;
};

// Discarded replicas held until `release_at`.
struct DiscardedPlacement {
  Time release_at = 0;
  uint64_t size = 0;
  std::vector<ReplicaPlacement> replicas;
  auto operator<=>(const DiscardedPlacement&) const = default;
};

struct Placement {
  std::vector<ObjectPlacement> objects;        // sorted by id
  std::vector<DiscardedPlacement> discarded;  // sorted (the order of release is by time)
  bool operator==(const Placement&) const = default;
};

inline std::vector<ReplicaPlacement> placement_of(std::span<const Replica> replicas,
                                                  const std::optional<Pending>& pending) {
  std::vector<ReplicaPlacement> out;
  out.reserve(replicas.size());
  for (const Replica& r : replicas)
    out.push_back({r.kind, r.status, r.segment, pending && pending->is_eligible(r.id)});
  return out;
}

// Sorts what a target collected in its own order.
inline void sort_placement(Placement* p) {
  std::sort(p->objects.begin(), p->objects.end());
  std::sort(p->discarded.begin(), p->discarded.end());
}

}  // namespace pinsim
