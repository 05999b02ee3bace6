// Breadth-first exploration; see explorer.h. The distinct states form a
// tree (each state remembers its parent and the op that reached it first),
// so a state costs a tree node and a 128-bit digest in the visited set (a
// flat one, sim/digest_set.h); a
// state's model is rebuilt by replaying its path (at most max_depth ops)
// when it is expanded.
#include "explorer.h"

#include <algorithm>
#include <variant>

#include "digest_set.h"
#include "model_target.h"
#include "seed_processes.h"

namespace pinsim {

namespace {

struct Node {
  uint32_t parent;
  uint32_t op;  // the op that first reached this state (its index in the universe)
};

std::vector<uint32_t> path_of(const std::vector<Node>& tree, uint32_t n) {
  std::vector<uint32_t> path;
  for (; n != 0; n = tree[n].parent) path.push_back(tree[n].op);
  std::reverse(path.begin(), path.end());
  return path;
}

// The trace of `path`, and of `then` after it when given.
Trace trace_of(const ExploreOptions& o, const OpUniverse& universe, const std::vector<uint32_t>& path,
               std::optional<uint32_t> then = std::nullopt) {
  Trace t;
  t.description = "found by pinsim explore";
  t.config = o.config;
  for (const uint32_t op : path) t.steps.push_back({0, universe.op(op), std::nullopt});
  if (then) t.steps.push_back({0, universe.op(*then), std::nullopt});
  return t;
}

// P1-P14 on one of the model's own transitions (an explore without a target).
bool model_fails(const ExploreOptions& o, const StepContext& ctx) {
  bool failed = false;
  for (const StepCheck* p : o.checks.properties) failed |= p->check(ctx).has_value();
  return failed;
}

// The model at the start, and with a target, one instance of it that answers
// which ops it supports (a target explores only those, as a campaign draws
// only those) and is never stepped. nullopt with `refused` set when the model
// or the target refuses the configuration.
std::optional<Model> root_of(const ExploreOptions& o, std::unique_ptr<Target>* probe, std::string* refused) {
  auto created = Model::create(o.config);
  if (auto* reason = std::get_if<std::string>(&created)) {
    *refused = "the model refuses the configuration: " + *reason;
    return std::nullopt;
  }
  if (o.target && !(*probe = o.target(o.config, o.target_options, refused))) {
    if (refused->empty()) *refused = "the target refuses the configuration";
    return std::nullopt;
  }
  return std::get<Model>(std::move(created));
}

// Where a transition's copy of the target and its lockstep are made: one
// of each for the whole explore, overwritten per transition
// (Target::assign, Lockstep::assign) so their storage is reused; a target
// that cannot be assigned is cloned instead.
struct Scratch {
  std::unique_ptr<Target> target;
  std::optional<Lockstep> lockstep;
  Lockstep& copy_of(const Lockstep& lockstep, const Target& target) {
    if (!this->target || !this->target->assign(target)) this->target = target.clone();
    if (this->lockstep)
      this->lockstep->assign(lockstep, *this->target);
    else
      this->lockstep.emplace(lockstep, *this->target);
    return *this->lockstep;
  }
};

// The target at one explored state, for the transitions out of it. A target
// that can be copied (Target::clone) is brought there once, in lockstep with
// the model, and each transition runs on a copy (the scratch's); any other is
// replayed from the start for each transition. Either way the lockstep checks
// the model comparison and the properties. A replay the target refused sets
// `refused`: never a green over transitions that were not run.
class TargetAt {
 public:
  TargetAt(const ExploreOptions& o, bool cloneable, const Trace& path, Scratch& scratch)
      : o_(o), scratch_(scratch) {
    if (!cloneable) return;
    base_ = o.target(path.config, o.target_options, &refused_);
    if (!base_) return;
    lockstep_.emplace(path.config, *base_, o.checks);
    for (const TraceStep& step : path.steps) lockstep_->step(step.op, std::nullopt, nullptr);
  }
  const std::string& refused() const { return refused_; }
  // Whether the transition fails; `child()` is the path with the op appended.
  template <typename ChildTrace>
  bool fails(const Op& op, ChildTrace child) {
    if (lockstep_) return scratch_.copy_of(*lockstep_, *base_).step(op, std::nullopt, nullptr).has_value();
    const RunResult run = replay(child(), o_.target, o_.target_options, o_.checks);
    refused_ = run.error;
    return run.failure.has_value();
  }

 private:
  const ExploreOptions& o_;
  Scratch& scratch_;
  std::unique_ptr<Target> base_;
  std::optional<Lockstep> lockstep_;
  std::string refused_;
};

// The states seen: their digests, and the encoding of the state being
// expanded. Most transitions change nothing a state encodes (a refused
// request, a read of nothing), so a child equal to its parent is known seen
// without a digest, which costs more than the comparison.
class Visited {
 public:
  explicit Visited(const Model& root) { digests_.insert(digest_of(root.canonical_state(0))); }
  void expanding(const Model& parent, Time now) { parent.canonical_state(now, &parent_); }
  // Whether the child's state is new; it is seen from now on.
  bool first_visit(const Model& child, Time now) {
    child.canonical_state(now, &child_);
    return child_ != parent_ && digests_.insert(digest_of(child_));
  }
  size_t bytes() const { return digests_.bytes(); }

 private:
  DigestSet digests_;
  std::string parent_, child_;  // reused buffers
};

// The model at the end of `path` from `start`, into `model`; returns the time then.
Time model_at(const Model& start, const OpUniverse& universe, const std::vector<uint32_t>& path, Model* model) {
  *model = start;
  Time now = 0;
  for (const uint32_t i : path) model->apply(universe.op(i), now = time_after(now, universe.op(i)));
  return now;
}

// A level's transitions on a target that cannot be copied, replayed by N
// worker processes (--jobs). Each such transition is a replay from the start
// anyway, so the level's transitions are listed first (the model's side is
// cheap) and the workers replay them ahead of the loop, which takes their
// results in the order it would have run them: the same tree, the same
// counterexample, the same counts as with one process.
class LevelReplays {
 public:
  LevelReplays(const ExploreOptions& o, const Model& start, OpUniverse& universe, const Target& probe,
               const std::vector<Node>& tree, size_t begin, size_t end) {
    Model model = start;
    for (size_t n = begin; n < end; ++n) {
      const std::vector<uint32_t> path = path_of(tree, static_cast<uint32_t>(n));
      const Time now = model_at(start, universe, path, &model);
      for (const uint32_t op : universe.ops_in(model, now))
        if (probe.supports(universe.op(op))) list_.push_back({static_cast<uint32_t>(n), op});
    }
    // The workers are forked here, after the listing, so they see every op it interned.
    procs_.emplace(SeedProcesses::Options{
        o.jobs,
        [&o, &universe, &tree, this](uint64_t k) {
          const auto [node, op] = list_[k];
          return replay(trace_of(o, universe, path_of(tree, node), op), o.target, o.target_options, o.checks);
        },
        [this](uint64_t k) { return k + 1 < list_.size() ? std::optional<uint64_t>(k + 1) : std::nullopt; },
        false});
  }
  // The next transition's replay, in the loop's order.
  RunResult next() { return procs_->result(next_++); }

 private:
  std::vector<std::pair<uint32_t, uint32_t>> list_;  // (state, op) in the loop's order
  std::optional<SeedProcesses> procs_;
  uint64_t next_ = 0;
};

// A failing transition: its trace replayed is the shortest counterexample,
// unless it fails as a known finding, which is counted instead (false).
bool counterexample(const ExploreOptions& o, const Trace& trace, ExploreResult* result) {
  RunResult run = replay(trace, o.target ? o.target : &make_model_target, o.target_options, o.checks);
  if (const KnownFinding* k = known_failure(o.known, run)) {
    ++result->known[k->file];
    return false;
  }
  result->counterexample = std::move(run);
  return true;
}

}  // namespace

// Where the explore cannot run: the configuration refused, or --jobs with a
// target that is copied per transition (there is no replay to share out).
std::string refusal(const ExploreOptions& o, bool cloneable) {
  if (o.jobs > 1 && (!o.target || cloneable))
    return "--jobs " + std::to_string(o.jobs) +
           ": only a target that cannot be copied (mooncake) replays transitions in workers; this one runs "
           "them in this process (leave --jobs out)";
  return "";
}

ExploreResult explore(const ExploreOptions& o) {
  ExploreResult result;
  std::unique_ptr<Target> probe;
  const std::optional<Model> start = root_of(o, &probe, &result.refused);
  if (!start) return result;
  const bool cloneable = probe && probe->clone() != nullptr;
  if (!(result.refused = refusal(o, cloneable)).empty()) return result;
  const Workload generator(o.workload, o.config);
  OpUniverse universe(generator);
  const uint64_t universe_at_start = universe.bytes();
  const bool model_checks = !o.target && !o.checks.properties.empty();
  std::vector<Node> tree{{0, 0}};
  Visited visited(*start);
  // Reused across transitions: assigning a model or a View into one keeps
  // the buffers (objects, maps' nodes) it already has.
  Model model = *start, child = *start;
  View before, after;
  Scratch scratch;
  result.states = 1;
  size_t level_begin = 0, level_end = 1;
  for (uint32_t depth = 1; depth <= o.max_depth && level_begin < level_end; ++depth) {
    std::optional<LevelReplays> replays;
    if (o.jobs > 1) replays.emplace(o, *start, universe, *probe, tree, level_begin, level_end);
    for (size_t n = level_begin; n < level_end; ++n) {
      if (o.should_stop && o.should_stop()) {
        result.stopped = true;
        return result;
      }
      const std::vector<uint32_t> path = path_of(tree, static_cast<uint32_t>(n));
      const Time now = model_at(*start, universe, path, &model);
      if (model_checks) model.view(now, &before);
      visited.expanding(model, now);
      std::optional<TargetAt> at;
      if (o.target && !replays && !at.emplace(o, cloneable, trace_of(o, universe, path), scratch).refused().empty()) {
        result.refused = at->refused();
        return result;
      }
      for (const uint32_t op_index : universe.ops_in(model, now)) {
        const Op& op = universe.op(op_index);
        if (probe && !probe->supports(op)) continue;
        ++result.transitions;
        child = model;
        const Time t = time_after(now, op);
        const Outcome outcome = child.apply(op, t);
        auto child_trace = [&] { return trace_of(o, universe, path, op_index); };
        bool failed = false;
        if (replays) {
          const RunResult run = replays->next();
          if (!(result.refused = run.error).empty()) return result;
          failed = run.failure.has_value();
        } else if (o.target) {
          failed = at->fails(op, child_trace);
          if (!at->refused().empty()) {
            result.refused = at->refused();
            return result;
          }
        } else if (model_checks) {
          child.view(t, &after);
          failed = model_fails(o, {o.config, op, t, outcome, before, after});
        }
        if (failed && counterexample(o, child_trace(), &result)) return result;
        if (failed) continue;  // a known finding: the model and the target part here
        if (!visited.first_visit(child, t)) continue;
        if (universe.bytes() - universe_at_start + (tree.size() + 1) * sizeof(Node) + visited.bytes() >
            o.max_memory_bytes) {
          result.capped = true;
          return result;
        }
        tree.push_back({static_cast<uint32_t>(n), op_index});
        ++result.states;
      }
      ++result.expanded;
    }
    result.depth = depth;
    level_begin = level_end;
    level_end = tree.size();
  }
  return result;
}

}  // namespace pinsim
