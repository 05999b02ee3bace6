// A target that brings the process down still leaves a named run and a trace
// that replays: the fatal-signal report prints the seed, step and op, and
// writes the steps so far with the crashing op last.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>

#include "campaign.h"
#include "crash_report.h"
#include "model_but_at.h"
#include "trace.h"

namespace pinsim {

namespace {

std::unique_ptr<Target> crashing(const Config& config, const TargetOptions&, std::string*) {
  return std::make_unique<ModelButAt>(config, 5, [] { raise(SIGSEGV); });  // the fifth op crashes
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
