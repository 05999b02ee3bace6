// The lockstep runner: every step goes to the model and
// to the target at the same virtual time; outcomes and Views are compared on
// the target's capabilities; the first difference stops the run with a
// Failure naming the step, what differed, the expected and the actual value
// (unless it is a known standing offset of a metric: Checks::goes_on).
#pragma once
#include <cstdint>
#include <exception>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

#include <vector>

#include "check.h"
#include "field_diff.h"
#include "model.h"
#include "target.h"
#include "trace.h"

namespace pinsim {

struct Failure {
  size_t step = 0;       // index into the trace's steps
  std::string what;      // "outcome", "view", "expect", "property", "exception"
  std::string detail;    // one line: which field differed
  std::string expected;  // JSON
  std::string actual;    // JSON
  // What kind of difference, stable under renaming keys and actors: the
  // actual outcome code for outcome/expect, the differing View field for
  // view. The shrinker keeps a candidate only if this and `what` and the
  // failing op kind stay the same ("fails the same way").
  std::string field;
  // An expectation the model itself breaks (the trace contradicts the rules),
  // as opposed to one the target breaks: never the same failure.
  bool on_model = false;
  // Every field that differs, labelled: `left` is "model" (outcome, view) or
  // "trace" (a broken expectation), `right` the target's name or "model".
  // Empty for a property, which is about one side's View (`actual`).
  std::vector<FieldDiff> diff;
  std::string left, right;
};

// View fields where a known divergence may be a standing offset: a metric
// the target reports off by an amount that later steps carry unchanged (a
// known finding with `goes_on`). A run goes on past such a finding, and
// compares the field against the model's plus the offset from then on.
// One row a field: its name (a View difference's field) and the metrics it
// covers, each a value per memory segment, or one gauge (a count the target
// reports; a negative one wraps, and the offset is taken modulo 2^64). An
// offset that `heals` may shrink toward 0 at any step (never grow or change
// sign): Mooncake counts an object a failover restored uncounted once a call
// syncs it, and never uncounts it when it goes.
struct OffsetField {
  std::string_view field;
  std::vector<int64_t> View::*metrics[2];
  uint64_t View::*gauge;
  bool heals;
};
inline constexpr OffsetField kOffsetFields[] = {
    {"segment_metrics", {&View::segment_allocated, &View::segment_capacity}, nullptr, false},
    {"cached", {nullptr, nullptr}, &View::cached, true},
};
// The row of kOffsetFields named `field`, or nullptr.
const OffsetField* offset_field(std::string_view field);
// The target's metrics minus the model's, per kOffsetFields row and metric,
// per segment (a gauge's in [row][0][0]).
struct Offsets {
  std::vector<int64_t> values[std::size(kOffsetFields)][2];
};

// Given a View failure on an offset field, the trace so far (the failing step
// last) and the target's variant: the known finding the run goes on past
// (Lockstep sets its step), or nullopt to stop there.
using GoesOn = std::function<std::optional<WentOnPast>(const Failure&, const Trace&, std::string_view variant)>;

// What a run checks besides lockstep equality.
struct Checks {
  std::vector<const StepCheck*> properties;  // evaluated on both Views each step
  // Off when a property must be shown to fail on a faulty target: the
  // comparison with the model would otherwise stop the run first.
  bool compare_with_model = true;
  // Empty: every failure stops the run. Only ever asked with a trace to record into.
  GoesOn goes_on;
};

class Lockstep {
 public:
  // The model is built from `config` (already validated by the caller).
  Lockstep(const Config& config, Target& target, Checks checks = {});
  // The same lockstep (model, Views, clock, counts) driving `target`, a copy
  // of `other`'s target at the same state (Target::clone).
  Lockstep(const Lockstep& other, Target& target);
  // The same, into this lockstep, reusing its model's and Views' storage.
  void assign(const Lockstep& other, Target& target) {
    *this = other;
    target_ = &target;
  }
  // Applies one op (an advance moves the clock first) and records the step.
  // Expectations (outcome and state) are checked on the model's and on the
  // target's result.
  std::optional<Failure> step(const Op& op, const std::optional<Outcome>& expect, Trace* record,
                              const StateExpectation* expect_state = nullptr);
  // The target's View after the next step reads its whole state (a run's last step).
  void view_whole_next() { target_->view_whole_next(); }
  // Expected state fields the target could not show (its capabilities).
  uint64_t unchecked_expectations() const { return unchecked_; }
  Time now() const { return now_; }
  const Model& model() const { return model_; }
  uint64_t comparisons() const { return comparisons_; }
  // The known findings the run went on past (Checks::goes_on), in step order.
  const std::vector<WentOnPast>& went_on() const { return went_on_; }

 private:
  std::optional<Failure> compare_views(size_t index, const View& vm, const View& vt, Trace* record);
  void follow_eviction_choice(const Op& op, const Model& before, Outcome* om, View* vm, const Outcome& ot,
                              const View& vt);
  std::optional<Failure> check_outcome_expectation(const Outcome& expect, const Outcome& got, std::string_view side);
  std::optional<Failure> check_state_expectation(const StateExpectation& e, const View& view, Capabilities caps,
                                                 std::string_view side);
  Failure thrown(size_t index, const Outcome& om, const std::exception& e) const;
  std::optional<Failure> check_properties(const Op& op, const Outcome& outcome, const View& before,
                                          const View& after, Capabilities caps, const char* side,
                                          Capabilities decided = 0);
  Model model_;
  Target* target_;  // never null
  Config config_;
  Checks checks_;
  // The Views after the previous step ([after_]) and after this one, built in
  // the buffers of the Views before last ([after_ ^ 1], Target::view_into for
  // the target's); a passed step flips after_ (no View is moved).
  View model_views_[2];
  View target_views_[2];
  uint8_t after_ = 0;
  bool views_equal_;  // the model's and the target's Views after the previous step equal, field for field
  Time now_ = 0;
  size_t index_ = 0;
  uint64_t comparisons_ = 0;
  uint64_t unchecked_ = 0;
  // The offsets standing since a finding the run went on past; a value's is
  // 0 again once the two agree, and none stand once all are 0.
  Offsets offsets_;
  bool offsets_standing_ = false;
  std::vector<WentOnPast> went_on_;
};

// Keeps only what `caps` covers, so Views of two targets compare directly.
View masked(View v, Capabilities caps);
// masked(a, caps) == masked(b, caps), without a copy when `caps` covers the
// whole View (the model's and the embedded target's every step).
bool same_masked(const View& a, const View& b, Capabilities caps);
// The first difference between two Views: the field's name and one line.
struct Difference {
  std::string field;
  std::string detail;
};
Difference describe_difference(const View& expected, const View& actual);

}  // namespace pinsim
