// Whether a failure of the Mooncake concurrency lane is a race or a
// sequential divergence seen concurrently. MasterService alone runs the
// failing history's calls one after another, in each order that keeps real
// time: when one order answers every call as the concurrent run did and ends
// in the same View, nothing in the history needed the calls to overlap, and
// that order is a sequential trace for pinsim's sequential lane, whose
// findings (scenarios/findings/) may name it. When no order does, the
// history needs its calls to overlap: a race, or a sequential divergence
// that shows only between the steps of one call (a batch's keys, a start's
// quota attempts), which whole calls one after another cannot reproduce.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "campaign.h"
#include "known_findings.h"
#include "schedule_shrink.h"
#include "trace.h"

namespace pinsim::mooncake_lane {

// Orders tried at most; a history with more orders that keep real time is
// not decided (SerialForm::why), never taken as a race.
inline constexpr size_t kMaxSerialOrders = 720;

struct SerialForm {
  // The lane trace's prefix, an advance to the round's instant, then the
  // calls in the order MasterService alone answered as the concurrent run
  // did; nullopt when no order does, or when it could not be decided.
  std::optional<Trace> trace;
  size_t orders = 0;  // orders run
  std::string why;    // when not decided: the trace would not replay, or too many orders
};
SerialForm serial_form(const Trace& lane);

// Such a trace run by the sequential lane: the model beside MasterService,
// every property.
RunResult replay_sequential(const Trace& sequential);

// The sequential finding of `sequential` (scenarios/findings) that names the
// failing lane trace `failing` (to_trace), or nullptr: the failure shrunk
// (schedule_shrink.h), its serial form run by the sequential lane fails as
// that finding. `how` says what it shrank to and what its calls do one after
// another: fail as a signature (named by a finding or not), pass, or no
// order gives what the concurrent run gave (its calls overlap, and no
// sequential finding names it here).
// `shrunk`, when given, receives the shrink, so that a caller that writes
// the shrunk failure (`--out`) need not shrink it again.
const KnownFinding* known_sequentially(const Trace& failing, const std::vector<KnownFinding>& sequential,
                                       std::string* how,
                                       std::optional<sched::ScheduleShrinkResult>* shrunk = nullptr);

}  // namespace pinsim::mooncake_lane
