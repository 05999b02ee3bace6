// Target::clone and Target::assign of the embedded master: a copy taken at
// any point of a run goes on exactly as the original does (same outcomes, Views and replica
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

// How the copy is made: Target::clone, or Target::assign into a master of
// the same configuration that has run the trace's second half first (a
// state of its own, so whatever assign fails to overwrite shows).
enum class CopyBy { Clone, Assign };

std::unique_ptr<Target> copy_of(const Target& original, const Trace& trace, const TargetOptions& options,
                                CopyBy by) {
  if (by == CopyBy::Clone) return original.clone();
  std::string error;
  std::unique_ptr<Target> copy = make_embedded_target(trace.config, options, &error);
  for (size_t i = trace.steps.size() / 2; i < trace.steps.size(); ++i) copy->apply(trace.steps[i].op, trace.steps[i].t);
  return copy->assign(original) ? std::move(copy) : nullptr;
}

// Runs `trace` on a fresh embedded master and on a copy of it taken before
// step `at`, both to the end; the first step where they differ, or "".
std::string first_difference(const Trace& trace, size_t at, const TargetOptions& options,
                             CopyBy by = CopyBy::Clone) {
  std::string error;
  std::unique_ptr<Target> original = make_embedded_target(trace.config, options, &error);
  if (!original) return "refused: " + error;
  std::unique_ptr<Target> copy;
  for (size_t i = 0; i < trace.steps.size(); ++i) {
    if (i == at && !(copy = copy_of(*original, trace, options, by))) return "no copy made";
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

// A preset's seeds 1..300 ("" the swarm's): a copy taken a third and two
// thirds in goes on as the original.
void expect_copies_go_on(const char* preset, CopyBy by = CopyBy::Clone) {
  const SeedOptions options{.steps = 120, .swarm = true, .preset = *preset ? find_preset(preset) : nullptr};
  ASSERT_TRUE(options.preset || !*preset);
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const RunResult run = run_seed(seed, options, &make_model_target);
    ASSERT_TRUE(run.error.empty()) << run.error;
    for (const size_t at : {run.trace.steps.size() / 3, run.trace.steps.size() * 2 / 3})
      ASSERT_EQ(first_difference(run.trace, at, {}, by), "") << "seed " << seed;
  }
}

TEST(EmbeddedClone, CopyGoesOnAsTheOriginalWithDynamicReplication) { expect_copies_go_on("dynamic"); }

// The local preset's seeds: offload markers and source pins, the holder's
// mailbox and hand, promotion tasks and their staged replicas.
TEST(EmbeddedClone, CopyGoesOnAsTheOriginalWithTheLocalDiskTier) { expect_copies_go_on("local"); }

// Target::assign over a master with a state of its own (the explorer's
// scratch master): the swarm's, the dynamic and the local presets' seeds.
TEST(EmbeddedClone, AssignedCopyGoesOnAsTheOriginal) {
  for (const char* preset : {"", "dynamic", "local"}) expect_copies_go_on(preset, CopyBy::Assign);
}

// assign refuses a master of another configuration (the caller then clones).
TEST(EmbeddedClone, AssignRefusesAnotherConfiguration) {
  const RunResult run = run_seed(1, {.steps = 10, .swarm = true}, &make_model_target);
  Config other = run.trace.config;
  other.segments.push_back(other.segments.front());
  std::string error;
  std::unique_ptr<Target> a = make_embedded_target(run.trace.config, {}, &error);
  std::unique_ptr<Target> b = make_embedded_target(other, {}, &error);
  std::unique_ptr<Target> c = make_embedded_target(run.trace.config, fault_options({"F3"}), &error);
  ASSERT_TRUE(a && b && c) << error;
  EXPECT_FALSE(b->assign(*a));
  EXPECT_FALSE(c->assign(*a));
  EXPECT_TRUE(a->assign(*a));
}

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
