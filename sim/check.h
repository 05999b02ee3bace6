// A check the runner evaluates after every step, on the target's View and on
// the model's own View: the seam through which properties/ plugs into the
// simulator without the simulator knowing any property.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "config.h"
#include "op.h"
#include "outcome.h"
#include "view.h"

namespace pinsim {

struct StepContext {
  const Config& config;
  const Op& op;
  Time now;  // the time the op was applied at
  const Outcome& outcome;
  const View& before;  // the View before the op
  const View& after;   // the View after the op
};

class StepCheck {
 public:
  virtual ~StepCheck() = default;
  virtual std::string_view id() const = 0;    // "P1"
  virtual std::string_view rule() const = 0;  // what it protects
  // Capabilities the check needs; it is skipped on a target without them.
  virtual Capabilities needs() const = 0;
  // A one-line reason when violated.
  virtual std::optional<std::string> check(const StepContext& step) const = 0;
};

}  // namespace pinsim
