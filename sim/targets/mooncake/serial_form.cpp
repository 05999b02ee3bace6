// A lane failure's calls one after another against MasterService alone
// (serial_form.h): a race, or a sequential divergence for the sequential lane.
#include "serial_form.h"

#include <functional>

#include "campaign.h"
#include "concurrency_lane.h"
#include "mooncake_target.h"
#include "property.h"
#include "runner.h"
#include "schedule_shrink.h"

namespace pinsim::mooncake_lane {

namespace {

// The orders of the calls that keep real time (a call that returned before
// another was invoked comes first), or nullopt when there are more than `cap`.
std::optional<std::vector<std::vector<size_t>>> real_time_orders(const sched::History& h, size_t cap) {
  const size_t n = h.calls.size();
  std::vector<std::vector<size_t>> out;
  std::vector<size_t> order;
  std::vector<bool> placed(n, false);
  const auto ready = [&](size_t i) {
    for (size_t j = 0; j < n; ++j)
      if (!placed[j] && j != i && h.calls[j].returned < h.calls[i].invoked) return false;
    return true;
  };
  std::function<bool()> extend = [&]() {
    if (order.size() == n) {
      out.push_back(order);
      return out.size() <= cap;
    }
    for (size_t i = 0; i < n; ++i) {
      if (placed[i] || !ready(i)) continue;
      placed[i] = true;
      order.push_back(i);
      const bool go_on = extend();
      order.pop_back();
      placed[i] = false;
      if (!go_on) return false;
    }
    return true;
  };
  if (!extend()) return std::nullopt;
  return out;
}

// Whether MasterService alone, after the prefix, answers the calls in
// `order` as the concurrent run answered them and ends in its View, compared
// as the lane compares it (not the bytes per segment: run_under).
bool serially_gives(const Scenario& s, const sched::History& h, const std::vector<size_t>& order) {
  std::string error;
  auto target = make_mooncake_target(s.config, TargetOptions{}, &error);
  if (!target) return false;
  for (const auto& [t, op] : s.prefix) target->apply(op, t);
  for (size_t i : order)
    if (!(target->apply(h.calls[i].op, s.now) == h.calls[i].outcome)) return false;
  return same_masked(target->view(s.now), h.final_view, target->capabilities() & ~kCapSegments);
}

// The lane trace's prefix, an advance to `now`, then `calls` at `now`.
Trace one_after_another(const Trace& lane, Time now, const std::vector<Op>& calls) {
  Trace t;
  t.description = "the calls of " + lane.description + ", one after another";
  t.config = lane.config;
  t.run = RunFlags{.target = "mooncake", .tree = lane.run ? lane.run->tree : ""};
  t.steps = lane.steps;
  const Time clock = t.steps.empty() ? 0 : t.steps.back().t;
  if (now > clock) {
    Op advance;
    advance.kind = OpKind::Advance;
    advance.advance_ms = now - clock;
    t.steps.push_back({now, advance, std::nullopt, std::nullopt});
  }
  for (const Op& op : calls) t.steps.push_back({now, op, std::nullopt, std::nullopt});
  return t;
}

}  // namespace

SerialForm serial_form(const Trace& lane) {
  SerialForm out;
  std::vector<uint32_t> schedule;
  const std::optional<Scenario> scenario = scenario_of(lane, &schedule, &out.why);
  if (!scenario) return out;
  bool diverged = false;
  const Result r = replay(*scenario, schedule, &diverged, true);
  if (!r.error.empty() || diverged) {
    out.why = r.error.empty() ? "the trace did not replay as recorded" : r.error;
    return out;
  }
  const auto orders = real_time_orders(r.history, kMaxSerialOrders);
  if (!orders) {
    out.why = "its calls have more than " + std::to_string(kMaxSerialOrders) + " orders one after another";
    return out;
  }
  for (const std::vector<size_t>& order : *orders) {
    ++out.orders;
    if (!serially_gives(*scenario, r.history, order)) continue;
    std::vector<Op> calls;
    for (size_t i : order) calls.push_back(r.history.calls[i].op);
    out.trace = one_after_another(lane, scenario->now, calls);
    break;
  }
  return out;
}

RunResult replay_sequential(const Trace& sequential) {
  Checks checks;
  checks.properties = all_properties();
  return pinsim::replay(sequential, &make_mooncake_target, {}, checks);
}

const KnownFinding* known_sequentially(const Trace& failing, const std::vector<KnownFinding>& sequential,
                                       std::string* how, std::optional<sched::ScheduleShrinkResult>* shrunk_out) {
  if (sequential.empty()) return nullptr;
  const auto shrunk = sched::shrink_schedule(failing, sched::ConcurrentReplayer(replay_trace));
  if (shrunk_out) *shrunk_out = shrunk;
  if (!shrunk) return nullptr;
  if (!shrunk->not_shrunk.empty()) {  // an undecided failure: no shrunk trace to run one call after another
    *how = "not shrunk: " + shrunk->not_shrunk;
    return nullptr;
  }
  *how = "shrunk to " + sched::describe_size(shrunk->size);
  const SerialForm serial = serial_form(shrunk->trace);
  if (!serial.trace) {
    *how += serial.why.empty() ? ", which no order of its whole calls one after another gives (they overlap)"
                               : ", undecided: " + serial.why;
    return nullptr;
  }
  const RunResult run = replay_sequential(*serial.trace);
  if (!run.failure) {
    *how += ", which one after another passes the sequential lane";
    return nullptr;
  }
  *how += ", one after another " + failure_signature(*run.failure, run.trace);
  const KnownFinding* k = known_failure(sequential, run);
  if (!k) *how += ", which no sequential finding names";
  return k;
}

}  // namespace pinsim::mooncake_lane
