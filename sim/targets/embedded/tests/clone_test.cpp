// Target::clone of the embedded master: a copy taken at any point of a run
// goes on exactly as the original does (same outcomes, Views and replica
// placement for the rest of the run), and the two are independent. Swarm
// seeds cover multi-tenant quotas, snapshots, retention and segment churn,
// the dynamic preset's seeds dynamic replication (heat, leases, cooldowns,
// dynamic-replica marks, the client's tokens), the local preset's the
// local-disk tier; a fault is carried into the copy.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "campaign.h"
#include "embedded_target.h"
#include "model_target.h"
#include "presets.h"

namespace pinsim {
namespace {

// Runs `trace` on a fresh embedded master and on a copy of it taken before
// step `at`, both to the end; the first step where they differ, or "".
std::string first_difference(const Trace& trace, size_t at, const TargetOptions& options) {
  std::string error;
  std::unique_ptr<Target> original = make_embedded_target(trace.config, options, &error);
  if (!original) return "refused: " + error;
  std::unique_ptr<Target> copy;
  for (size_t i = 0; i < trace.steps.size(); ++i) {
    if (i == at) copy = original->clone();
    const TraceStep& s = trace.steps[i];
    const Outcome a = original->apply(s.op, s.t);
    if (!copy) continue;
    const Outcome b = copy->apply(s.op, s.t);
    const std::string where = "step " + std::to_string(i) + " (copy taken before step " + std::to_string(at) + ")";
    if (!(a == b)) return where + ": outcomes differ";
    if (!(original->view(s.t) == copy->view(s.t))) return where + ": Views differ";
    if (original->placement() != copy->placement()) return where + ": placements differ";
  }
  return copy || at >= trace.steps.size() ? "" : "no copy taken";
}

TEST(EmbeddedClone, CopyGoesOnAsTheOriginal) {
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const RunResult run = run_seed(seed, {.steps = 120, .swarm = true}, &make_model_target);
    ASSERT_TRUE(run.error.empty()) << run.error;
    for (const size_t at : {size_t{0}, run.trace.steps.size() / 3, run.trace.steps.size() * 2 / 3})
      ASSERT_EQ(first_difference(run.trace, at, {}), "") << "seed " << seed;
  }
}

// A preset's seeds 1..300: a copy taken a third and two thirds in goes on as the original.
void expect_copies_go_on(const char* preset) {
  const SeedOptions options{.steps = 120, .swarm = true, .preset = find_preset(preset)};
  ASSERT_NE(options.preset, nullptr);
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const RunResult run = run_seed(seed, options, &make_model_target);
    ASSERT_TRUE(run.error.empty()) << run.error;
    for (const size_t at : {run.trace.steps.size() / 3, run.trace.steps.size() * 2 / 3})
      ASSERT_EQ(first_difference(run.trace, at, {}), "") << "seed " << seed;
  }
}

TEST(EmbeddedClone, CopyGoesOnAsTheOriginalWithDynamicReplication) { expect_copies_go_on("dynamic"); }

// The local preset's seeds: offload markers and source pins, the holder's
// mailbox and hand, promotion tasks and their staged replicas.
TEST(EmbeddedClone, CopyGoesOnAsTheOriginalWithTheLocalDiskTier) { expect_copies_go_on("local"); }

TEST(EmbeddedClone, CarriesTheFaults) {
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    const RunResult run = run_seed(seed, {.steps = 120, .swarm = true}, &make_model_target);
    ASSERT_EQ(first_difference(run.trace, run.trace.steps.size() / 2, fault_options({"F3", "F10"})), "")
        << "seed " << seed;
  }
}

// The copy is independent: ops on the original after the copy leave the
// copy's View as it was (over seeds whose original View changes after it).
TEST(EmbeddedClone, CopyIsIndependent) {
  int changed = 0;
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    const RunResult run = run_seed(seed, {.steps = 120, .swarm = true}, &make_model_target);
    std::string error;
    std::unique_ptr<Target> original = make_embedded_target(run.trace.config, {}, &error);
    const size_t half = run.trace.steps.size() / 2;
    for (size_t i = 0; i < half; ++i) original->apply(run.trace.steps[i].op, run.trace.steps[i].t);
    const Time t = run.trace.steps[half].t;
    std::unique_ptr<Target> copy = original->clone();
    const View before = copy->view(t);
    for (size_t i = half; i < run.trace.steps.size(); ++i)
      original->apply(run.trace.steps[i].op, run.trace.steps[i].t);
    EXPECT_EQ(copy->view(t), before) << "seed " << seed;
    changed += !(original->view(t) == before);
  }
  EXPECT_GT(changed, 25);
}

}  // namespace
}  // namespace pinsim
