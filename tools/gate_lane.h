// The gate's concurrency lane (sim/gate.h, GateLane) for the Mooncake target:
// the Mooncake concurrency lane's seeds, so that `pinsim gate --target
// mooncake` also checks the code only a concurrent request runs (a call that
// overlaps an unmount, an eviction whose candidates changed under it).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "gate.h"
#include "known_findings.h"

namespace pinsim::cli {

// The lane, or nullopt when pinsim was built without a Mooncake tree.
// `findings` is the gate's findings directory: its `concurrency/` traces
// name the lane's known races, and `sequential` (its own findings) the
// failures whose calls, one after another, fail in the sequential lane.
std::optional<GateLane> mooncake_gate_lane(const std::string& findings, const std::vector<KnownFinding>& sequential);

}  // namespace pinsim::cli
