// The concurrent lane; see concurrent_lane.h.
#include "concurrent_lane.h"

#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "concurrent.h"
#include "digest.h"
#include "json_codec.h"
#include "placement_difference.h"
#include "policies.h"
#include "runner.h"

namespace pinsim::sched {

// The words that mark a refusal as the lane's (is_lane_refusal), in one place.
static constexpr const char* kNotInLane = " does not run in this lane";

std::string lane_refusal(const Target& target) {
  if (target.capabilities() & kCapThreadSafe) return "";
  return "target " + std::string(target.name()) + kNotInLane +
         " (its capabilities lack kCapThreadSafe; the Mooncake target has its own, mooncake_concurrency)";
}

bool is_lane_refusal(const std::string& error) { return error.find(kNotInLane) != std::string::npos; }

namespace {

// At most this many model states are carried from one round to the next.
// With the target's Placement compared, the states left differ only in what
// neither shows (a replica's id order, a write's start time); most rounds
// carry one.
constexpr size_t kMaxCarried = 32;

// The state between rounds: the target, the model states of the
// linearizations so far, and the clock; every check of a round.
class Lane {
 public:
  Lane(TargetFactory factory, const TargetOptions& options, const Checks& checks, pinsim::RunResult* out)
      : factory_(factory), options_(options), checks_(checks), out_(*out) {}

  // Builds the target for `trace.config` and runs its sequential steps in
  // lockstep; false when refused (out.error) or failing (out.failure).
  bool start(const Trace& trace) {
    out_.trace.config = trace.config;
    target_ = factory_(trace.config, options_, &out_.error);
    if (!target_) return false;
    if (std::string why = lane_refusal(*target_); !why.empty()) {
      out_.error = why;
      return false;
    }
    out_.variant = std::string(target_->variant());
    Lockstep lockstep(trace.config, *target_, checks_);
    for (const TraceStep& step : trace.steps) {
      const StateExpectation* state = step.expect_state ? &*step.expect_state : nullptr;
      out_.failure = lockstep.step(step.op, step.expect, &out_.trace, state);
      if (out_.failure) return false;
    }
    models_ = {lockstep.model()};
    now_ = lockstep.now();
    out_.comparisons += lockstep.comparisons();
    return true;
  }

  // Runs one round under `policy` (recording its schedule) and checks it.
  std::optional<Failure> round(ConcurrentRound& r, Policy& policy, History* kept = nullptr) {
    if (r.t > now_) advance_to(r.t);
    History h = run_concurrent(*target_, r.scripts, r.t, policy);
    if (kept) *kept = h;
    r.schedule = h.run.schedule;
    out_.calls += h.calls.size();
    out_.decisions += h.run.decisions;
    out_.preemptions += h.run.preemptions;
    out_.lock_edges = std::max<uint64_t>(out_.lock_edges, h.run.lock_edges);
    last_decisions_ = h.run.decisions;
    try {
      return check(h, r.t);
    } catch (const SearchUndecided& e) {  // a failure of its own kind, never a pass
      return Failure{out_.trace.steps.size() + out_.rounds - 1, "linearizability",
                     "round " + std::to_string(out_.rounds - 1) + ": " + e.what(), "", "", kUndecided};
    }
  }

  const Model& model() const { return models_.front(); }
  Time now() const { return now_; }
  const Target& target() const { return *target_; }
  uint64_t last_decisions() const { return last_decisions_; }

 private:
  void advance_to(Time t) {
    const Op advance{.kind = OpKind::Advance, .advance_ms = static_cast<uint64_t>(t - now_)};
    for (Model& m : models_) m.apply(advance, t);
    target_->apply(advance, t);
    now_ = t;
  }

  std::optional<Failure> check(const History& h, Time t) {
    const size_t index = out_.trace.steps.size() + out_.rounds;
    ++out_.rounds;
    ++out_.comparisons;
    if (h.run.deadlock)
      return Failure{index, "deadlock",
                     "round " + std::to_string(out_.rounds - 1) + ": no actor could run while some waited", "", "",
                     "schedule"};
    if (!h.run.lock_cycle.empty())
      return Failure{index, "lock_order",
                     "round " + std::to_string(out_.rounds - 1) + ": the lock graph has a cycle of " +
                         std::to_string(h.run.lock_cycle.size()) + " locks (a potential deadlock)",
                     "", "", "cycle"};
    if (h.thrown)
      return Failure{index, "exception",
                     "round " + std::to_string(out_.rounds - 1) + ": actor " + std::to_string(h.thrown->actor) + "'s " +
                         h.thrown->describe(),
                     "", nlohmann::json(h.thrown->what).dump(), h.thrown->type};
    // Placement is compared: a start fixes its preference when it begins, so
    // a linearization may give it any order of the segments (linearize), and
    // the model must end with the target's free space and, when the target
    // shows it, its replicas on the same segments (Target::placement), which
    // later rounds' placement, removes and releases (and NO_AVAILABLE_HANDLE)
    // depend on.
    const Capabilities caps = target_->capabilities() & kCapAll;
    std::vector<Model> ends;
    std::set<std::pair<uint64_t, uint64_t>> seen;
    std::optional<Failure> failure;
    bool explained = false;
    for (const Model& start : models_) {
      for (Explanation& e : explanations(start, h, t, caps, kMaxCarried - ends.size())) {
        if (!explained) failure = along(h, start, e.order, t, index, caps);  // P1-P14 along the first
        explained = true;
        e.end.canonical_state(t, &buffer_, Model::IdRanks::PerObject, Model::Actors::Kept,
                              Model::Counters::Kept);
        if (const Digest d = digest_of(buffer_); seen.insert({d.a, d.b}).second) ends.push_back(std::move(e.end));
      }
      if (ends.size() >= kMaxCarried) break;
    }
    if (!explained) return not_linearizable(h, t, index, caps);
    models_ = std::move(ends);
    return failure;
  }

  // Why no linearization exists: no order gives the outcomes, or some does
  // but none ends in the target's View (the first differing field), or some
  // ends in it but none places the replicas as the target did.
  Failure not_linearizable(const History& h, Time t, size_t index, Capabilities caps) {
    const std::string round = "round " + std::to_string(out_.rounds - 1) + ": ";
    const std::string account = check_linearizable(model(), h, t, caps).value_or("");
    const auto outcomes_only = explain_outcomes(model(), h, t, caps);  // whatever View and placement it ends in
    if (!outcomes_only)
      return Failure{index, "linearizability", round + "no order of the calls gives every call its outcome", "",
                     account, "outcome"};
    History view_only = h;
    view_only.final_placement.reset();
    if (const auto order = linearize(model(), view_only, t, caps); order && h.final_placement) {
      Model m = model();
      Runs runs;
      for (const Linearized& step : *order) apply_step(m, runs, h, step, t);
      const Placement mp = m.placement();
      const Difference d = describe_placement_difference(mp, *h.final_placement);
      return Failure{index, "linearizability", round + "no order of the calls places the replicas as the target did: " +
                     d.detail, encode_placement(mp), encode_placement(*h.final_placement), d.field};
    }
    Model m = model();
    Runs runs;
    for (const Linearized& step : outcomes_only->order) apply_step(m, runs, h, step, t);
    const View mv = masked(m.view(t), caps), tv = masked(h.final_view, caps);
    const Difference d = describe_difference(mv, tv);
    return Failure{index, "linearizability", round + "no order of the calls ends in the target's View: " + d.detail,
                   encode_view(mv).dump(), encode_view(tv).dump(), d.field};
  }

  // P1-P14 along the linearization from `start`, on the model's Views; the
  // last call's step also on the target's View (the quiescent point).
  std::optional<Failure> along(const History& h, const Model& start, const std::vector<Linearized>& order, Time t,
                               size_t index, Capabilities caps) {
    Model m = start;
    Runs runs;
    View before = m.view(t);
    for (size_t k = 0; k < order.size(); ++k) {
      const Call& c = h.calls[order[k].call];
      apply_step(m, runs, h, order[k], t);
      View after = m.view(t);
      if (auto f = properties(c, before, after, t, index, kCapAll, "model")) return f;
      if (k + 1 == order.size())  // the target's side, on what both show (placement left out)
        if (auto f = properties(c, masked(before, caps), masked(h.final_view, caps), t, index, caps, "target"))
          return f;
      before = std::move(after);
    }
    return std::nullopt;
  }

  std::optional<Failure> properties(const Call& c, const View& before, const View& after, Time t, size_t index,
                                    Capabilities caps, const std::string& side) {
    const StepContext ctx{out_.trace.config, c.op, t, c.outcome, before, after};
    for (const StepCheck* p : checks_.properties) {
      if ((p->needs() & caps) != p->needs()) continue;
      ++out_.comparisons;
      if (auto why = p->check(ctx))
        return Failure{index, "property", std::string(p->id()) + " (" + std::string(p->rule()) + ") on the " + side +
                       " after round " + std::to_string(out_.rounds - 1) + ": " + *why,
                       "", encode_view(after).dump(), std::string(p->id())};
    }
    return std::nullopt;
  }

  TargetFactory factory_;
  TargetOptions options_;
  Checks checks_;
  pinsim::RunResult& out_;
  std::unique_ptr<Target> target_;
  // The model states the linearizations so far may end in (at most
  // kMaxCarried, distinct, that neither View nor Placement tells apart); the
  // first drives draws.
  std::vector<Model> models_;
  std::string buffer_;
  Time now_ = 0;
  uint64_t last_decisions_ = 0;
};

// The policy a round runs under, drawn from `choices` (random and pct).
std::unique_ptr<Policy> policy_for(const ConcurrentSettings& s, Choices& choices, size_t actors, uint64_t expected) {
  if (s.schedule == "pct")
    return std::make_unique<PctPolicy>(choices, static_cast<uint32_t>(actors), s.pct_depth, expected);
  return std::make_unique<RandomPolicy>(choices, s.preempt_pct);
}

// Ops a client may run in the lane: each must be one atomic step for the
// linearizability check. A batch op, remove_all and remove_by_regex are
// loops over keys and shards (in Mooncake too) whose elements linearize
// separately; a quota policy change may land between a write's reservation
// and its settlement (separate critical sections, as in Mooncake). A
// snapshot is atomic, but its image is state no View shows: two orders that
// both explain a round may differ in it, and the model would go on from one
// the target did not take (a later restore shows it); a restore needs one,
// and so does a failover (it replaces the master between two calls: the lane
// does not run it concurrently yet). They are drawn again.
bool atomic_in_lane(const Op& op) {
  switch (op.kind) {
    case OpKind::RemoveAll: case OpKind::RemoveByRegex: case OpKind::SetQuota: case OpKind::DeleteQuota:
    case OpKind::Snapshot: case OpKind::Restore: case OpKind::Failover:
      return false;
    default:
      return !is_batch(op.kind);
  }
}

size_t actor_count(const ConcurrentSettings& s) { return s.clients + s.background.size(); }

// A round's scripts: each client's ops from the workload (an advance drawn
// moves the round's time instead), each background actor's op repeated.
ConcurrentRound draw_round(Choices& c, const Workload& w, const Lane& lane, const ConcurrentSettings& s,
                           const Op& evict) {
  ConcurrentRound r;
  r.t = lane.now();
  for (uint32_t a = 0; a < s.clients; ++a) {
    r.scripts.emplace_back();
    while (r.scripts.back().size() < s.ops_per_round) {
      Op op = w.next(c, lane.model(), r.t);
      for (int tries = 0; tries < 64 && !(lane.target().supports(op) && atomic_in_lane(op)); ++tries)
        op = w.next(c, lane.model(), r.t);
      if (op.kind == OpKind::Advance) r.t = time_after(r.t, op);
      else if (lane.target().supports(op) && atomic_in_lane(op)) r.scripts.back().push_back(std::move(op));
    }
  }
  for (const std::string& b : s.background)
    r.scripts.emplace_back(s.ops_per_round, b == "evict" ? evict : Op{.kind = OpKind::Cleanup});
  return r;
}

// At most this many schedules of one round are enumerated (odometer).
constexpr uint64_t kMaxSchedulesPerRound = 2000;

// Every schedule of round `r` with at most K preemptions (the odometer, runs
// without preemption first), each on a fresh target brought to the round's
// start by replaying `so_far`; the first failing schedule is kept in `r`.
std::optional<Failure> enumerate_round(ConcurrentRound& r, const ConcurrentSettings& s, const Trace& so_far,
                                       TargetFactory factory, const TargetOptions& options, const Checks& checks,
                                       pinsim::RunResult* out) {
  OdometerChoices odometer;
  uint64_t n = 0;
  do {
    pinsim::RunResult scratch;
    Lane lane(factory, options, checks, &scratch);
    if (!lane.start(so_far)) return scratch.failure;
    for (const ConcurrentRound& previous : so_far.concurrent->rounds) {
      ConcurrentRound p = previous;
      ReplayPolicy replay(previous.schedule);
      lane.round(p, replay);
    }
    const pinsim::RunResult before = scratch;
    ConcurrentRound candidate = r;
    BoundedPolicy policy(odometer, s.preempt_bound);
    std::optional<Failure> failure = lane.round(candidate, policy);
    out->decisions += scratch.decisions - before.decisions;
    out->preemptions += scratch.preemptions - before.preemptions;
    out->schedules += 1;
    if (failure) {
      r = std::move(candidate);
      return failure;
    }
  } while (odometer.next() && ++n < kMaxSchedulesPerRound);
  return std::nullopt;
}

}  // namespace

pinsim::RunResult replay_concurrent(const Trace& trace, TargetFactory factory, const TargetOptions& options,
                                    const Checks& checks, History* last) {
  pinsim::RunResult out;
  out.trace = trace;
  out.trace.steps.clear();
  if (trace.concurrent && trace.concurrent->settings.unmount_sweep != "in_call") {
    out.error = "$.concurrent.settings.unmount_sweep: " + trace.concurrent->settings.unmount_sweep +
                " is the Mooncake lane's (mooncake_concurrency --replay)";
    return out;
  }
  Lane lane(factory, options, checks, &out);
  if (!lane.start(trace) || !trace.concurrent) return out;
  out.trace.concurrent->rounds.clear();
  for (const ConcurrentRound& recorded : trace.concurrent->rounds) {
    ConcurrentRound r = recorded;
    ReplayPolicy policy(recorded.schedule);
    out.failure = lane.round(r, policy, last);
    out.trace.concurrent->rounds.push_back(std::move(r));
    if (out.failure) break;
  }
  out.steps = out.calls;
  return out;
}

pinsim::RunResult run_concurrent_seed(uint64_t seed, const SeedOptions& seed_options,
                                      const ConcurrentSettings& settings, TargetFactory factory,
                                      const TargetOptions& options, const Checks& checks) {
  pinsim::RunResult out;
  RandomChoices choices(seed);
  WorkloadConfig workload;
  Config config;
  draw_seed(choices, seed_options, &workload, &config);
  Trace start;
  start.config = config;
  Lane lane(factory, options, checks, &out);
  out.trace.seed = seed;
  out.trace.description = "seed " + std::to_string(seed) + " concurrent: " + std::to_string(settings.clients) +
                          " clients" + (settings.background.empty() ? "" : " + background") + ", " + settings.schedule;
  out.trace.concurrent = ConcurrentRun{settings, {}};
  if (!lane.start(start)) return out;
  const Workload generator(workload, config);
  Op evict{.kind = OpKind::Evict};
  const auto& pcts = workload.evict_target_pcts;
  evict.evict_target_pct = pcts.empty() ? 100 : pcts[choices.pick(pcts.size())];
  uint64_t expected = actor_count(settings) * settings.ops_per_round * 16;
  for (uint32_t i = 0; i < settings.rounds && !out.failure; ++i) {
    ConcurrentRound r = draw_round(choices, generator, lane, settings, evict);
    if (settings.schedule == "odometer") {
      Trace so_far = out.trace;
      so_far.config = config;
      if ((out.failure = enumerate_round(r, settings, so_far, factory, options, checks, &out))) {
        out.trace.concurrent->rounds.push_back(std::move(r));
        break;
      }
      OdometerChoices first;  // the round itself goes on without preemption
      BoundedPolicy policy(first, 0);
      out.failure = lane.round(r, policy);
    } else {
      auto policy = policy_for(settings, choices, actor_count(settings), expected);
      out.failure = lane.round(r, *policy);
      out.schedules += 1;
    }
    expected = std::max<uint64_t>(lane.last_decisions(), 1);
    out.trace.concurrent->rounds.push_back(std::move(r));
  }
  out.steps = out.calls;
  return out;
}

}  // namespace pinsim::sched
