// The real Mooncake MasterService as a pinsim target: one
// MasterService per target, in this process, under a virtual clock, with its
// background threads stopped, so a run is as deterministic as against the
// model. Built only when pinsim is configured with a Mooncake source and
// build tree (sim/targets/mooncake/README.md).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "target.h"

namespace pinsim {

// Refuses (nullptr, `error` set) a configuration the adapter cannot express:
// a profile other than the tree's, multi-tenant mode or DFS slots on a tree
// without them, timeouts that are not whole seconds, a Mooncake constructor
// that throws, or a DFS allocator that does not start.
std::unique_ptr<Target> make_mooncake_target(const Config& config, const TargetOptions& options,
                                             std::string* error);

// The model profile this tree is checked against (picked at configure time).
std::string_view mooncake_target_profile();
// One line: the tree and what it lacks.
std::string_view mooncake_target_description();

// False for an op the attached tree or the adapter cannot perform (the target
// answers UNSUPPORTED for it): tenants other than 0 outside multi-tenant mode
// (Mooncake folds every tenant into "default" there), NoF replicas or the NoF
// selector without a NoF build, retain_groups without PR 2835, cleanup without
// the deadline index or the retention prune, DFS requests without DFS in the
// tree, snapshot and restore in a configuration with DFS slots (Mooncake
// states DFS incompatible with snapshot recovery). A campaign that wants to
// compare only what both sides can do draws another op instead (every
// campaign does).
bool mooncake_target_supports(const Op& op, const Config& config);

// Whether the tree's BatchEvict can be seeded (its random shard start and
// census come from a random engine the adapter seeds). Without it the
// sequential lane follows whatever victims it takes, but the locks it takes
// differ from run to run, so the concurrency lane refuses an evict actor.
bool mooncake_evict_is_seedable();

// The name of a lock of a Mooncake target's MasterService by its address
// ("shard[17]", "deadline_index", "snapshot_mutex", ...; "" for a lock that
// is no member of it), for the lock graph of the concurrency lane.
std::string mooncake_lock_name(const Target& target, const void* lock);
// The index of the metadata shard an object's key routes to now (the name of
// its lock is "shard[i]"); nullopt on other targets.
std::optional<size_t> mooncake_shard_of(const Target& target, ObjectId id);
// A seeded fault for the lane's tests (the lock-order check must be able to
// fail): takes shard 0's lock and then the snapshot mutex of a Mooncake
// target's MasterService, against its documented order; a no-op otherwise.
void mooncake_lock_order_fault(const Target& target);
// Where a Mooncake target's unmount sweeps the objects it left without a
// replica (ClearInvalidHandles, the replica-cleanup worker's): inside the
// call (false, the default), or at Target::settle, which the concurrency
// lane runs after a round's calls (true: the window production leaves
// between UnmountSegment's return and the worker's sweep). A no-op on other
// targets.
void mooncake_defer_unmount_sweep(Target& target, bool deferred);

}  // namespace pinsim
