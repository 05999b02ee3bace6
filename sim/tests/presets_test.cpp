// The presets' promises about the configurations they draw, checked over
// many seeds of each (a preset reshapes a seed's swarm draw; these are the
// shapes the workload relies on to stay within what the rules decide).
#include <gtest/gtest.h>

#include "campaign.h"
#include "presets.h"

namespace pinsim {
namespace {

// Dynamic replication only with two memory segments: with three, two empty
// ones may tie as a proposal's target, and Mooncake breaks the tie by a hash
// the rules do not state (quotas seed 28918 drew a third one).
TEST(Presets, DynamicReplicationKeepsTwoMemorySegments) {
  for (const Preset& p : presets())
    for (uint64_t seed = 1; seed <= 3000; ++seed) {
      RandomChoices choices(seed);
      WorkloadConfig workload;
      Config config;
      draw_seed(choices, SeedOptions{.swarm = true, .preset = &p}, &workload, &config);
      if (!config.dynamic_replication) continue;
      size_t memory = 0;
      for (const SegmentConfig& s : config.segments) memory += s.kind == ReplicaKind::Memory;
      EXPECT_LE(memory, 2u) << "preset " << p.name << ", seed " << seed;
    }
}

}  // namespace
}  // namespace pinsim
