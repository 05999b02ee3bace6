// Timing the harness against the target alone; see overhead.h.
#include "overhead.h"

#include <string>

#include "wall_clock.h"

namespace pinsim {

void OverheadTable::add(const Trace& trace, TargetFactory factory, const TargetOptions& options, const Checks& checks) {
  std::string error;
  auto checked_target = factory(trace.config, options, &error);
  auto bare_target = factory(trace.config, options, &error);
  if (!checked_target || !bare_target) return;
  Lockstep lockstep(trace.config, *checked_target, checks);
  for (const TraceStep& s : trace.steps) {
    const WallClock clock;
    if (&s == &trace.steps.back()) lockstep.view_whole_next();  // as the run did
    lockstep.step(s.op, std::nullopt, nullptr);
    checked[static_cast<size_t>(s.op.kind)] += clock.seconds();
  }
  for (const TraceStep& s : trace.steps) {
    const WallClock clock;
    bare_target->apply(s.op, s.t);
    bare[static_cast<size_t>(s.op.kind)] += clock.seconds();
    ++count[static_cast<size_t>(s.op.kind)];
  }
}

void OverheadTable::print(std::FILE* out) const {
  double c = 0, b = 0;
  for (size_t k = 0; k < checked.size(); ++k) c += checked[k], b += bare[k];
  std::fprintf(out, "overhead: %.3f s in lockstep (model, Views, properties), %.3f s the target alone (construction "
                    "excluded): the harness adds %.2fx the target's own time\n", c, b, b > 0 ? (c - b) / b : 0.0);
  // The microseconds an op costs alone and the harness adds to it: for an op
  // that costs the target a few microseconds, the ratio is the harness's
  // fixed cost a step (the model's step, the Views, the properties).
  for (size_t k = 0; k < checked.size(); ++k)
    if (checked[k] > 0)
      std::fprintf(out, "  %-14s %9.3f s checked %9.3f s alone  +%.2fx  (%llu ops: %.1f us alone, +%.1f us)\n",
                   std::string(to_string(static_cast<OpKind>(k))).c_str(), checked[k], bare[k],
                   bare[k] > 0 ? (checked[k] - bare[k]) / bare[k] : 0.0, static_cast<unsigned long long>(count[k]),
                   bare[k] * 1e6 / static_cast<double>(count[k]),
                   (checked[k] - bare[k]) * 1e6 / static_cast<double>(count[k]));
}

}  // namespace pinsim
