// The metrics the View holds besides the objects are compared like any other
// field: a target whose allocated-memory metric disagrees with the bytes its
// segments hold fails at that step, named by the field; a target that does
// not show the segments (no kCapSegments) is not compared on it; so is its
// memory-capacity metric. The same for
// each segment's state: a target that shows a leaving segment as mounted
// fails at the graceful unmount.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "model_target.h"
#include "runner.h"

namespace pinsim {
namespace {

// The model as a target whose allocated-memory metric (or with `capacity`,
// its memory-capacity metric) is off by `skew` bytes.
class SkewedMetricTarget final : public Target {
 public:
  SkewedMetricTarget(std::unique_ptr<Target> inner, uint64_t skew, Capabilities caps, bool capacity = false)
      : inner_(std::move(inner)), skew_(skew), caps_(caps), capacity_(capacity) {}
  std::string_view name() const override { return "skewed"; }
  Capabilities capabilities() const override { return caps_; }
  Outcome apply(const Op& op, Time now) override { return inner_->apply(op, now); }
  View view(Time now) const override {
    View v = inner_->view(now);
    uint64_t& metric = capacity_ ? v.capacity : v.allocated;
    if (metric > 0) metric -= skew_;
    return v;
  }

 private:
  std::unique_ptr<Target> inner_;
  uint64_t skew_;
  Capabilities caps_;
  bool capacity_;
};

std::optional<Failure> put_on(Capabilities caps, bool capacity = false) {
  Config config;
  std::string error;
  SkewedMetricTarget target(make_model_target(config, {}, &error), 32, caps, capacity);
  Lockstep lockstep(config, target);
  Op put{.kind = OpKind::PutStart};
  put.object = {0, 0};
  put.size = 32;
  put.memory_replicas = 1;
  return lockstep.step(put, std::nullopt, nullptr);
}

TEST(ViewMetrics, AllocatedMemoryMetricIsCompared) {
  const auto failure = put_on(kCapAll);
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->what, "view");
  EXPECT_EQ(failure->field, "allocated");
  EXPECT_NE(failure->detail.find("allocated-memory metric: expected 32 bytes, got 0"), std::string::npos)
      << failure->detail;
}

TEST(ViewMetrics, NotComparedWithoutTheSegments) {
  EXPECT_FALSE(put_on(kCapAll & ~kCapSegments));
  EXPECT_FALSE(put_on(kCapAll & ~kCapSegments, true));
}

// A master whose capacity metric misses what is mounted (a restore that does
// not rebuild it) fails at the first step.
TEST(ViewMetrics, MemoryCapacityMetricIsCompared) {
  const auto failure = put_on(kCapAll, true);
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->field, "capacity");
  EXPECT_NE(failure->detail.find("memory-capacity metric: expected"), std::string::npos) << failure->detail;
}

// The model as a target that never shows a segment leaving.
class NoLeavingTarget final : public Target {
 public:
  explicit NoLeavingTarget(std::unique_ptr<Target> inner) : inner_(std::move(inner)) {}
  std::string_view name() const override { return "no-leaving"; }
  Capabilities capabilities() const override { return kCapAll; }
  Outcome apply(const Op& op, Time now) override { return inner_->apply(op, now); }
  View view(Time now) const override {
    View v = inner_->view(now);
    for (uint8_t& m : v.mounted)
      if (m == kLeaving) m = kMounted;
    return v;
  }

 private:
  std::unique_ptr<Target> inner_;
};

TEST(ViewMetrics, SegmentStateIsCompared) {
  Config config;
  config.segments = {{ReplicaKind::Memory, 1024}, {ReplicaKind::Memory, 1024}};
  std::string error;
  NoLeavingTarget target(make_model_target(config, {}, &error));
  Lockstep lockstep(config, target);
  std::optional<Failure> failure;
  for (OpKind kind : {OpKind::Unmount, OpKind::Mount, OpKind::GracefulUnmount}) {
    Op op{.kind = kind};
    op.client = 1;
    op.segment = 0;
    ASSERT_FALSE(failure) << failure->detail;
    failure = lockstep.step(op, std::nullopt, nullptr);
  }
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->step, 2u);
  EXPECT_EQ(failure->field, "mounted");
  EXPECT_EQ(failure->detail, "memory segment 0: expected leaving, got mounted");
}

}  // namespace
}  // namespace pinsim
