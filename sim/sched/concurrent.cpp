// Concurrent clients and the linearizability check; see concurrent.h.
#include "concurrent.h"

#include <algorithm>
#include <atomic>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "digest.h"
#include "json_codec.h"
#include "runner.h"

namespace pinsim::sched {

History run_concurrent(Target& target, const std::vector<std::vector<Op>>& scripts, Time now, Choices& choices,
                       uint32_t preempt_pct) {
  RandomPolicy policy(choices, preempt_pct);
  return run_concurrent(target, scripts, now, policy);
}

History run_concurrent(Target& target, const std::vector<std::vector<Op>>& scripts, Time now, Policy& policy) {
  std::vector<std::vector<Call>> per_actor(scripts.size());
  std::atomic<uint64_t> clock{0};  // advanced by one actor at a time, between synchronisation points
  Scheduler s(policy);
  for (uint32_t a = 0; a < scripts.size(); ++a)
    s.spawn([&, a] {
      for (const Op& op : scripts[a]) {
        Call c{a, op, {}, ++clock, 0};
        c.outcome = target.apply(op, now);
        c.returned = ++clock;
        per_actor[a].push_back(std::move(c));
      }
    });
  History h;
  h.run = s.run();
  for (auto& calls : per_actor)
    for (Call& c : calls) h.calls.push_back(std::move(c));
  std::sort(h.calls.begin(), h.calls.end(), [](const Call& x, const Call& y) { return x.invoked < y.invoked; });
  h.final_view = target.view(now);
  return h;
}

namespace {

struct Search {
  const History& h;
  Time now;
  Capabilities caps;
  View target_view;
  std::vector<bool> done;
  std::vector<size_t> order;
  std::set<std::tuple<std::vector<bool>, uint64_t, uint64_t>> seen;  // states that explain nothing
  std::string buffer;

  // Whether call i may come next: no call left undone returned before it was invoked.
  bool minimal(size_t i) const {
    for (size_t j = 0; j < h.calls.size(); ++j)
      if (!done[j] && j != i && h.calls[j].returned < h.calls[i].invoked) return false;
    return true;
  }

  bool explains(const Model& m, size_t left) {
    if (left == 0) return masked(m.view(now), caps) == target_view;
    m.canonical_state(now, &buffer);
    const Digest d = digest_of(buffer);
    if (!seen.insert({done, d.a, d.b}).second) return false;
    for (size_t i = 0; i < h.calls.size(); ++i) {
      if (done[i] || !minimal(i)) continue;
      Model next = m;
      if (!(next.apply(h.calls[i].op, now) == h.calls[i].outcome)) continue;
      done[i] = true;
      order.push_back(i);
      const bool found = explains(next, left - 1);
      done[i] = false;
      if (found) return true;
      order.pop_back();
    }
    return false;
  }
};

}  // namespace

std::optional<std::vector<size_t>> linearize(const Model& start, const History& history, Time now, Capabilities caps) {
  Search s{history, now, caps, masked(history.final_view, caps), std::vector<bool>(history.calls.size(), false),
           {}, {}, {}};
  if (!s.explains(start, history.calls.size())) return std::nullopt;
  return s.order;
}

std::optional<std::string> check_linearizable(const Model& start, const History& history, Time now,
                                              Capabilities caps) {
  if (linearize(start, history, now, caps)) return std::nullopt;
  std::string account = "no order of the calls explains their outcomes and the final View:";
  for (const Call& c : history.calls)
    account += " [actor " + std::to_string(c.actor) + " " + encode_op(c.op).dump() + " -> " +
               std::string(to_string(c.outcome.code)) + " @" + std::to_string(c.invoked) + ".." +
               std::to_string(c.returned) + "]";
  return account;
}

}  // namespace pinsim::sched
