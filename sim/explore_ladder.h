// Small scope first: the ladder of universes `pinsim explore --seconds S`
// climbs when no universe flag is named. Why it exists: the seeded faults
// need 1-6 ops, a few of them in a master configuration the default universe
// never has, and the default universe (about 2,500 ops per state, every op
// kind of two keys and two actors) does not get past depth 2-3 in a minute,
// while one key, one actor and the dozen op kinds of one area reach depth 6
// in seconds. So the explore tries small universes first, each breadth first
// to its own depth (a counterexample is still a shortest one within its
// universe), and ends with the default universe for the rest of the budget.
// The rungs are one table (explore_ladder.cpp), read from what the seeded
// faults of the embedded master need, each row saying why it is there.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "explorer.h"

namespace pinsim {

// The master configurations a rung may explore besides Mooncake's defaults;
// the swarm and the presets draw each of them (sim/workload.cpp, sim/presets.cpp).
enum class RungMaster : uint8_t {
  Defaults,    // as the default universe: Mooncake's defaults
  HugeTtls,    // TTL bounds lifted and TTLs of 2^64 - 1 ms named (deadline saturation)
  LittleRoom,  // 64-byte segments and 64-byte writes: each segment holds one write
  Quotas,      // multi-tenant mode, tenant 0's quota one write of 64 bytes; hard pins
  Disk,        // disk mode: every write also gets a disk replica
  Copies,      // disk mode and a second memory segment: a copy of a write's readable replica while it is in flight
  Dynamic,     // dynamic replication (disk mode, two memory segments): one read makes a key hot
  Dfs,         // DFS replicas: an allocator shard of one slot, which half the writes ask for
  LocalDisk,   // the local-disk tier: the setup client's disk takes offloads and stages promotions
  HaOpLog,     // HA-OpLog mode: the operation log on, so a failover to a standby that read it
};

struct LadderRung {
  std::string_view name;
  uint32_t keys = 1, actors = 1;
  std::string ops;                     // op kinds, comma separated (as --ops)
  std::vector<uint64_t> ttls;          // soft-pin TTLs an Enable may name (as --ttls)
  std::vector<uint64_t> steps;         // plain advances (as --steps)
  uint32_t nof = 1;                    // writes ask for 0..nof NoF replicas (as --nof)
  RungMaster master = RungMaster::Defaults;
  uint32_t max_depth = 0;              // 0: as deep as the budget and the memory cap allow
  uint32_t budget_pct = 100;           // the share of the budget by which the rung ends, summed over the rungs so far
  bool default_universe = false;       // the last rung: the explore's own universe, as given
};

// The rungs, smallest first; the last is the default universe.
const std::vector<LadderRung>& explore_ladder();

// The explore flags that name a universe (docs/explorer.md): naming one keeps
// the explore to that universe alone, as before the ladder.
const std::vector<std::string_view>& universe_flags();
// Whether an explore climbs the ladder: it has a time budget (--seconds) and
// `named`, the flags given on its command line, names no universe flag.
bool climbs_ladder(bool budget, const std::vector<std::string>& named);

// One line: the rung's universe as explore flags, and its master when not the defaults.
std::string describe(const LadderRung& rung);

// The explore of one rung: `base` (the default universe, and what is not the
// universe: target, checks, profile, memory cap) with the rung's universe;
// `max_depth`, when given, bounds the rung's own depth.
ExploreOptions rung_options(const LadderRung& rung, const ExploreOptions& base, std::optional<uint32_t> max_depth);

struct RungResult {
  size_t index = 0;  // in explore_ladder()
  uint32_t max_depth = 0;
  ExploreResult result;  // result.refused: the model or the target refused this rung's configuration
};

struct LadderOptions {
  ExploreOptions base;
  std::optional<uint32_t> max_depth;  // --depth: a bound on every rung
  // The stop test of a rung that must end by `budget_pct` percent of the
  // budget (the caller owns the clock); nullptr: rungs end by depth alone.
  std::function<std::function<bool()>(uint32_t budget_pct)> budget;
  std::function<void(const RungResult&)> on_rung;  // after each rung, for progress lines
};

struct LadderResult {
  std::vector<RungResult> rungs;  // the rungs run, in order; a counterexample ends the climb
  const RungResult* found() const;  // the rung that found the counterexample, or nullptr
  bool stopped() const;             // a rung was cut by the budget or the memory cap
  std::string refused;              // every rung was refused: the last reason
};

LadderResult climb_ladder(const LadderOptions& options);

}  // namespace pinsim
