// A target whose Views read only what each op touched (the Mooncake
// target's) is asked for a whole View at a run's last step, so a change an
// op made outside what it touched shows by the run's end: the runner asks
// once a run, at the last step, in a campaign's run and in a replay.
#include <gtest/gtest.h>

#include <vector>

#include "campaign.h"
#include "model_target.h"

namespace pinsim {

namespace {

// For each View the runner took after a step: whether it was asked whole.
std::vector<bool> views_whole;

class RecordingTarget : public Target {
 public:
  explicit RecordingTarget(std::unique_ptr<Target> model) : model_(std::move(model)) {}
  std::string_view name() const override { return "recording"; }
  Capabilities capabilities() const override { return model_->capabilities(); }
  Outcome apply(const Op& op, Time now) override { return model_->apply(op, now); }
  void view_whole_next() override { whole_next_ = true; }
  View view(Time now) const override {
    views_whole.push_back(whole_next_);
    whole_next_ = false;
    return model_->view(now);
  }

 private:
  std::unique_ptr<Target> model_;
  mutable bool whole_next_ = false;
};

std::unique_ptr<Target> make_recording_target(const Config& c, const TargetOptions& o, std::string* error) {
  auto model = make_model_target(c, o, error);
  return model ? std::make_unique<RecordingTarget>(std::move(model)) : nullptr;
}

// The Views of a run: the first, taken when the lockstep starts, then one a step.
std::vector<bool> only_last_whole(size_t steps) {
  std::vector<bool> expected(steps + 1, false);
  expected.back() = true;
  return expected;
}

}  // namespace

TEST(WholeView, ARunsLastStepAloneIsReadWhole) {
  views_whole.clear();
  const RunResult run = run_seed(3, {.steps = 40}, &make_recording_target);
  ASSERT_FALSE(run.failure);
  EXPECT_EQ(views_whole, only_last_whole(40));
  views_whole.clear();
  ASSERT_FALSE(replay(run.trace, &make_recording_target).failure);
  EXPECT_EQ(views_whole, only_last_whole(40));
}

}  // namespace pinsim
