// Why a model state's Placement (model/placement.h) is not the target's, for
// the concurrent lane's failure report when some order of a round's calls
// ends in the target's View but none places the replicas as it did.
#pragma once
#include <string>

#include "placement.h"
#include "runner.h"

namespace pinsim::sched {

// The first object (or discarded entry) whose replicas differ, as one line.
Difference describe_placement_difference(const Placement& expected, const Placement& actual);
// A Placement as JSON text: {"objects": [{"tenant", "key", "replicas"}], "discarded": [...]},
// each replica as "memory@0", "nof@2", with "+processing" and "+eligible".
std::string encode_placement(const Placement& p);

}  // namespace pinsim::sched
