// The regression gate: a verdict on a build of a target (in practice a
// Mooncake change) within a budget. It replays the scenario corpus (with a
// concurrency lane, the lane's corpus too) and the known findings of the
// target's tree, runs a campaign split across the aimed presets, shrinks
// each distinct new failure, and sorts every failure into known (matches a
// finding of this tree), pre-existing (the base tree failed the same seed the
// same way), changed (with a base: a known or pre-existing failure the base
// shows differently on that seed, or not at all) or new. Any new or changed
// failure makes it red.
// The clock is the caller's (`elapsed`): the gate itself reads none.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "campaign.h"
#include "known_findings.h"
#include "presets.h"

namespace pinsim {

// One preset's seeds (the base result's, for a differential run).
struct PresetRun {
  std::string preset;
  uint64_t seeds_run = 0, refused = 0, steps = 0;
  std::vector<uint64_t> seeds;  // every seed tried, run or refused
  double started = 0;           // seconds into the gate when the preset began
};

struct GateFailure {
  std::string source;  // "preset pins seed 17", "scenario upsert/x.json", "finding main-x.json"
  std::string preset;  // for campaign failures
  uint64_t seed = 0;
  std::string signature;
  std::string fingerprint;  // failure_fingerprint: equal on two trees that fail this source alike
  std::string verdict;      // "new", "known", "pre-existing", "changed"
  std::string base_detail;  // "changed": how the base failed this source ("" when it passed)
  std::string known_file;
  Failure failure;
  Trace trace;
  std::optional<Trace> shrunk;  // new failures, one per distinct signature
  Failure shrunk_failure;        // how `shrunk` fails (its differences are the ones `replay` shows)
  double seconds = 0;  // seconds into the gate when it was found
  // The smallest budget whose gate finds it too (the budget split below):
  // 0 for the corpus and the findings, which run whatever the budget.
  double budget_needed = 0;
  std::string replay_command;  // a lane's failure: how its trace is replayed ("" for `pinsim replay`)
};

struct ScenarioResult {
  std::string file;
  std::string status;  // "passed", "failed", "not applicable"
  std::string detail;
};

struct FindingResult {
  std::string file;
  std::string status;  // "still failing", "fixed", "changed", "not applicable"
  std::string detail;
};

// One failure of a base run. `fingerprint` is "" in summaries written before
// it existed: such a failure is compared by signature alone.
struct BaseFailure {
  std::string source, signature, fingerprint, detail;
};

// What a base run recorded: seeds per preset and the failures.
struct GateBase {
  std::vector<PresetRun> runs;
  std::vector<BaseFailure> failing;
};

// A digest of where and how a run failed: the step, what differed, and both
// sides' JSON. Two trees whose targets behave alike on a trace give the same
// fingerprint; the same failure signature at another step or with other
// values does not.
std::string failure_fingerprint(const Failure& failure);

// One seed of a concurrency lane (the Mooncake target's): the lane draws a
// scenario and a schedule from the seed, runs it and decides itself whether
// a failure is known (its findings match on signatures and conditions the
// sequential lane does not have).
struct LaneSeed {
  bool refused = false;         // the target refused the scenario: not a run
  std::string refusal;          // why, for a trace of the corpus ("" for a seed)
  bool diverged = false;        // a trace of the corpus: the run could not follow its recorded schedule
  std::optional<Failure> failure;  // what "not-linearizable", "exception", "deadlock" or "lock-cycle"
  std::string signature;        // the failure's, as the lane's findings name it
  std::string known_file;       // the finding that names it, or ""
  Trace trace;                  // the run as a concurrent trace (its schedule), when it failed
  uint64_t calls = 0;           // steps before the round and calls in it (a run's "steps")
};

// A lane the gate runs after the presets, with one preset's slice of the
// budget; its seeds are a run named kGateLane (the base's, in a differential
// run), its failures sorted like the presets' (without fingerprints: a
// schedule follows the target's locking, so a change moves a known race to
// other seeds). Before the presets, whatever the budget, it replays the
// lane's corpus (GateOptions::lane_scenario_files): traces aimed at code that
// only a concurrent request runs, which its seeds reach too rarely.
inline constexpr const char* kGateLane = "lane";  // its run's name and its failures' sources ("lane seed 7")
struct GateLane {
  std::function<LaneSeed(uint64_t seed)> run;
  // The failing trace shrunk (its schedule and calls), with how it fails, or nullopt.
  std::function<std::optional<std::pair<Trace, Failure>>(const Trace&)> shrink;
  // A trace of the corpus under its recorded schedule; where the run cannot
  // follow it (a change to the target's locking), the run goes on and is
  // checked all the same (`diverged`).
  std::function<LaneSeed(const Trace&)> replay;
  std::string replay_command;  // how a lane trace is replayed: "mooncake_concurrency --replay"
};

struct GateOptions {
  double budget_seconds = 120;
  uint64_t steps = 200;
  std::optional<Profile> profile;
  std::vector<std::string> scenario_files;
  std::vector<std::string> lane_scenario_files;  // the lane's corpus (scenarios/lane/): replayed when there is a lane
  std::vector<KnownFinding> known;
  std::optional<GateBase> base;  // differential: run the base's seeds
  uint64_t shard_k = 0, shard_n = 1;
  std::function<double()> elapsed;  // seconds since the gate started
  bool stop_on_new = false;  // end at the first new failure (mutation runs: a kill is enough)
  unsigned jobs = 1;  // worker processes for the presets' seeds (campaign.h)
  std::optional<GateLane> lane;  // in one process: its actors are threads
  bool log_window = false;  // the presets' HA-OpLog seeds draw the log's window (SeedOptions)
};

struct GateResult {
  std::string variant;
  std::vector<ScenarioResult> scenarios;
  std::vector<FindingResult> findings;
  std::vector<PresetRun> runs;
  std::vector<GateFailure> failures;
  double campaign_start = 0;  // seconds into the gate when the presets began
  double seconds = 0;
  bool red() const;
  bool checked_nothing() const;
};

GateResult run_gate(TargetFactory factory, const TargetOptions& target_options, const Checks& checks,
                    const GateOptions& options);

}  // namespace pinsim
