// RapidCheck stateful suites (rc::state): command sequences drawn by the
// campaign workload through RapidCheck's generators, run against each target
// built here beside the model, with RapidCheck's shrinking. When a sequence
// fails, the minimal one is written as a JSON trace (its path is printed) so
// it can be replayed with `pinsim replay` and kept under scenarios/.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <variant>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "json_codec.h"
#include "model_target.h"
#include "property.h"
#include "runner.h"
#include "trace.h"
#include "workload.h"
#ifdef PINSIM_HAVE_EMBEDDED
#include "embedded_target.h"
#endif

namespace pinsim {

namespace {

// Choices drawn from RapidCheck, so RapidCheck can shrink them.
class RcChoices final : public Choices {
 public:
  uint64_t pick(uint64_t n) override { return n <= 1 ? 0 : *rc::gen::inRange<uint64_t>(0, n); }
};

// RapidCheck's model of the run: the reference model, only to draw the next
// op from the state it is in (the workload aims at what exists).
struct SimState {
  Model model;
  Time now = 0;
};

// The system under test: the target in lockstep with a model of its own, so
// each command is exactly one Lockstep::step (outcomes, Views, every property,
// and the eviction choices the target may make), the campaign's comparison.
struct Sut {
  Sut(const Config& config, std::unique_ptr<Target> t)
      : target(std::move(t)), lockstep(config, *target, Checks{all_properties(), true}) {
    trace.description = "minimal sequence from a RapidCheck stateful suite";
    trace.config = config;
  }
  std::unique_ptr<Target> target;
  Lockstep lockstep;
  Trace trace;  // the steps so far, as the campaign records them
};

// Where a failing sequence is written: one file per process, as tests run
// in parallel processes.
std::string failure_path() {
  return (std::filesystem::temp_directory_path() / ("pinsim-rapidcheck-failure-" + std::to_string(getpid()) + ".json"))
      .string();
}

struct Step : rc::state::Command<SimState, Sut> {
  Op op;
  std::string trace_path;
  explicit Step(const SimState& s) {
    RcChoices c;
    op = Workload(WorkloadConfig{}, s.model.config()).next(c, s.model, s.now);
    trace_path = failure_path();
  }
  void apply(SimState& s) const override {
    s.now = time_after(s.now, op);
    s.model.apply(op, s.now);
  }
  // Writes the failing sequence; RapidCheck's last failing run is its minimal one.
  void run(const SimState&, Sut& sut) const override {
    const std::optional<Failure> failure = sut.lockstep.step(op, std::nullopt, &sut.trace);
    if (!failure) return;
    std::ofstream(trace_path) << write_trace(sut.trace);
    RC_FAIL(failure->what + ": " + failure->detail + " (minimal trace: " + trace_path + ")");
  }
  void show(std::ostream& os) const override { os << encode_op(op).dump(); }
};

bool check_against(TargetFactory factory, const TargetOptions& options) {
  return rc::check("stateful", [=] {
    Config config;
    std::string error;
    auto target = factory(config, options, &error);
    RC_ASSERT(target != nullptr);
    SimState initial{std::get<Model>(Model::create(config)), 0};
    Sut sut(config, std::move(target));
    rc::state::check(initial, sut, rc::state::gen::execOneOfWithArgs<Step>());
  });
}

}  // namespace

TEST(Stateful, ModelAgainstItself) { EXPECT_TRUE(check_against(&make_model_target, {})); }

#ifdef PINSIM_HAVE_EMBEDDED
TEST(Stateful, EmbeddedMaster) { EXPECT_TRUE(check_against(&make_embedded_target, {})); }

TEST(Stateful, FindsAndRecordsFaultF4) {
  const std::string path = failure_path();
  std::remove(path.c_str());
  EXPECT_FALSE(check_against(&make_embedded_target, fault_options({"F4"})));
  const Trace t = load_trace(path);  // replayable with pinsim replay
  EXPECT_LE(t.steps.size(), 4u);
}
#endif

}  // namespace pinsim
