// A target that brings the process down still leaves a named run and a trace
// that replays: the fatal-signal report prints the seed, step and op, and
// writes the steps so far with the crashing op last.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <variant>

#include "campaign.h"
#include "crash_report.h"
#include "trace.h"

namespace pinsim {

namespace {

// The model, except that its fifth op dereferences nothing.
class CrashingTarget final : public Target {
 public:
  explicit CrashingTarget(const Config& config) : model_(std::get<Model>(Model::create(config))) {}
  std::string_view name() const override { return "crashing"; }
  Capabilities capabilities() const override { return kCapAll; }
  Outcome apply(const Op& op, Time now) override {
    if (++ops_ == 5) raise(SIGSEGV);
    return model_.apply(op, now);
  }
  View view(Time now) const override { return model_.view(now); }

 private:
  Model model_;
  int ops_ = 0;
};

std::unique_ptr<Target> crashing(const Config& config, const TargetOptions&, std::string*) {
  return std::make_unique<CrashingTarget>(config);
}

// In the working directory (the build's): the death test's child, started
// afresh, must arrive at the same path.
std::string crash_path() { return (std::filesystem::current_path() / "crash_report_test.json").string(); }

TEST(CrashReport, NamesTheRunAndWritesItsTrace) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string path = crash_path();
  std::filesystem::remove(path);
  RunFlags run;
  run.target = "model";
  EXPECT_EXIT(
      {
        crash_report::install(path, &run);
        run_seed(7, SeedOptions{}, crashing);
      },
      testing::KilledBySignal(SIGSEGV), "crashed \\(signal 11, SEGV\\) in seed 7, at step 5 \\([a-z_]+\\)");
  ASSERT_TRUE(std::filesystem::exists(path)) << "no crash trace at " << path;
  const Trace t = load_trace(path);
  EXPECT_EQ(t.steps.size(), 5u);
  EXPECT_FALSE(t.steps.back().expect.has_value());  // the op that crashed has no outcome
  ASSERT_TRUE(t.run.has_value());
  EXPECT_EQ(t.run->target, "model");
  std::filesystem::remove(path);
}

}  // namespace

}  // namespace pinsim
