// The shrinker on traces with a planted failure (a deliberately wrong
// expected outcome): the minimal result is checked exactly, and shrinking a
// minimal trace returns it unchanged.
#include <gtest/gtest.h>

#include "campaign.h"
#include "model_target.h"
#include "shrink.h"

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

TEST(Shrink, PassingTraceIsNotShrunk) {
  EXPECT_FALSE(shrink(run_seed(9, {}, &make_model_target).trace, &make_model_target));
}

}  // namespace pinsim
