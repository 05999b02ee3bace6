// The shrinker on traces with a planted failure (a deliberately wrong
// expected outcome): the minimal result is checked exactly, and shrinking a
// minimal trace returns it unchanged.
#include <gtest/gtest.h>

#include "campaign.h"
#include "model_target.h"
#include "shrink.h"
#include "trace.h"

namespace pinsim {

namespace {

// A 200-step seed run with a wrong expectation planted on its first `get`
// that succeeded.
Trace planted_get(uint64_t seed) {
  Trace t = run_seed(seed, {}, &make_model_target).trace;
  for (TraceStep& s : t.steps) {
    if (s.op.kind == OpKind::Get && s.expect && s.expect->code == ErrorCode::OK) {
      s.expect = Outcome::of(ErrorCode::OBJECT_NOT_FOUND);
      return t;
    }
  }
  return {};
}

}  // namespace

TEST(Shrink, PlantedWrongGetShrinksToPutEndGet) {
  int shrunk = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const Trace planted = planted_get(seed);
    if (planted.steps.empty()) continue;  // this seed never read successfully
    ++shrunk;
    const auto r = shrink(planted, &make_model_target);
    ASSERT_TRUE(r) << "seed " << seed;
    ASSERT_EQ(r->trace.steps.size(), 3u) << write_trace(r->trace);
    const Op& put = r->trace.steps[0].op;
    EXPECT_EQ(put.kind, OpKind::PutStart);
    EXPECT_EQ(put.object, (ObjectId{0, 0}));
    EXPECT_EQ(put.client, 0u);
    EXPECT_TRUE(put.size == 32u || put.size == 64u);  // sizes are kept (allocators round others)
    EXPECT_EQ(put.memory_replicas, 1u);
    EXPECT_EQ(put.nof_replicas, 0u);
    EXPECT_EQ(put.group, 0u);
    EXPECT_EQ(put.soft_pin, SoftPinRequest{});
    EXPECT_EQ(r->trace.steps[1].op.kind, OpKind::PutEnd);
    EXPECT_EQ(r->trace.steps[2].op.kind, OpKind::Get);
    EXPECT_EQ(r->trace.steps[2].expect->code, ErrorCode::OBJECT_NOT_FOUND);
    EXPECT_EQ(r->failure.what, "expect");
  }
  EXPECT_GE(shrunk, 10);
}

TEST(Shrink, MinimalTraceIsReturnedUnchanged) {
  Trace planted;
  for (uint64_t seed = 1; planted.steps.empty() && seed <= 40; ++seed) planted = planted_get(seed);
  ASSERT_FALSE(planted.steps.empty()) << "no seed of 1..40 reads successfully";
  const auto once = shrink(planted, &make_model_target);
  ASSERT_TRUE(once);
  const auto twice = shrink(once->trace, &make_model_target);
  ASSERT_TRUE(twice);
  EXPECT_EQ(write_trace(twice->trace), write_trace(once->trace));
}

namespace {

Trace trace_of(const std::string& steps) {
  return read_trace(R"({"format":"pinsim-trace","version":1,"config":{},"steps":[)" + steps + "]}", "test");
}

// The model, except that every get answers OBJECT_NOT_FOUND: a target that
// breaks an expectation the model keeps.
class ForgetfulTarget : public Target {
 public:
  explicit ForgetfulTarget(std::unique_ptr<Target> model) : model_(std::move(model)) {}
  std::string_view name() const override { return "forgetful"; }
  Capabilities capabilities() const override { return model_->capabilities(); }
  Outcome apply(const Op& op, Time now) override {
    const Outcome o = model_->apply(op, now);
    return op.kind == OpKind::Get ? Outcome::of(ErrorCode::OBJECT_NOT_FOUND) : o;
  }
  View view(Time now) const override { return model_->view(now); }

 private:
  std::unique_ptr<Target> model_;
};

std::unique_ptr<Target> make_forgetful_target(const Config& c, const TargetOptions& o, std::string* error) {
  auto model = make_model_target(c, o, error);
  return model ? std::make_unique<ForgetfulTarget>(std::move(model)) : nullptr;
}

}  // namespace

// A broken expectation shrinks to the same broken expectation: the target
// still breaks one the model keeps, so the put that makes the object exist
// stays (a get on an empty store would break it on the model too).
TEST(Shrink, TargetsBrokenExpectationKeepsWhatTheModelExpects) {
  const Trace t = trace_of(R"(
    {"t":0,"actor":1,"op":"put_start","key":7,"size":32,"memory_replicas":1,
     "soft_pin":{"action":"enable","ttl_ms":900}},
    {"t":0,"actor":2,"op":"exist","key":3},
    {"t":0,"actor":1,"op":"put_end","key":7},
    {"t":5,"actor":0,"op":"advance","ms":5},
    {"t":5,"actor":2,"op":"get","key":7,"expect":{"code":"OK","replicas":1}})");
  const Checks no_compare{{}, false};
  const auto r = shrink(t, &make_forgetful_target, {}, no_compare);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->trace.steps.size(), 3u) << write_trace(r->trace);
  EXPECT_EQ(r->trace.steps[0].op.kind, OpKind::PutStart);
  EXPECT_EQ(r->trace.steps[1].op.kind, OpKind::PutEnd);
  EXPECT_EQ(r->trace.steps[2].op.kind, OpKind::Get);
  EXPECT_EQ(r->trace.steps[2].expect, (Outcome{.code = ErrorCode::OK, .replicas = 1}));
  EXPECT_FALSE(r->failure.on_model);
  EXPECT_FALSE(replay(r->trace, &make_model_target, {}, no_compare).failure);  // the model keeps it
}

// Keys of batch ops are renamed like single keys, and a batch key dropped at
// the failing step takes its expected result with it: the candidate must
// fail on the keys it still has, never on an expectation left stale.
TEST(Shrink, BatchKeysAreRenamedAndExpectationsFollowDroppedKeys) {
  const Trace t = trace_of(R"(
    {"t":0,"actor":1,"op":"put_start","key":7,"size":32,"memory_replicas":1,"soft_pin":{"action":"preserve"}},
    {"t":0,"actor":1,"op":"put_end","key":7},
    {"t":0,"actor":2,"op":"batch_get","keys":[5,7,9],
     "expect":{"code":"OK","results":[{"code":"OBJECT_NOT_FOUND"},{"code":"OBJECT_NOT_FOUND"},
                                      {"code":"OBJECT_NOT_FOUND"}]}})");
  const auto r = shrink(t, &make_model_target);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->trace.steps.size(), 3u) << write_trace(r->trace);
  const TraceStep& last = r->trace.steps.back();
  EXPECT_EQ(last.op.kind, OpKind::BatchGet);
  EXPECT_EQ(last.op.keys, std::vector<KeyId>{0}) << write_trace(r->trace);
  EXPECT_EQ(r->trace.steps[0].op.object.key, 0u);
  ASSERT_TRUE(last.expect);
  EXPECT_EQ(last.expect->results.size(), last.op.keys.size());
  EXPECT_EQ(last.expect->results[0].code, ErrorCode::OBJECT_NOT_FOUND);
  // The written minimum fails the same way when replayed on its own.
  const RunResult again = replay(read_trace(write_trace(r->trace), "min"), &make_model_target);
  ASSERT_TRUE(again.failure);
  EXPECT_EQ(again.failure->what, "expect");
  EXPECT_EQ(again.failure->diff, r->failure.diff);
}

TEST(Shrink, PassingTraceIsNotShrunk) {
  EXPECT_FALSE(shrink(run_seed(9, {}, &make_model_target).trace, &make_model_target));
}

}  // namespace pinsim
