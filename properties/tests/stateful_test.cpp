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

struct SimState {
  Model model;
  Time now = 0;
  std::vector<Op> ops;
};

// Writes the failing sequence; RapidCheck's last failing run is its minimal one.
void record_failure(const SimState& s, const Op& op, const std::string& path) {
  Trace t;
  t.description = "minimal sequence from a RapidCheck stateful suite";
  t.config = s.model.config();
  Time now = 0;
  for (const Op& o : s.ops) {
    now = time_after(now, o);
    t.steps.push_back({now, o, std::nullopt});
  }
  t.steps.push_back({time_after(s.now, op), op, std::nullopt});
  std::ofstream(path) << write_trace(t);
}

struct Step : rc::state::Command<SimState, Target> {
  Op op;
  std::string trace_path;
  explicit Step(const SimState& s) {
    RcChoices c;
    op = Workload(WorkloadConfig{}, s.model.config()).next(c, s.model, s.now);
    trace_path = (std::filesystem::temp_directory_path() / "pinsim-rapidcheck-failure.json").string();
  }
  void apply(SimState& s) const override {
    s.now = time_after(s.now, op);
    s.model.apply(op, s.now);
    s.ops.push_back(op);
  }
  void run(const SimState& s, Target& target) const override {
    pinsim::Model model = s.model;
    const Time now = time_after(s.now, op);
    const View before = target.view(s.now);
    const Outcome om = model.apply(op, now);
    const Outcome ot = target.apply(op, now);
    const View vm = masked(model.view(now), target.capabilities());
    const View vt = masked(target.view(now), target.capabilities());
    std::string problem;
    if (om != ot) problem = "outcome differs";
    else if (vm != vt) problem = describe_difference(vm, vt).detail;
    for (const StepCheck* p : all_properties()) {
      if (!problem.empty()) break;
      if ((p->needs() & target.capabilities()) != p->needs()) continue;
      if (auto why = p->check(StepContext{model.config(), op, now, ot, before, target.view(now)})) problem = *why;
    }
    if (!problem.empty()) {
      record_failure(s, op, trace_path);
      RC_FAIL(problem + " (minimal trace: " + trace_path + ")");
    }
  }
  void show(std::ostream& os) const override { os << encode_op(op).dump(); }
};

bool check_against(TargetFactory factory, const TargetOptions& options) {
  return rc::check("stateful", [=] {
    Config config;
    std::string error;
    auto target = factory(config, options, &error);
    RC_ASSERT(target != nullptr);
    SimState initial{std::get<Model>(Model::create(config)), 0, {}};
    rc::state::check(initial, *target, rc::state::gen::execOneOfWithArgs<Step>());
  });
}

}  // namespace

TEST(Stateful, ModelAgainstItself) { EXPECT_TRUE(check_against(&make_model_target, {})); }

#ifdef PINSIM_HAVE_EMBEDDED
TEST(Stateful, EmbeddedMaster) { EXPECT_TRUE(check_against(&make_embedded_target, {})); }

TEST(Stateful, FindsAndRecordsFaultF4) {
  const std::string path = (std::filesystem::temp_directory_path() / "pinsim-rapidcheck-failure.json").string();
  std::remove(path.c_str());
  EXPECT_FALSE(check_against(&make_embedded_target, fault_options({"F4"})));
  const Trace t = load_trace(path);  // replayable with pinsim replay
  EXPECT_LE(t.steps.size(), 4u);
}
#endif

}  // namespace pinsim
