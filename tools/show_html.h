// `pinsim show`: one self-contained HTML file (inline SVG, no external assets)
// that draws a trace over its steps: a lane per object (Pending, Active with
// its deadline, a stale pin, the lease, COMPLETE and PROCESSING replicas, the
// group), the soft-pin gauge as a line, a lane per retained group, every step
// marked with its op, and at a failing step the model's and the target's
// values side by side.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "runner.h"
#include "trace.h"

namespace pinsim {

struct ShownStep {
  Time t = 0;
  Op op;
  Outcome model_outcome, target_outcome;
  View model_view, target_view;
};

struct ShowInput {
  std::string title;
  std::string target;  // "" when only the model ran
  std::vector<ShownStep> steps;
  std::optional<Failure> failure;
  std::vector<WentOnPast> went_on;  // known findings the replay went on past (amber marks)
};

std::string render_show_html(const ShowInput& in);

}  // namespace pinsim
