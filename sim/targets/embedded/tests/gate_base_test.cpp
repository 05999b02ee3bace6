// The gate's differential verdicts on the embedded master with seeded faults:
// the base's own failures stay known (or pre-existing) when the head fails
// the same way, and a known or pre-existing failure the head shows at
// another step, with other values, or where the base passed, is changed and
// red. A finding that matches every signature stands for an open finding
// that would mask a change (a mutant of its code) without the comparison.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include <unistd.h>

#include "campaign.h"
#include "embedded_target.h"
#include "gate.h"
#include "model_target.h"

namespace pinsim {
namespace {

// A finding of the embedded master's tree ("") that matches any failure (the
// trace files of findings name Mooncake trees only, so this one is built
// here); the gate replays its trace too (a short passing run: fixed).
KnownFinding any_finding() {
  static const std::string file = [] {
    Trace t = run_seed(1, {.steps = 5}, &make_model_target).trace;
    // One file per process: ctest runs each test in a process of its own, in
    // parallel, and a shared name let one truncate it while another read it.
    const std::string path = ::testing::TempDir() + "/pinsim-any-finding-" + std::to_string(getpid()) + ".json";
    std::ofstream(path) << write_trace(t);
    return path;
  }();
  return {file, "", {"*/*/*"}};
}

// A deterministic clock: each reading is a millisecond later, so a 0.5 s
// budget gives every preset the same few seeds on every run.
GateOptions options(std::optional<GateBase> base, bool known) {
  GateOptions o;
  o.budget_seconds = 0.5;
  o.steps = 120;
  o.base = std::move(base);
  if (known) o.known = {any_finding()};
  o.elapsed = [n = 0]() mutable { return 0.001 * ++n; };
  return o;
}

GateResult gate(const std::vector<std::string>& faults, const GateOptions& o) {
  return run_gate(&make_embedded_target, fault_options(faults), {}, o);
}

GateBase base_of(const GateResult& r) {
  GateBase b;
  b.runs = r.runs;
  for (const GateFailure& f : r.failures) b.failing.push_back({f.source, f.signature, f.fingerprint, f.failure.detail});
  return b;
}

std::map<std::string, int> verdicts(const GateResult& r) {
  std::map<std::string, int> n;
  for (const GateFailure& f : r.failures) ++n[f.verdict];
  return n;
}

TEST(GateBase, SameFailuresStayKnownOrPreExisting) {
  for (const bool known : {true, false}) {
    const GateResult base = gate({"F16"}, options(std::nullopt, known));
    ASSERT_GT(base.failures.size(), 10u);
    const GateResult head = gate({"F16"}, options(base_of(base), known));
    EXPECT_EQ(head.failures.size(), base.failures.size());
    const auto n = verdicts(head);
    EXPECT_EQ(n.count("changed"), 0u);
    EXPECT_EQ(n.count("new"), 0u);
    EXPECT_FALSE(head.red());
  }
}

TEST(GateBase, KnownFailureOfAnotherFaultIsChanged) {
  const GateResult base = gate({"F16"}, options(std::nullopt, true));
  ASSERT_FALSE(base.red());  // every failure matches the finding
  const GateResult head = gate({"F1"}, options(base_of(base), true));
  ASSERT_TRUE(head.red());
  int changed = 0;
  for (const GateFailure& f : head.failures) {
    if (f.verdict != "changed") continue;
    ++changed;
    bool base_failed = false;
    for (const BaseFailure& b : base_of(base).failing) base_failed |= b.source == f.source;
    EXPECT_EQ(f.base_detail.empty(), !base_failed) << f.source;
  }
  EXPECT_GT(changed, 0);
  // Without a base the same failures are known: the masking the comparison removes.
  EXPECT_FALSE(gate({"F1"}, options(std::nullopt, true)).red());
}

TEST(GateBase, PreExistingFailureWithOtherValuesIsChanged) {
  const GateResult base = gate({"F16"}, options(std::nullopt, false));
  GateBase b = base_of(base);
  ASSERT_FALSE(b.failing.empty());
  b.failing.front().fingerprint = "another";
  const GateResult head = gate({"F16"}, options(b, false));
  ASSERT_TRUE(head.red());
  for (const GateFailure& f : head.failures)
    EXPECT_EQ(f.verdict, f.source == b.failing.front().source ? "changed" : "pre-existing") << f.source;
}

TEST(GateBase, SummaryWithoutFingerprintsComparesSignatures) {
  GateBase b = base_of(gate({"F16"}, options(std::nullopt, true)));
  for (BaseFailure& f : b.failing) f.fingerprint.clear();
  const GateResult head = gate({"F16"}, options(b, true));
  EXPECT_FALSE(head.red());
  EXPECT_EQ(verdicts(head).count("changed"), 0u);
}

TEST(GateBase, HeadThatPassesIsGreen) {
  const GateResult base = gate({"F16"}, options(std::nullopt, true));
  const GateResult head = gate({}, options(base_of(base), true));
  EXPECT_TRUE(head.failures.empty());
  EXPECT_FALSE(head.red());
}

}  // namespace
}  // namespace pinsim
