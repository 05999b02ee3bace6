// One seed of a random campaign, and replay of a trace: the two ways a run is
// driven. Both go through Lockstep, so a recorded seed replays identically.
#pragma once
#include <cstdint>
#include <optional>

#include <functional>
#include <map>

#include "known_findings.h"
#include "presets.h"
#include "runner.h"
#include "target.h"
#include "trace.h"
#include "workload.h"

namespace pinsim {

struct SeedOptions {
  uint64_t steps = 200;
  bool swarm = false;
  std::optional<Profile> profile;  // overrides the drawn/default profile
  const Preset* preset = nullptr;  // reshapes the swarm draw (implies swarm)
  // Whether HA-OpLog seeds draw the log's window (oplog_lag) in half of them:
  // for a target with a log that can lag (Mooncake's) and the model itself,
  // as `pinsim run` and the gate do; not for the embedded master.
  bool log_window = false;
};

struct RunResult {
  Trace trace;  // every step applied, with the model's outcome as expectation
  std::optional<Failure> failure;
  uint64_t comparisons = 0;
  RuleHits hits;  // the rules the model applied during the run
  std::string error;  // the target refused the configuration
  uint64_t unchecked_expectations = 0;  // expected fields the target cannot show
  std::string variant;  // Target::variant() of the target run against
  uint64_t steps = 0;  // steps applied (the trace may come back without them: CampaignOptions)
  // The concurrent lane's figures (sim/sched/concurrent_lane.h): rounds run,
  // calls made, schedules run, scheduling decisions and preemptions, and the
  // most distinct lock-graph edges one round showed.
  uint64_t rounds = 0, calls = 0, schedules = 0, decisions = 0, preemptions = 0, lock_edges = 0;
};

// The seed's draw before any op: swarm or preset shape and profile override
// (the first draws of `choices`, shared by the lockstep and concurrent lanes).
void draw_seed(RandomChoices& choices, const SeedOptions& options, WorkloadConfig* workload, Config* config);

RunResult run_seed(uint64_t seed, const SeedOptions& options, TargetFactory factory,
                   const TargetOptions& target_options = {}, const Checks& checks = {});

// What a campaign did, summed over its seeds.
struct CampaignSummary {
  uint64_t seeds = 0, refused = 0, steps = 0, comparisons = 0, failures = 0;
  std::map<std::string, uint64_t> known;  // finding file -> seeds that met it (failed there or went on past it)
  RuleHits hits;
  RuleHits seeds_hitting;  // per rule: how many run seeds applied it at least once
  // The concurrent lane's figures, summed (lock_edges: the most in one round).
  uint64_t schedules = 0, decisions = 0, preemptions = 0, lock_edges = 0;
};

// The one seed loop: seeds first..last in order, only those of one shard
// (seed % shard_n == shard_k), while `more` allows. A configuration the
// target refuses is counted, not run. A failure matching a known finding of
// the target's tree is counted as known, not as a failure. One matching a
// finding marked goes_on (a standing offset of a metric) does not end its
// seed: the run goes on, comparing the metric against the offset, and the
// trace records it (`went_on`), so that a replay goes on past it too.
//
// With `jobs` > 1 the seeds run in that many worker processes, ahead of the
// loop, and come back in seed order (seed_processes.h): the loop, its
// callback and its summary see exactly what one process would see, except
// that a passing seed's trace comes back without its steps unless
// `passing_traces` is set (a failing seed's always has them).
struct CampaignOptions {
  uint64_t first = 1, last = UINT64_MAX;
  uint64_t shard_k = 0, shard_n = 1;
  SeedOptions seed;
  std::vector<KnownFinding> known;
  std::function<bool(const CampaignSummary&)> more;  // asked before each seed; empty: until `last`
  // Non-empty: exactly these seeds, in this order (first, last and the shard
  // are not used); a differential gate runs its base's seeds so.
  std::vector<uint64_t> seed_list;
  unsigned jobs = 1;
  bool passing_traces = false;
  // Runs one seed in place of the lockstep run_seed (empty: run_seed): how
  // the concurrent lane (sim/sched/concurrent_lane.h) uses this loop.
  std::function<RunResult(uint64_t seed)> seed_runner;
};

// Sees every run seed (refused ones excluded) and the finding its failure
// matched, if any; returns false to end the campaign.
// The known finding a run's failure matches (nullptr: none, or no failure):
// its signature, on the run's tree, with the op kinds and conditions it met.
const KnownFinding* known_failure(const std::vector<KnownFinding>& known, const RunResult& r);

using SeedCallback = std::function<bool(uint64_t seed, RunResult& result, const KnownFinding* known)>;

CampaignSummary run_campaign(const CampaignOptions& options, TargetFactory factory, const TargetOptions& target_options,
                             const Checks& checks, const SeedCallback& on_seed = {});
// The campaign until its first failure (known findings count too): the seed
// and its result, or nullopt. `refused`, when given, receives the count.
std::optional<std::pair<uint64_t, RunResult>> first_failure(const CampaignOptions& options, TargetFactory factory,
                                                            const TargetOptions& target_options = {},
                                                            const Checks& checks = {}, uint64_t* refused = nullptr);

RunResult replay(const Trace& trace, TargetFactory factory, const TargetOptions& target_options = {},
                 const Checks& checks = {});

}  // namespace pinsim
