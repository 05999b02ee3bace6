// The shrinker: takes any failing trace (from a campaign, a CI log, a real
// Mooncake run) and returns a minimal one that fails the same way: the same
// kind of failure (`what`), at a step of the same op kind, with the same
// `field` (see Failure). It removes steps (delta debugging), merges actors,
// merges and shortens advances, and simplifies arguments (smaller TTLs and
// sizes, fewer replicas, lower key, tenant, group and actor ids), repeating
// until nothing more can go. Shrinking a minimal trace returns it unchanged.
#pragma once
#include <cstddef>
#include <optional>

#include "campaign.h"

namespace pinsim {

struct ShrinkResult {
  Trace trace;      // minimal; expectations are the model's, except a planted one
  Failure failure;  // how the minimal trace fails
  size_t replays = 0;
};

// nullopt when `failing` does not fail against the target.
std::optional<ShrinkResult> shrink(const Trace& failing, TargetFactory factory, const TargetOptions& options = {},
                                   const Checks& checks = {});

}  // namespace pinsim
