// Going on past a known finding that is a standing offset of a metric (a
// restart that leaves a segment's allocated-memory label low, as Mooncake's
// does): the run goes on and compares the metric against the offset, so a
// later step that moves the metric otherwise than the model still fails; a
// metric back at the model's value ends the offset; another field that
// differs at the same step still fails; the cached-objects gauge (a count
// a failover leaves low) stands the same way, its lag allowed to shrink;
// and a replay of the recorded trace
// goes on past the same signature, so what came after reproduces.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "campaign.h"
#include "json_codec.h"
#include "model_target.h"
#include "runner.h"
#include "trace.h"

namespace pinsim {
namespace {

// After its i-th op, segment 0's allocated-memory metric reads skews[i-1]
// bytes low (the last entry from then on); the reads-served counter (no
// offset field) one high after op `reads_from` (0: never); the cached-objects
// gauge off by cached[i-1] (the last entry from then on; below zero it
// wraps, as a target's negative gauge does).
struct Skews {
  std::vector<int64_t> allocated;
  size_t reads_from = 0;
  std::vector<int64_t> cached;
};

class OffsetTarget final : public Target {
 public:
  OffsetTarget(const Config& config, Skews skews) : inner_(make_model_target(config, {}, nullptr)), skews_(skews) {}
  std::string_view name() const override { return "offset"; }
  std::string_view variant() const override { return "main"; }
  Capabilities capabilities() const override { return kCapAll; }
  Outcome apply(const Op& op, Time now) override {
    ++applied_;
    return inner_->apply(op, now);
  }
  View view(Time now) const override {
    View v = inner_->view(now);
    if (applied_ > 0 && !skews_.allocated.empty())
      v.segment_allocated[0] -= skews_.allocated[std::min(applied_, skews_.allocated.size()) - 1];
    if (skews_.reads_from && applied_ >= skews_.reads_from) ++v.reads_served;
    if (applied_ > 0 && !skews_.cached.empty())
      v.cached += static_cast<uint64_t>(skews_.cached[std::min(applied_, skews_.cached.size()) - 1]);
    return v;
  }

 private:
  std::unique_ptr<Target> inner_;
  Skews skews_;
  size_t applied_ = 0;
};

Op put(KeyId key) {
  Op op{.kind = OpKind::PutStart};
  op.object = {0, key};
  op.size = 32;
  op.memory_replicas = 1;
  return op;
}

// Goes on past the first `go_on` failures it is asked about, counting the questions.
struct Counting {
  int asked = 0;
  int go_on = 1000;
  GoesOn callback() {
    return [this](const Failure& f, const Trace&, std::string_view variant) -> std::optional<WentOnPast> {
      EXPECT_EQ(variant, "main");
      if (++asked > go_on) return std::nullopt;
      return WentOnPast{f.step, "F.json", "view/put_start/segment_metrics", {}, {}};
    };
  }
};

// Runs puts of keys 0.. against the skews: the failure, if any.
std::optional<Failure> run(const Skews& skews, Counting* counting, size_t steps, std::vector<WentOnPast>* went_on) {
  Config config;
  OffsetTarget target(config, skews);
  Checks checks;
  if (counting) checks.goes_on = counting->callback();
  Lockstep lockstep(config, target, checks);
  Trace trace;
  std::optional<Failure> failure;
  for (KeyId k = 0; k < steps && !failure; ++k) failure = lockstep.step(put(k), std::nullopt, &trace);
  if (went_on) *went_on = lockstep.went_on();
  return failure;
}

TEST(GoesOn, WithoutItTheOffsetStopsTheRun) {
  const auto failure = run({{0, 32}}, nullptr, 4, nullptr);
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->step, 1u);
  EXPECT_EQ(failure->field, "segment_metrics");
}

TEST(GoesOn, AStandingOffsetIsGonePastOnce) {
  Counting counting;
  std::vector<WentOnPast> went_on;
  EXPECT_FALSE(run({{0, 32}}, &counting, 6, &went_on));
  EXPECT_EQ(counting.asked, 1);
  ASSERT_EQ(went_on.size(), 1u);
  EXPECT_EQ(went_on[0].step, 1u);
  EXPECT_EQ(went_on[0].finding, "F.json");
}

// The metric moves by 8 bytes more than the model's at step 3: a new
// divergence, which the finding is asked about again.
TEST(GoesOn, AMetricThatMovesOtherwiseStillFails) {
  Counting counting{.go_on = 1};
  const auto failure = run({{0, 32, 32, 40}}, &counting, 6, nullptr);
  EXPECT_EQ(counting.asked, 2);
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->step, 3u);
  EXPECT_EQ(failure->field, "segment_metrics");
  EXPECT_NE(failure->detail.find("(the run went on past F.json at step 1)"), std::string::npos) << failure->detail;
}

// The label is reset (the metric equals the model's again): the offset ends
// there, and a later skew is a divergence of its own.
TEST(GoesOn, AMetricBackAtTheModelsEndsTheOffset) {
  Counting counting;
  std::vector<WentOnPast> went_on;
  EXPECT_FALSE(run({{0, 32, 0, 0, 32}}, &counting, 6, &went_on));
  ASSERT_EQ(went_on.size(), 2u);
  EXPECT_EQ(went_on[0].step, 1u);
  EXPECT_EQ(went_on[1].step, 4u);
}

// The offset of step 1 is gone past (the finding asked once), and the
// reads-served counter, off from op `reads_from` on, fails at `step`.
void expect_counter_failure(size_t reads_from, size_t step) {
  Counting counting;
  const auto failure = run({{0, 32}, reads_from}, &counting, 6, nullptr);
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->step, step);
  EXPECT_EQ(failure->field, "reads");  // not segment_metrics, which the offset accounts for
  EXPECT_EQ(counting.asked, 1);
}

// Another field differs at the step gone past.
TEST(GoesOn, AnotherFieldAtTheSameStepStillFails) { expect_counter_failure(2, 1); }

// A later step where another field differs is named by that field.
TEST(GoesOn, ALaterFailureIsNamedByItsOwnField) { expect_counter_failure(4, 3); }

// Only an offset field is ever gone past: a counter off by one is not asked about.
TEST(GoesOn, NotAskedAboutOtherFields) {
  Counting counting;
  const auto failure = run({{}, 2}, &counting, 4, nullptr);
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->field, "reads");
  EXPECT_EQ(counting.asked, 0);
}

// The cached-objects gauge is an offset field of one value: three below the
// model's (below zero, so the target's count wraps) from step 1 on is gone
// past once, and its offset heals: it may shrink toward 0, as Mooncake counts
// the restored objects one by one, but a later step where another field
// differs, or where the lag grows or changes sign, is a failure of its own.
TEST(GoesOn, TheCachedGaugeLagMayOnlyShrink) {
  Counting counting;
  std::vector<WentOnPast> went_on;
  EXPECT_FALSE(run({{}, 0, {0, -3, -3, -1, -1, 0}}, &counting, 8, &went_on));
  EXPECT_EQ(counting.asked, 1);
  ASSERT_EQ(went_on.size(), 1u);
  EXPECT_EQ(went_on[0].step, 1u);
  const struct {
    Skews skews;
    size_t step;
    const char* field;
  } cases[] = {{{{}, 4, {0, -3}}, 3, "reads"},            // another field
               {{{}, 0, {0, -3, -2, -3}}, 3, "cached"},   // the lag grows again
               {{{}, 0, {0, -3, 1}}, 2, "cached"}};       // the lag changes sign
  for (const auto& c : cases) {
    Counting once{.go_on = 1};
    const auto failure = run(c.skews, &once, 6, nullptr);
    ASSERT_TRUE(failure) << c.step;
    EXPECT_EQ(failure->step, c.step);
    EXPECT_EQ(failure->field, c.field);
  }
}

// replay() goes on past the findings its trace recorded, as the campaign
// matched them (signature, op kinds, conditions), and records them again.
Skews g_skews;
std::unique_ptr<Target> make_offset_target(const Config& config, const TargetOptions&, std::string*) {
  return std::make_unique<OffsetTarget>(config, g_skews);
}

// Puts of keys 0..2, then an exist of key 0, at which the metric moves by 8 bytes more.
Trace puts_then_exist() {
  g_skews = {{0, 32, 32, 40}};
  Trace trace;
  for (KeyId k = 0; k < 3; ++k) trace.steps.push_back({0, put(k), std::nullopt});
  Op exist{.kind = OpKind::Exist};
  exist.object = {0, 0};
  trace.steps.push_back({0, exist, std::nullopt});
  return trace;
}

TEST(GoesOn, AReplayGoesOnPastWhatTheTraceRecorded) {
  Trace trace = puts_then_exist();
  RunResult r = replay(trace, &make_offset_target);
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->step, 1u);  // nothing recorded: the first divergence stops it
  trace.went_on = {{1, "F.json", "view/put_start/segment_metrics", {OpKind::PutStart}, {}}};
  r = replay(trace, &make_offset_target);
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->step, 3u);  // the offset moved at another op: a failure of its own
  EXPECT_EQ(r.trace.went_on, trace.went_on);
  EXPECT_EQ(read_trace(write_trace(r.trace), "t").went_on, r.trace.went_on);
}

// A finding gone past that needs an op kind the replay has not used by then does not match.
TEST(GoesOn, AReplayAsksWhatTheFindingNeeds) {
  Trace trace = puts_then_exist();
  trace.went_on = {{1, "F.json", "view/put_start/segment_metrics", {OpKind::Restore}, {}}};
  const RunResult r = replay(trace, &make_offset_target);
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->step, 1u);
  EXPECT_TRUE(r.trace.went_on.empty());
}

TEST(GoesOn, OnlyAnOffsetFieldsFindingMayGoOn) {
  const std::string head = R"({"format": "pinsim-trace", "version": 1, "config": {}, "steps": [],
      "finding": {"tree": "main", "signatures": [)";
  EXPECT_TRUE(read_trace(head + R"("view/restore/segment_metrics"], "goes_on": true}})", "t").finding->goes_on);
  EXPECT_TRUE(read_trace(head + R"("view/failover/cached"], "goes_on": true}})", "t").finding->goes_on);
  try {
    read_trace(head + R"("view/restore/objects"], "goes_on": true}})", "t.json");
    FAIL() << "a finding of the objects went on";
  } catch (const DecodeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("t.json: $.finding.goes_on: a run goes on only past a standing offset", 0),
              0u)
        << e.what();
  }
  EXPECT_THROW(read_trace(R"({"format": "pinsim-trace", "version": 1, "config": {}, "steps": [],
      "went_on": [{"step": 1, "finding": "F.json"}]})", "t"), DecodeError);
}

}  // namespace
}  // namespace pinsim
