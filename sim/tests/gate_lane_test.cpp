// The gate's lane phase (gate.h, GateLane) with an invented lane on the
// model target: the lane gets a slice after the presets, its seeds are a run
// named "lane", a failure the lane names known stays known, one the base
// failed alike is pre-existing, any other is new and red, only new ones are
// shrunk, and a differential run takes exactly the base's lane seeds. The
// lane's corpus is replayed before the presets, and its rows and failures
// are the lane's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "gate.h"
#include "model_target.h"

namespace pinsim {
namespace {

// Seed 2 fails as a known race, seed 3 as an unknown one; every seed takes
// a hundredth of a virtual second.
struct FakeLane {
  double* clock;
  std::vector<uint64_t> ran;
  int shrinks = 0;
  GateLane lane() {
    GateLane l;
    l.replay_command = "fake --replay";
    l.run = [this](uint64_t seed) {
      ran.push_back(seed);
      *clock += 0.01;
      LaneSeed r;
      r.calls = 5;
      if (seed == 2 || seed == 3) {
        r.failure = Failure{.what = "not-linearizable", .field = seed == 2 ? "old" : "fresh"};
        r.signature = std::string("not-linearizable/outcomes/") + (seed == 2 ? "old" : "fresh");
        if (seed == 2) r.known_file = "findings/concurrency/old.json";
      }
      return r;
    };
    l.shrink = [this](const Trace& t) -> std::optional<std::pair<Trace, Failure>> {
      ++shrinks;
      return std::make_pair(t, Failure{.what = "not-linearizable"});
    };
    return l;
  }
};

GateOptions options(double* clock, GateLane lane) {
  GateOptions o;
  o.budget_seconds = 2;
  o.steps = 5;
  o.elapsed = [clock] { return *clock += 0.001; };  // time moves as the gate asks
  o.lane = std::move(lane);
  return o;
}

const PresetRun& lane_run(const GateResult& r) {
  const auto it = std::find_if(r.runs.begin(), r.runs.end(), [](const PresetRun& p) { return p.preset == kGateLane; });
  EXPECT_NE(it, r.runs.end());
  return *it;
}

TEST(GateLane, RunsAfterThePresetsAndSortsItsFailures) {
  double clock = 0;
  FakeLane fake{&clock};
  const GateOptions o = options(&clock, fake.lane());
  const GateResult r = run_gate(make_model_target, {}, {}, o);
  ASSERT_EQ(r.runs.back().preset, kGateLane);
  const PresetRun& lane = lane_run(r);
  EXPECT_GE(lane.seeds_run, 3u);
  EXPECT_EQ(lane.steps, 5 * lane.seeds_run);
  EXPECT_EQ(fake.ran.front(), 1u);
  std::vector<std::string> verdicts;
  for (const GateFailure& f : r.failures)
    if (f.source.rfind("lane seed ", 0) == 0) verdicts.push_back(f.source + " " + f.verdict);
  EXPECT_EQ(verdicts, (std::vector<std::string>{"lane seed 2 known", "lane seed 3 new"}));
  EXPECT_TRUE(r.red());
  EXPECT_EQ(fake.shrinks, 1);  // the new one alone
  const auto fresh = std::find_if(r.failures.begin(), r.failures.end(),
                                  [](const GateFailure& f) { return f.source == "lane seed 3"; });
  EXPECT_EQ(fresh->replay_command, "fake --replay");
  EXPECT_TRUE(fresh->shrunk.has_value());
}

TEST(GateLane, ADifferentialRunTakesTheBaseSeedsAndKnowsItsFailures) {
  double clock = 0;
  FakeLane fake{&clock};
  GateOptions o = options(&clock, fake.lane());
  o.base = GateBase{.runs = {{.preset = kGateLane, .seeds = {3, 7}}},
                    .failing = {{.source = "lane seed 3", .signature = "not-linearizable/outcomes/fresh"}}};
  const GateResult r = run_gate(make_model_target, {}, {}, o);
  EXPECT_EQ(fake.ran, (std::vector<uint64_t>{3, 7}));
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].verdict, "pre-existing");
  EXPECT_FALSE(r.red());
}

TEST(GateLane, AShardRunsItsOwnLaneSeeds) {
  double clock = 0;
  FakeLane fake{&clock};
  GateOptions o = options(&clock, fake.lane());
  o.shard_k = 1, o.shard_n = 3;
  run_gate(make_model_target, {}, {}, o);
  ASSERT_FALSE(fake.ran.empty());
  for (uint64_t seed : fake.ran) EXPECT_EQ(seed % 3, 1u) << seed;
}

// A trace of the corpus whose seed tells the fake lane's replay what to do.
std::string corpus_trace(uint64_t seed) {
  Trace t;
  t.seed = seed;
  // Named by the process too: ctest runs the tests of this file in parallel processes, and one
  // writing a trace another was reading made a test fail now and then.
  const std::string path =
      testing::TempDir() + "/gate-lane-corpus-" + std::to_string(getpid()) + "-" + std::to_string(seed) + ".json";
  std::ofstream(path) << write_trace(t);
  return path;
}

// Seed 1 passes, seed 2 fails as no finding names, seed 3 is refused and seed
// 4 passes off its recorded schedule.
LaneSeed replay_corpus(const Trace& t) {
  LaneSeed r;
  if (t.seed == 2u) {
    r.failure = Failure{.what = "not-linearizable", .detail = "put_start refused", .field = "cleanup"};
    r.signature = "not-linearizable/outcomes/cleanup";
  }
  if (t.seed == 3u) r.refused = true, r.refusal = "the tree lacks unmounts";
  r.diverged = t.seed == 4u;
  return r;
}

TEST(GateLane, ItsCorpusRunsFirstAndAFailureThereIsRed) {
  double clock = 0;
  FakeLane fake{&clock};
  GateOptions o = options(&clock, fake.lane());
  o.lane->replay = replay_corpus;
  for (uint64_t seed : {1, 2, 3, 4}) o.lane_scenario_files.push_back(corpus_trace(seed));
  const GateResult r = run_gate(make_model_target, {}, {}, o);
  std::vector<std::string> rows;
  for (const ScenarioResult& s : r.scenarios) rows.push_back(s.status + ": " + s.detail);
  EXPECT_EQ(rows, (std::vector<std::string>{"passed: ", "failed: put_start refused",
                                            "not applicable: the tree lacks unmounts",
                                            "passed: the run did not follow the recorded schedule"}));
  const auto corpus = std::find_if(r.failures.begin(), r.failures.end(), [](const GateFailure& f) {
    return f.source == "scenario " + corpus_trace(2);
  });
  ASSERT_NE(corpus, r.failures.end());
  EXPECT_EQ(corpus->verdict, "new");
  EXPECT_EQ(corpus->budget_needed, 0);  // whatever the budget
  EXPECT_EQ(corpus->replay_command, "fake --replay");
  EXPECT_TRUE(corpus->shrunk.has_value());
  EXPECT_TRUE(r.red());
}

TEST(GateLane, WithoutALaneItsCorpusIsNotApplicable) {
  double clock = 0;
  GateOptions o = options(&clock, GateLane{});
  o.lane.reset();
  o.lane_scenario_files = {corpus_trace(1)};
  const GateResult r = run_gate(make_model_target, {}, {}, o);
  ASSERT_EQ(r.scenarios.size(), 1u);
  EXPECT_EQ(r.scenarios[0].status, "not applicable");
}

}  // namespace
}  // namespace pinsim
