// The metrics the View holds besides the objects are compared like any other
// field: a target whose allocated-memory metric disagrees with the bytes its
// segments hold fails at that step, named by the field; a target that does
// not show the segments (no kCapSegments) is not compared on it; so is its
// memory-capacity metric, and each segment's two metrics. The same for
// each segment's state: a target that shows a leaving segment as mounted
// fails at the graceful unmount.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "model_target.h"
#include "runner.h"

namespace pinsim {
namespace {

enum class Metric { Allocated, Capacity, SegmentAllocated, SegmentCapacity };

// The model as a target whose `metric` is off by `skew` bytes (segment 0's,
// for a segment's metric).
class SkewedMetricTarget final : public Target {
 public:
  SkewedMetricTarget(std::unique_ptr<Target> inner, uint64_t skew, Capabilities caps, Metric metric)
      : inner_(std::move(inner)), skew_(skew), caps_(caps), metric_(metric) {}
  std::string_view name() const override { return "skewed"; }
  Capabilities capabilities() const override { return caps_; }
  Outcome apply(const Op& op, Time now) override { return inner_->apply(op, now); }
  View view(Time now) const override {
    View v = inner_->view(now);
    uint64_t& total = metric_ == Metric::Capacity ? v.capacity : v.allocated;
    if (metric_ == Metric::Allocated || metric_ == Metric::Capacity) {
      if (total > 0) total -= skew_;
    } else {
      auto& per_segment = metric_ == Metric::SegmentAllocated ? v.segment_allocated : v.segment_capacity;
      if (!per_segment.empty()) per_segment[0] -= static_cast<int64_t>(skew_);
    }
    return v;
  }

 private:
  std::unique_ptr<Target> inner_;
  uint64_t skew_;
  Capabilities caps_;
  Metric metric_;
};

std::optional<Failure> put_on(Capabilities caps, Metric metric = Metric::Allocated) {
  Config config;
  std::string error;
  SkewedMetricTarget target(make_model_target(config, {}, &error), 32, caps, metric);
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
  for (Metric m : {Metric::Allocated, Metric::Capacity, Metric::SegmentAllocated, Metric::SegmentCapacity})
    EXPECT_FALSE(put_on(kCapAll & ~kCapSegments, m));
}

// A master whose capacity metric misses what is mounted (a restore that does
// not rebuild it) fails at the first step.
TEST(ViewMetrics, MemoryCapacityMetricIsCompared) {
  const auto failure = put_on(kCapAll, Metric::Capacity);
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->field, "capacity");
  EXPECT_NE(failure->detail.find("memory-capacity metric: expected"), std::string::npos) << failure->detail;
}

// Each segment's metrics (the labels Mooncake keeps beside the totals): a
// master whose segment 0 counts 32 bytes less, or misses 32 bytes of its
// capacity, fails at the first step.
TEST(ViewMetrics, EachSegmentsMetricsAreCompared) {
  auto failure = put_on(kCapAll, Metric::SegmentAllocated);
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->field, "segment_metrics");
  EXPECT_EQ(failure->detail, "memory segment 0: allocated-memory metric expected 32 bytes, got 0");
  failure = put_on(kCapAll, Metric::SegmentCapacity);
  ASSERT_TRUE(failure);
  EXPECT_EQ(failure->field, "segment_metrics");
  EXPECT_NE(failure->detail.find("memory segment 0: memory-capacity metric expected"), std::string::npos)
      << failure->detail;
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
