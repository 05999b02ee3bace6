// Aimed presets: swarm draws that concentrate on one area of the lifecycle
// (groups with reads and leases, pins across upserts and preemption, tenant
// quotas, restore, eviction under pressure, retention, expiry). A preset
// reshapes the seed's swarm draw; it never removes an op the target can do,
// so a preset aims a campaign without switching any feature off. `pinsim
// gate` splits its budget across them; `pinsim run --preset NAME` runs one.
#pragma once
#include <span>
#include <string_view>

#include "choices.h"
#include "config.h"
#include "workload.h"

namespace pinsim {

struct Preset {
  std::string_view name;
  std::string_view summary;
  void (*shape)(Choices& choices, WorkloadConfig& workload, Config& config);
};

std::span<const Preset> presets();
const Preset* find_preset(std::string_view name);

}  // namespace pinsim
