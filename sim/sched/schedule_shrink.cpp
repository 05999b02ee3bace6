// Shrinking a concurrent trace; see schedule_shrink.h.
#include "schedule_shrink.h"

#include <algorithm>

#include "concurrent.h"
#include "concurrent_lane.h"
#include "policies.h"

namespace pinsim::sched {

namespace {

constexpr size_t kMaxReplays = 4000;
constexpr const char* kNotShrunk = "each replay of a smaller candidate could search the whole budget again";

ScheduleSize measure(const Trace& t, const pinsim::RunResult& run) {
  ScheduleSize s;
  std::vector<bool> busy(t.concurrent->settings.clients + t.concurrent->settings.background.size(), false);
  for (const ConcurrentRound& r : t.concurrent->rounds) {
    for (size_t a = 0; a < r.scripts.size(); ++a) {
      s.ops += r.scripts[a].size();
      busy[a] = busy[a] || !r.scripts[a].empty();
    }
    s.decisions += r.schedule.size();
  }
  s.actors = static_cast<size_t>(std::count(busy.begin(), busy.end(), true));
  s.preemptions = run.preemptions;
  s.steps = static_cast<size_t>(std::count_if(t.steps.begin(), t.steps.end(),
                                              [](const TraceStep& st) { return st.op.kind != OpKind::Advance; }));
  return s;
}

class Shrinker {
 public:
  explicit Shrinker(const ConcurrentReplayer& replay) : replay_(replay) {}

  // Replays `t`; the trace as run (schedules taken, rounds up to the failing
  // one) and its failure.
  pinsim::RunResult run(const Trace& t) {
    ++replays_;
    pinsim::RunResult r = replay_(t);
    r.trace.run = t.run;
    r.trace.description = t.description;
    return r;
  }
  static std::string signature(const Failure& f) { return f.what + "|" + f.field; }

  bool init(const Trace& t) {
    pinsim::RunResult r = run(t);
    if (!r.failure) return false;
    best_ = r.trace, failure_ = *r.failure, size_ = measure(best_, r), signature_ = signature(*r.failure);
    original_ = measure(t, r);
    original_.preemptions = r.preemptions;
    return true;
  }

  // Keeps `candidate` when it fails the same way and is smaller.
  bool attempt(const Trace& candidate) {
    if (replays_ >= kMaxReplays) return false;
    pinsim::RunResult r = run(candidate);
    if (!r.failure || signature(*r.failure) != signature_) return false;
    const ScheduleSize size = measure(r.trace, r);
    if (!(size < size_)) return false;
    best_ = std::move(r.trace), failure_ = *r.failure, size_ = size;
    return true;
  }

  bool drop_rounds() {
    bool any = false;
    for (size_t i = best_.concurrent->rounds.size(); i-- > 0;) {
      if (i >= best_.concurrent->rounds.size() || best_.concurrent->rounds.size() == 1) continue;
      Trace c = best_;
      c.concurrent->rounds.erase(c.concurrent->rounds.begin() + static_cast<ptrdiff_t>(i));
      any |= attempt(c);
    }
    return any;
  }

  // Each sequential step before the rounds, last first (advances stay: the
  // clock of the steps after them depends on them).
  bool drop_steps() {
    bool any = false;
    for (size_t i = best_.steps.size(); i-- > 0;) {
      if (i >= best_.steps.size() || best_.steps[i].op.kind == OpKind::Advance) continue;
      Trace c = best_;
      c.steps.erase(c.steps.begin() + static_cast<ptrdiff_t>(i));
      any |= attempt(c);
    }
    return any;
  }

  // Removes actor `a` from every round (its scripts and its decisions).
  static Trace without_actor(Trace t, uint32_t a) {
    ConcurrentSettings& s = t.concurrent->settings;
    if (a < s.clients) --s.clients;
    else s.background.erase(s.background.begin() + (a - s.clients));
    for (ConcurrentRound& r : t.concurrent->rounds) {
      r.scripts.erase(r.scripts.begin() + a);
      std::vector<uint32_t> schedule;
      for (uint32_t d : r.schedule)
        if (d != a) schedule.push_back(d > a ? d - 1 : d);
      r.schedule = std::move(schedule);
    }
    return t;
  }

  bool drop_actors() {
    bool any = false;
    for (uint32_t a = static_cast<uint32_t>(best_.concurrent->rounds.front().scripts.size()); a-- > 0;) {
      const size_t actors = best_.concurrent->rounds.front().scripts.size();
      if (actors <= 1 || a >= actors) continue;
      any |= attempt(without_actor(best_, a));
    }
    return any;
  }

  bool drop_ops() {
    bool any = false;
    for (size_t r = 0; r < best_.concurrent->rounds.size(); ++r)
      for (size_t a = 0; r < best_.concurrent->rounds.size() && a < best_.concurrent->rounds[r].scripts.size(); ++a)
        for (size_t i = best_.concurrent->rounds[r].scripts[a].size(); i-- > 0;) {
          if (r >= best_.concurrent->rounds.size() || i >= best_.concurrent->rounds[r].scripts[a].size()) continue;
          Trace c = best_;
          auto& script = c.concurrent->rounds[r].scripts[a];
          script.erase(script.begin() + static_cast<ptrdiff_t>(i));
          any |= attempt(c);
        }
    return any;
  }

  // Actor a's script of one round handed to a lower actor b (a's decisions
  // become b's), kept when it fails the same way. Pass `idle`: b has no op
  // in that round (its decisions there dropped), and a, with no op left in
  // any round, is then removed by drop_actors. Pass busy: a's calls go after
  // b's; a race of three actors often fails as a race of two where one of
  // them runs two calls.
  bool merge_actors(bool idle) {
    bool any = false;
    for (size_t r = 0; r < best_.concurrent->rounds.size(); ++r)
      for (uint32_t a = 1; a < best_.concurrent->rounds[r].scripts.size(); ++a)
        for (uint32_t b = 0; b < a && !best_.concurrent->rounds[r].scripts[a].empty(); ++b) {
          if (best_.concurrent->rounds[r].scripts[b].empty() != idle) continue;
          Trace c = best_;
          ConcurrentRound& round = c.concurrent->rounds[r];
          if (idle) std::erase(round.schedule, b);
          round.scripts[b].insert(round.scripts[b].end(), round.scripts[a].begin(), round.scripts[a].end());
          round.scripts[a].clear();
          std::replace(round.schedule.begin(), round.schedule.end(), a, b);
          if (attempt(c)) {
            any = true;
            break;
          }
        }
    return any;
  }

  // Each decision, last first, replaced by "the running actor goes on";
  // before that, a round's decisions from some point on (the whole round
  // first: run it without preemption).
  bool drop_preemptions() {
    bool any = false;
    for (size_t r = 0; r < best_.concurrent->rounds.size(); ++r)
      for (size_t from = 0; r < best_.concurrent->rounds.size() && from < best_.concurrent->rounds[r].schedule.size();
           ++from) {
        Trace c = best_;
        auto& schedule = c.concurrent->rounds[r].schedule;
        if (std::all_of(schedule.begin() + static_cast<ptrdiff_t>(from), schedule.end(),
                        [](uint32_t d) { return d == ReplayPolicy::kGoOn; }))
          break;
        std::fill(schedule.begin() + static_cast<ptrdiff_t>(from), schedule.end(), ReplayPolicy::kGoOn);
        if (attempt(c)) {
          any = true;
          break;
        }
      }
    for (size_t r = best_.concurrent->rounds.size(); r-- > 0;)
      for (size_t i = best_.concurrent->rounds[r].schedule.size(); i-- > 0;) {
        if (r >= best_.concurrent->rounds.size() || i >= best_.concurrent->rounds[r].schedule.size()) continue;
        if (stays(best_.concurrent->rounds[r].schedule, i)) continue;
        Trace c = best_;
        c.concurrent->rounds[r].schedule[i] = ReplayPolicy::kGoOn;
        any |= attempt(c);
      }
    return any;
  }

  // Decision i picks the actor the one before it picked, or already says
  // "go on": almost always the running actor going on, so replacing it by
  // "go on" replays the same run (skipped; the rare exception, an actor that
  // ran alone in between, is a candidate left untried, never a wrong one).
  // Without this the pass costs a replay per decision: thousands for a
  // Mooncake eviction.
  static bool stays(const std::vector<uint32_t>& schedule, size_t i) {
    return schedule[i] == ReplayPolicy::kGoOn || (i > 0 && schedule[i] == schedule[i - 1]);
  }

  bool undecided() const { return failure_.field == kUndecided; }
  ScheduleShrinkResult result(std::string not_shrunk = "") const {
    return {best_, failure_, original_, size_, replays_, std::move(not_shrunk)};
  }

 private:
  const ConcurrentReplayer& replay_;
  Trace best_;
  Failure failure_;
  ScheduleSize size_, original_;
  std::string signature_;
  size_t replays_ = 0;
};

}  // namespace

ScheduleSize size_of(const Trace& trace, TargetFactory factory, const TargetOptions& options, const Checks& checks) {
  return measure(trace, replay_concurrent(trace, factory, options, checks));
}

std::string describe_size(const ScheduleSize& s) {
  return std::to_string(s.ops) + " ops, " + std::to_string(s.actors) + " actors, " + std::to_string(s.preemptions) +
         " preemptions, " + std::to_string(s.decisions) + " decisions, " + std::to_string(s.steps) + " steps";
}

std::optional<ScheduleShrinkResult> shrink_schedule(const Trace& failing, TargetFactory factory,
                                                    const TargetOptions& options, const Checks& checks) {
  const ConcurrentReplayer replay = [&](const Trace& t) { return replay_concurrent(t, factory, options, checks); };
  return shrink_schedule(failing, replay);
}

std::optional<ScheduleShrinkResult> shrink_schedule(const Trace& failing, const ConcurrentReplayer& replay) {
  if (!failing.concurrent || failing.concurrent->rounds.empty()) return std::nullopt;
  Shrinker s(replay);
  if (!s.init(failing)) return std::nullopt;
  if (s.undecided()) return s.result(kNotShrunk);
  for (bool more = true; more;) {
    more = s.drop_rounds();
    more |= s.merge_actors(true);
    more |= s.merge_actors(false);
    more |= s.drop_actors();
    more |= s.drop_ops();
    more |= s.drop_preemptions();
    more |= s.drop_steps();
  }
  return s.result();
}

}  // namespace pinsim::sched
