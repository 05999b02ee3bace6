// Concurrent clients and the linearizability check; see concurrent.h.
#include "concurrent.h"

#include <algorithm>
#include <atomic>
#include <set>
#include <unordered_set>

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
  h.final_placement = target.placement();
  return h;
}

namespace {

// Every placement preference a start may carry: each order of the memory
// segments with each order of the NoF segments (placement compares scores
// within one kind only), as score vectors, higher first.
std::vector<std::vector<uint64_t>> preference_candidates(const std::vector<SegmentConfig>& segments) {
  std::vector<uint32_t> memory, nof;
  for (uint32_t s = 0; s < segments.size(); ++s)
    (segments[s].kind == ReplicaKind::Memory ? memory : nof).push_back(s);
  std::vector<std::vector<uint64_t>> out;
  do {
    do {
      std::vector<uint64_t> score(segments.size());
      for (const auto* kind : {&memory, &nof})
        for (size_t rank = 0; rank < kind->size(); ++rank) score[(*kind)[rank]] = kind->size() - rank;
      out.push_back(std::move(score));
    } while (std::next_permutation(nof.begin(), nof.end()));
  } while (std::next_permutation(memory.begin(), memory.end()));
  return out;
}

bool single_start(const Op& op) { return op.kind == OpKind::PutStart || op.kind == OpKind::UpsertStart; }

struct Search {
  const History& h;
  Time now;
  Capabilities caps;
  View target_view;
  std::vector<std::vector<uint64_t>> preferences;  // a start's alternatives to the model's own
  std::vector<bool> done;
  std::vector<Linearized> order;
  std::unordered_set<Digest, DigestHash> seen;  // states visited: the canonical state and the calls done
  size_t limit = 1;
  std::vector<Explanation> found;  // one per distinct end state
  std::set<std::pair<uint64_t, uint64_t>> ends;
  std::string buffer;

  // Whether call i may come next: no call left undone returned before it was invoked.
  bool minimal(size_t i) const {
    for (size_t j = 0; j < h.calls.size(); ++j)
      if (!done[j] && j != i && h.calls[j].returned < h.calls[i].invoked) return false;
    return true;
  }

  bool explains(const Model& m, size_t left) {
    if (left == 0) return ends_in_target_view(m);
    m.canonical_state(now, &buffer, Model::IdRanks::PerObject);
    for (const bool b : done) buffer.push_back(b ? '1' : '0');
    if (!seen.insert(digest_of(buffer)).second) return false;
    for (size_t i = 0; i < h.calls.size(); ++i) {
      if (done[i] || !minimal(i)) continue;
      const size_t alternatives = single_start(h.calls[i].op) ? preferences.size() : 0;
      for (size_t p = 0; p <= alternatives; ++p)  // p == 0: the model's own preference
        if (explains_with(m, left, {i, p == 0 ? std::vector<uint64_t>{} : preferences[p - 1]})) return true;
    }
    return false;
  }

  // True when enough explanations are found (the search stops).
  bool ends_in_target_view(const Model& m) {
    if (masked(m.view(now), caps) != target_view) return false;
    if (h.final_placement && m.placement() != *h.final_placement) return false;
    m.canonical_state(now, &buffer, Model::IdRanks::PerObject);
    const Digest d = digest_of(buffer);
    if (ends.insert({d.a, d.b}).second) found.push_back({order, m});
    return found.size() >= limit;
  }

  bool explains_with(const Model& m, size_t left, Linearized step) {
    Model next = m;
    if (!(apply_step(next, h, step, now) == h.calls[step.call].outcome)) return false;
    const size_t i = step.call;
    done[i] = true;
    order.push_back(std::move(step));
    const bool found = explains(next, left - 1);
    done[i] = false;
    if (!found) order.pop_back();
    return found;
  }
};

}  // namespace

Outcome apply_step(Model& m, const History& history, const Linearized& step, Time now) {
  if (!step.preference.empty()) m.prefer_in_next_start(step.preference);
  return m.apply(history.calls[step.call].op, now);
}

std::vector<Explanation> explanations(const Model& start, const History& history, Time now, Capabilities caps,
                                      size_t limit) {
  Search s{history, now, caps, masked(history.final_view, caps), preference_candidates(start.config().segments),
           std::vector<bool>(history.calls.size(), false), {}, {}, std::max<size_t>(limit, 1), {}, {}, {}};
  s.explains(start, history.calls.size());
  return std::move(s.found);
}

std::optional<std::vector<Linearized>> linearize(const Model& start, const History& history, Time now,
                                                 Capabilities caps) {
  std::vector<Explanation> found = explanations(start, history, now, caps, 1);
  if (found.empty()) return std::nullopt;
  return std::move(found.front().order);
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
