// Concurrent clients and the linearizability check; see concurrent.h.
#include "concurrent.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <atomic>
#include <deque>
#include <exception>
#include <set>

#include <nlohmann/json.hpp>

#include "digest.h"
#include "digest_set.h"
#include "exception_type.h"
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
  std::optional<Thrown> thrown;    // written by one actor at a time, like the clock
  std::vector<std::vector<std::pair<const void*, uint64_t>>*> evicting(scripts.size(), nullptr);
  Scheduler s(policy);
  s.observe_acquisitions([&](int actor, const void* m) {  // on the actor's own thread
    if (auto* acquired = evicting[actor]) acquired->push_back({m, clock.load()});
  });
  for (uint32_t a = 0; a < scripts.size(); ++a)
    s.spawn([&, a] {
      for (const Op& op : scripts[a]) {
        Call c{a, op, {}, ++clock, 0};
        if (op.kind == OpKind::Evict) evicting[a] = &c.acquired;
        try {
          c.outcome = target.apply(op, now);
        } catch (const std::exception& e) {
          evicting[a] = nullptr;
          if (!thrown) thrown = Thrown{a, op, exception_type(e), e.what()};
          return;
        }
        evicting[a] = nullptr;
        c.returned = ++clock;
        per_actor[a].push_back(std::move(c));
      }
    });
  History h;
  h.run = s.run();
  h.thrown = std::move(thrown);
  for (auto& calls : per_actor)
    for (Call& c : calls) h.calls.push_back(std::move(c));
  std::sort(h.calls.begin(), h.calls.end(), [](const Call& x, const Call& y) { return x.invoked < y.invoked; });
  target.settle();           // a worker's deferred work runs once the calls are done
  target.view_whole_next();  // the round's one View
  h.final_view = target.view(now);
  h.final_placement = target.placement();
  return h;
}

std::string Thrown::signature() const {
  return "exception/" + std::string(to_string(op.kind)) + "/" + type;
}

std::string Thrown::describe() const { return std::string(to_string(op.kind)) + " threw " + type + ": " + what; }

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

// The bytes `op` could allocate in segments of `kind` (a batch's sizes
// summed, whatever its keys; saturating).
uint64_t demand(const Op& op, ReplicaKind kind) {
  if (!is_start(op.kind)) return 0;
  unsigned __int128 bytes = op.size;
  for (uint64_t size : op.sizes) bytes += size;
  bytes *= kind == ReplicaKind::Memory ? op.memory_replicas : op.nof_replicas;
  return bytes > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(bytes);
}

// Whether no call's outcome and no compared View field can depend on which
// segments a start places on, so the model's own placement stands for every
// other: nothing compares segments (no kCapSegments, no final placement),
// no call mounts, unmounts or copies a segment or names one (the Segment and
// Replication classes), and every segment that takes replicas has room for
// all the bytes the history's starts could allocate in its kind. Then each
// start places the same number of replicas wherever it places them, the
// eviction and the quotas count objects and bytes (never a segment), and two
// orders that differ only in placement give the same outcomes and the same
// compared View from there on. Without this, each start step is tried with
// every order of the segments, a factor of 2 per start of a two-segment
// lane (lane seed 3508: 31.4 M states, 2.3 M with the model's own placement).
bool placement_blind(const Model& start, const History& h, Capabilities caps) {
  if ((caps & kCapSegments) || h.final_placement) return false;
  const auto add = [](uint64_t& n, uint64_t d) { n = d > UINT64_MAX - n ? UINT64_MAX : n + d; };
  uint64_t memory = 0, nof = 0;  // the bytes the starts could allocate, per kind
  for (const Call& c : h.calls) {
    const OpClass cls = op_info(c.op.kind).cls;
    if (cls == OpClass::Segment || cls == OpClass::Replication) return false;
    add(memory, demand(c.op, ReplicaKind::Memory));
    add(nof, demand(c.op, ReplicaKind::Nof));
  }
  const std::vector<SegmentConfig>& segments = start.config().segments;
  for (uint32_t s = 0; s < segments.size(); ++s) {
    const ReplicaKind kind = segments[s].kind;
    if (!start.mounted(s) || (kind != ReplicaKind::Memory && kind != ReplicaKind::Nof)) continue;
    const uint64_t used = start.segment_used(s), n = kind == ReplicaKind::Memory ? memory : nof;
    if (used > segments[s].capacity || segments[s].capacity - used < n) return false;
  }
  return true;
}

bool single_start(const Op& op) { return op.kind == OpKind::PutStart || op.kind == OpKind::UpsertStart; }

// The objects an eviction's steps visit: every object of the start state
// and every object a call of the history names.
std::vector<ObjectId> objects_named(const Model& start, const History& h, Time now) {
  std::set<ObjectId> ids;
  for (const ObjectView& o : start.view(now).objects) ids.insert(o.id);
  for (const Call& c : h.calls) {
    if (c.op.object.key != 0) ids.insert(c.op.object);
    for (KeyId k : c.op.keys) ids.insert({c.op.object.tenant, k});
  }
  return {ids.begin(), ids.end()};
}

bool overlaps_another(const History& h, size_t i) {
  for (size_t j = 0; j < h.calls.size(); ++j)
    if (j != i && !(h.calls[j].returned < h.calls[i].invoked || h.calls[i].returned < h.calls[j].invoked))
      return true;
  return false;
}

// Whether a start of `tenant` may be refused for quota in some order of the
// round's calls: the tenant has a policy and its charge at the start of the
// round, plus every start of the round for it, exceeds its effective quota,
// or a call of the round may change quotas (policies, mounts, a restore).
// Charges grow only by starts; the other calls keep or lower them. A start
// that is never refused is its one attempt, so it is taken whole.
bool quota_may_refuse(const View& v, const History& h, TenantId tenant) {
  const auto quota =
      std::find_if(v.quotas.begin(), v.quotas.end(), [&](const UsageView& q) { return q.tenant == tenant; });
  if (quota == v.quotas.end()) return false;  // no policy: never refused for quota
  unsigned __int128 bound = 0;
  for (const UsageView& u : v.usage) bound += u.tenant == tenant ? u.bytes : 0;
  for (const Call& c : h.calls) {
    const OpClass cls = op_info(c.op.kind).cls;
    if (cls == OpClass::Policy || cls == OpClass::Segment || c.op.kind == OpKind::Restore) return true;
    if (!is_start(c.op.kind) || c.op.object.tenant != tenant) continue;
    if (c.op.keys.empty()) bound += static_cast<unsigned __int128>(c.op.size) * c.op.memory_replicas;
    for (size_t k = 0; k < c.op.keys.size(); ++k)
      bound += static_cast<unsigned __int128>(k < c.op.sizes.size() ? c.op.sizes[k] : c.op.size) *
               c.op.memory_replicas;
  }
  return bound > quota->bytes;
}

bool removes_many(const Op& op) { return op.kind == OpKind::RemoveAll || op.kind == OpKind::RemoveByRegex; }

// Whether a batch call may be taken as an Element step per key: it has a
// result per key and names no key twice (concurrent.h).
bool splits_batch(const Call& c) {
  if (!is_batch(c.op.kind) || c.outcome.results.size() != c.op.keys.size()) return false;
  const std::set<KeyId> keys(c.op.keys.begin(), c.op.keys.end());
  return keys.size() == c.op.keys.size() && batch_well_formed(c.op);
}

size_t element_index(const Op& batch, KeyId key) {
  return static_cast<size_t>(std::find(batch.keys.begin(), batch.keys.end(), key) - batch.keys.begin());
}

// An eviction taken in steps: one that overlaps another call, or one that
// asks for less than every candidate, whose pass 2 takes some of the objects
// in Mooncake's shard order (from a random start), which the model's key
// order need not match: in steps, any order within a stage explains it.
bool evicts_in_steps(const History& h, size_t i, Capabilities caps) {
  const Op& op = h.calls[i].op;
  if (!(caps & kCapEvictionInSteps) || op.kind != OpKind::Evict) return false;
  return overlaps_another(h, i) || op.evict_target_pct < 100 || op.evict_lowerbound_pct < 100;
}

// The clock of a scan's hold of `id`'s shard (Call::census_at, collect_at, refill_after), or 0.
uint64_t hold_of(const std::vector<std::pair<ObjectId, uint64_t>>& holds, ObjectId id) {
  for (const auto& [object, clock] : holds)
    if (object == id) return clock;
  return 0;
}

// The steps that stand for a scan's hold of an object's shard: a call
// invoked after the hold comes after the step (Search::minimal).
bool scan_stage(EvictStage s) { return s == EvictStage::Census || s == EvictStage::Collect; }

bool is_attempt(EvictStage s) {
  return s == EvictStage::Attempt1 || s == EvictStage::Attempt2 || s == EvictStage::Attempt3;
}

// The steps to linearize: one per call, BatchEvict's steps for an eviction
// taken in steps, or (split_calls) a start's attempts and quota evictions, a
// batch's elements and a RemoveAll's objects (concurrent.h).
std::vector<Linearized> steps_of(const Model& start, const History& h, Time now, Capabilities caps,
                                 bool split_calls, bool* split) {
  std::vector<Linearized> steps;
  std::vector<ObjectId> objects;
  std::optional<View> v;
  for (size_t i = 0; i < h.calls.size(); ++i) {
    const Call& c = h.calls[i];
    if (split_calls && splits_batch(c) && overlaps_another(h, i)) {
      for (KeyId k : c.op.keys) steps.push_back({i, {}, EvictStage::Element, {c.op.object.tenant, k}});
      *split = true;
      continue;
    }
    if (split_calls && removes_many(c.op) && overlaps_another(h, i)) {
      if (objects.empty()) objects = objects_named(start, h, now);
      for (ObjectId id : objects)
        if (id.tenant == c.op.object.tenant) steps.push_back({i, {}, EvictStage::RemoveOne, id});
      steps.push_back({i, {}, EvictStage::RemoveEnd, {}});
      *split = true;
      continue;
    }
    if (split_calls && c.op.kind == OpKind::Unmount && overlaps_another(h, i)) {
      steps.push_back({i, {}, EvictStage::UnmountPrepare, {}});
      steps.push_back({i, {}, EvictStage::UnmountCommit, {}});
      *split = true;
      continue;
    }
    if (split_calls && start.config().multi_tenant && single_start(h.calls[i].op) && overlaps_another(h, i) &&
        quota_may_refuse(v ? *v : v.emplace(start.view(now)), h, h.calls[i].op.object.tenant)) {
      for (EvictStage stage : {EvictStage::Attempt1, EvictStage::QuotaEvict1, EvictStage::Attempt2,
                               EvictStage::QuotaEvict2, EvictStage::Attempt3})
        steps.push_back({i, {}, stage, {}});
      *split = true;
      continue;
    }
    if (!evicts_in_steps(h, i, caps)) {
      steps.push_back({i, {}, EvictStage::Whole, {}});
      continue;
    }
    if (objects.empty()) objects = objects_named(start, h, now);
    steps.push_back({i, {}, EvictStage::Begin, {}});
    const bool frontier = collects_frontier(c.op.evict_target_pct);
    for (EvictStage stage : {EvictStage::Census, EvictStage::Collect, EvictStage::Pass1, EvictStage::Refill,
                             EvictStage::Release, EvictStage::Pass2}) {
      if (!frontier && (stage == EvictStage::Collect || stage == EvictStage::Refill)) continue;
      if (stage == EvictStage::Release) {
        steps.push_back({i, {}, stage, {}, h.calls[i].release_after});
        continue;
      }
      const auto* holds = stage == EvictStage::Census    ? &c.census_at
                          : stage == EvictStage::Collect ? &c.collect_at
                          : stage == EvictStage::Refill  ? &c.refill_after
                                                         : nullptr;
      for (ObjectId id : objects) steps.push_back({i, {}, stage, id, holds ? hold_of(*holds, id) : 0});
    }
  }
  return steps;
}

// A quota eviction's victims are searched in every order of up to this many
// candidates (120 orders), each candidate first beyond (explains_other_victims).
constexpr size_t kEveryOrderOf = 5;

struct State {
  Model model;
  Runs runs;
};

struct Search {
  const History& h;
  Time now;
  Capabilities caps;
  View target_view;
  std::vector<std::vector<uint64_t>> preferences;  // a start's alternatives to the model's own
  std::vector<Linearized> steps;
  std::vector<bool> done;  // per step
  std::vector<Linearized> order;
  DigestSet seen;  // states visited: the canonical state and the steps done
  size_t limit = 1;
  std::vector<Explanation> found;  // one per distinct end state
  std::set<std::pair<uint64_t, uint64_t>> ends;
  std::string buffer;
  bool outcomes_only = false;  // any end state will do (explain_outcomes)
  std::vector<size_t> free_calls;  // calls whose outcomes are not checked (explain_outcomes)
  bool blind = false;  // placement_blind: every start keeps the model's own placement
  // The states one step deeper than each depth of the search, reused from
  // one sibling to the next: assigning a state into one keeps the buffers it
  // has (a copy per step allocated every object and map node anew, and was
  // most of the search's time). A deque: deeper ones never move the others.
  std::deque<State> scratch;

  // What is left at a search state, for minimal: the earliest stage left per
  // call, and the two calls left that returned first.
  struct Left {
    std::vector<int> first_stage;  // per call; INT_MAX: nothing left
    size_t first = SIZE_MAX, second = SIZE_MAX;
    uint64_t scan_open = UINT64_MAX;  // the earliest hold of a Census or Collect step left
  };

  Left left_at() const {
    Left l;
    l.first_stage.assign(h.calls.size(), INT_MAX);
    for (size_t j = 0; j < steps.size(); ++j) {
      if (done[j]) continue;
      l.first_stage[steps[j].call] = std::min(l.first_stage[steps[j].call], int(steps[j].stage));
      if (scan_stage(steps[j].stage) && steps[j].held) l.scan_open = std::min(l.scan_open, steps[j].held);
    }
    for (size_t c = 0; c < h.calls.size(); ++c) {
      if (l.first_stage[c] == INT_MAX) continue;
      if (l.first == SIZE_MAX || h.calls[c].returned < h.calls[l.first].returned) {
        l.second = l.first;
        l.first = c;
      } else if (l.second == SIZE_MAX || h.calls[c].returned < h.calls[l.second].returned) {
        l.second = c;
      }
    }
    return l;
  }

  // Whether step s may come next: no step of another call left undone
  // returned before its call was invoked (or before its eviction step's
  // hold: not_before), no earlier stage of its own call is left undone, and
  // no Census or Collect step left was held before its call was invoked.
  bool minimal(size_t s, const Left& l) const {
    const Linearized& x = steps[s];
    if (int(x.stage) != l.first_stage[x.call]) return false;
    if (!scan_stage(x.stage) && h.calls[x.call].invoked > l.scan_open) return false;
    const size_t other = l.first == x.call ? l.second : l.first;
    return other == SIZE_MAX || !(h.calls[other].returned < not_before(x));
  }

  // The clock a call must have returned before to come before step x: its
  // call's invocation, or the eviction's hold the step stands for.
  uint64_t not_before(const Linearized& x) const {
    const uint64_t invoked = h.calls[x.call].invoked;
    return x.held ? std::max(invoked, x.held + 1) : invoked;
  }

  bool explains(const State& st, size_t left) {
    if (left == 0) return ends_in_target_view(st.model);
    st.model.canonical_state(now, &buffer, Model::IdRanks::PerObject, Model::Actors::Kept, Model::Counters::Kept);
    for (const auto& [call, run] : st.runs.evictions) {
      buffer.append(reinterpret_cast<const char*>(&call), sizeof call);
      run.encode(&buffer);
    }
    buffer.push_back('|');
    for (const auto& [call, run] : st.runs.starts) {
      buffer.append(reinterpret_cast<const char*>(&call), sizeof call);
      run.encode(&buffer);
    }
    buffer.push_back('|');
    for (const auto& [call, removed] : st.runs.removals) {
      buffer.append(reinterpret_cast<const char*>(&call), sizeof call);
      buffer.append(reinterpret_cast<const char*>(&removed), sizeof removed);
    }
    for (const bool b : done) buffer.push_back(b ? '1' : '0');
    if (!seen.insert(digest_of(buffer))) return false;
    if (seen.size() > kSearchBudget) throw SearchUndecided();
    const Left l = left_at();
    for (size_t s = 0; s < steps.size(); ++s) {
      if (done[s] || !minimal(s, l)) continue;
      Linearized step = steps[s];
      const Op& op = h.calls[step.call].op;
      const bool whole_start = step.stage == EvictStage::Whole && single_start(op);
      const bool element_start = step.stage == EvictStage::Element && is_start(op.kind);
      const size_t alternatives =
          !blind && (whole_start || element_start || is_attempt(step.stage)) ? preferences.size() : 0;
      for (size_t p = 0; p <= alternatives; ++p) {  // p == 0: the model's own preference
        step.preference = p == 0 ? std::vector<uint64_t>{} : preferences[p - 1];
        step.scan_first.clear();
        bool ended = true, quota_took = false;
        if (explains_with(st, left, s, step, &ended, &quota_took)) return true;
        if (quota_took && explains_other_victims(st, left, s, step)) return true;
        // An attempt refused for quota is refused whatever the preference
        // (the quota is checked before placement) and places nothing: the
        // preference is chosen by the attempt that ends the run.
        if (!ended) break;
      }
    }
    return false;
  }

  // True when enough explanations are found (the search stops).
  bool ends_in_target_view(const Model& m) {
    if (!outcomes_only && masked(m.view(now), caps) != target_view) return false;
    if (!outcomes_only && h.final_placement && m.placement() != *h.final_placement) return false;
    m.canonical_state(now, &buffer, Model::IdRanks::PerObject, Model::Actors::Kept, Model::Counters::Kept);
    const Digest d = digest_of(buffer);
    if (ends.insert({d.a, d.b}).second) found.push_back({order, m});
    return found.size() >= limit;
  }

  // A start's quota eviction that took objects in the model's key order:
  // Mooncake scans the tenant's shards from a random one, each pass and each
  // retry anew, so it may take others. Each other order of the tenant's
  // candidates is tried (every order up to kEveryOrderOf of them, else each
  // one first); orders that take the same objects meet in `seen`.
  bool explains_other_victims(const State& st, size_t left, size_t s, Linearized step) {
    std::vector<ObjectId> c = st.model.quota_eviction_candidates(h.calls[step.call].op.object.tenant, now);
    if (c.size() < 2) return false;
    bool ended = true, took = false;
    if (c.size() <= kEveryOrderOf) {
      while (std::next_permutation(c.begin(), c.end())) {  // from key order, which was tried
        step.scan_first = c;
        if (explains_with(st, left, s, step, &ended, &took)) return true;
      }
      return false;
    }
    for (size_t i = 1; i < c.size(); ++i) {
      step.scan_first = {c[i]};
      if (explains_with(st, left, s, step, &ended, &took)) return true;
    }
    return false;
  }

  // Applies step s to a copy of `st` and searches on from there. *ended:
  // the step is an attempt that ends its start; *quota_took: the step's quota
  // eviction took objects.
  bool explains_with(const State& st, size_t left, size_t s, Linearized step, bool* ended, bool* quota_took) {
    if (scratch.size() <= order.size()) scratch.emplace_back(st);
    State& next = scratch[order.size()];
    next = st;
    const Outcome out = apply_step(next.model, next.runs, h, step, now);
    *quota_took = next.model.quota_evicted() != st.model.quota_evicted();
    const bool ends_start = is_attempt(step.stage) && next.runs.starts[step.call].ended;
    if (is_attempt(step.stage)) *ended = ends_start;
    const Call& call = h.calls[step.call];
    const bool answers = step.stage == EvictStage::Whole || step.stage == EvictStage::Begin ||
                         step.stage == EvictStage::RemoveEnd || step.stage == EvictStage::UnmountCommit || ends_start;
    const bool free = std::find(free_calls.begin(), free_calls.end(), step.call) != free_calls.end();
    if (answers && !free && !(out == call.outcome)) return false;
    if (step.stage == EvictStage::Element && !free &&
        !(out.as_key_result() == call.outcome.results[element_index(call.op, step.object.key)]))
      return false;
    std::vector<size_t> skipped;  // the steps an ended start leaves, which change nothing
    for (size_t j = s + 1; ends_start && j < steps.size() && steps[j].call == step.call; ++j) {
      done[j] = true;
      skipped.push_back(j);
    }
    done[s] = true;
    order.push_back(std::move(step));
    const bool found = explains(next, left - 1 - skipped.size());
    done[s] = false;
    for (size_t j : skipped) done[j] = false;
    if (!found) order.pop_back();
    return found;
  }
};

}  // namespace

Outcome apply_step(Model& m, Runs& runs, const History& history, const Linearized& step, Time now) {
  const Op& op = history.calls[step.call].op;
  std::map<size_t, EvictionRun>& evictions = runs.evictions;
  switch (step.stage) {
    case EvictStage::Whole:
      if (!step.preference.empty()) m.prefer_in_next_start(step.preference);
      if (!step.scan_first.empty()) m.scan_first_in_next_eviction(step.scan_first);
      return m.apply(op, now);
    case EvictStage::Begin: return m.evict_begin(op, &evictions[step.call]);
    case EvictStage::Census: m.evict_census_step(evictions[step.call], step.object, now); break;
    case EvictStage::Collect: m.evict_collect_step(evictions[step.call], step.object, now); break;
    case EvictStage::Pass1: m.evict_pass1_step(evictions[step.call], step.object, now); break;
    case EvictStage::Refill: m.evict_refill_step(evictions[step.call], step.object, now); break;
    case EvictStage::Release: m.evict_release_step(evictions[step.call], now); break;
    case EvictStage::Pass2: m.evict_pass2_step(evictions[step.call], step.object, now); break;
    case EvictStage::Attempt1:
    case EvictStage::Attempt2:
    case EvictStage::Attempt3: return m.start_attempt(op, runs.starts[step.call], now, step.preference);
    case EvictStage::QuotaEvict1:
    case EvictStage::QuotaEvict2:
      m.scan_first_in_next_eviction(step.scan_first);
      m.start_quota_evict(op, runs.starts[step.call], now);
      m.scan_first_in_next_eviction({});  // Model::apply clears it; this is no apply
      break;
    case EvictStage::Element:
      if (!step.preference.empty()) m.prefer_in_next_start(step.preference);
      if (!step.scan_first.empty()) m.scan_first_in_next_eviction(step.scan_first);
      return m.apply(batch_element(op, element_index(op, step.object.key)), now);
    case EvictStage::RemoveOne: runs.removals[step.call] += m.remove_all_step(op, step.object, now); break;
    case EvictStage::UnmountPrepare: m.unmount_prepare_step(op); break;
    case EvictStage::UnmountCommit: return m.apply(op, now);
    case EvictStage::RemoveEnd: {
      Outcome out;
      out.removed = runs.removals[step.call];
      return out;
    }
  }
  return Outcome{};
}

// The search runs first with every call taken whole, and only when that
// explains nothing with the starts that may be refused for quota split into
// their attempts and evictions, and the overlapping batches and RemoveAlls
// into their keys and objects (steps_of): whole calls are one order of the
// split steps, so the history is accepted exactly when the split search
// accepts it, and rounds that need no split keep the smaller search.
namespace {

// Runs `search` on the steps with every call whole, then, when it found
// nothing and some call may be split, on the split steps.
template <typename SearchSteps>
void whole_then_split(const Model& start, const History& history, Time now, Capabilities caps,
                      SearchSteps search) {
  for (bool split_calls : {false, true}) {
    bool split = false;
    std::vector<Linearized> steps = steps_of(start, history, now, caps, split_calls, &split);
    if (split_calls && !split) return;  // the same search again
    if (search(std::move(steps))) return;
  }
}

}  // namespace

std::vector<Explanation> explanations(const Model& start, const History& history, Time now, Capabilities caps,
                                      size_t limit, const std::vector<size_t>& free_calls) {
  std::vector<Explanation> found;
  whole_then_split(start, history, now, caps, [&](std::vector<Linearized> steps) {
    const size_t n = steps.size();
    Search s{history, now, caps, masked(history.final_view, caps), preference_candidates(start.config().segments),
             std::move(steps), std::vector<bool>(n, false), {}, {}, std::max<size_t>(limit, 1), {}, {}, {}, false,
             free_calls};
    s.blind = placement_blind(start, history, caps);
    s.explains(State{start, {}}, n);
    found = std::move(s.found);
    return !found.empty();
  });
  return found;
}

std::vector<Explanation> outcome_explanations(const Model& start, const History& history, Time now,
                                              Capabilities caps, size_t limit, const std::vector<size_t>& free_calls) {
  std::vector<Explanation> found;
  whole_then_split(start, history, now, caps, [&](std::vector<Linearized> steps) {  // as explanations
    const size_t n = steps.size();
    Search s{history, now, caps, {}, preference_candidates(start.config().segments), std::move(steps),
             std::vector<bool>(n, false), {}, {}, std::max<size_t>(limit, 1), {}, {}, {}, true, free_calls};
    s.blind = placement_blind(start, history, caps);
    s.explains(State{start, {}}, n);
    found = std::move(s.found);
    return !found.empty();
  });
  return found;
}

std::optional<Explanation> explain_outcomes(const Model& start, const History& history, Time now, Capabilities caps,
                                            const std::vector<size_t>& free_calls) {
  std::vector<Explanation> found = outcome_explanations(start, history, now, caps, 1, free_calls);
  if (found.empty()) return std::nullopt;
  return std::move(found.front());
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
  for (const Call& c : history.calls) {
    std::string results;  // a batch's, per key
    for (const KeyResult& r : c.outcome.results)
      results += (results.empty() ? " (" : ", ") + std::string(to_string(r.code));
    if (!results.empty()) results += ")";
    account += " [actor " + std::to_string(c.actor) + " " + encode_op(c.op).dump() + " -> " +
               std::string(to_string(c.outcome.code)) + results + " @" + std::to_string(c.invoked) + ".." +
               std::to_string(c.returned) + "]";
  }
  return account;
}

}  // namespace pinsim::sched
