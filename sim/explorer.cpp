// Breadth-first exploration; see explorer.h. The distinct states form a
// tree (each state remembers its parent and the op that reached it first),
// so a state costs a tree node and a 128-bit digest in the visited set; a
// state's model is rebuilt by replaying its path (at most max_depth ops)
// when it is expanded.
#include "explorer.h"

#include <algorithm>
#include <unordered_set>
#include <variant>

#include "digest.h"
#include "model_target.h"

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

Trace trace_of(const ExploreOptions& o, const OpUniverse& universe, const std::vector<uint32_t>& path) {
  Trace t;
  t.description = "found by pinsim explore";
  t.config = o.config;
  for (const uint32_t op : path) t.steps.push_back({0, universe.op(op), std::nullopt});
  return t;
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

// A transition in lockstep with the target, replayed from the start (targets
// cannot be copied); the replay also checks the properties. A replay the
// target refused sets `refused`: never a green over transitions not run.
bool target_fails(const ExploreOptions& o, const Trace& trace, std::string* refused) {
  const RunResult run = replay(trace, o.target, o.target_options, o.checks);
  *refused = run.error;
  return run.failure.has_value();
}

}  // namespace

ExploreResult explore(const ExploreOptions& o) {
  ExploreResult result;
  std::unique_ptr<Target> probe;
  const std::optional<Model> start = root_of(o, &probe, &result.refused);
  if (!start) return result;
  const Model& root = *start;
  const Workload generator(o.workload, o.config);
  OpUniverse universe(generator);
  const bool model_checks = !o.target && !o.checks.properties.empty();
  std::vector<Node> tree{{0, 0}};
  std::unordered_set<Digest, DigestHash> visited{digest_of(root.canonical_state(0))};
  uint64_t memory = 0;
  std::string encoding;  // reused: the canonical state of each child
  // Reused across transitions: assigning a model or a View into one keeps
  // the buffers (objects, maps' nodes) it already has.
  Model model = root, child = root;
  View before, after;
  result.states = 1;
  size_t level_begin = 0, level_end = 1;
  for (uint32_t depth = 1; depth <= o.max_depth && level_begin < level_end; ++depth) {
    for (size_t n = level_begin; n < level_end; ++n) {
      if (o.should_stop && o.should_stop()) {
        result.stopped = true;
        return result;
      }
      const std::vector<uint32_t> path = path_of(tree, static_cast<uint32_t>(n));
      model = root;
      Time now = 0;
      for (const uint32_t i : path) model.apply(universe.op(i), now = time_after(now, universe.op(i)));
      if (model_checks) model.view(now, &before);
      const uint64_t universe_bytes = universe.bytes();
      const std::vector<uint32_t>& ops = universe.ops_in(model, now);
      memory += universe.bytes() - universe_bytes;
      for (const uint32_t op_index : ops) {
        const Op& op = universe.op(op_index);
        if (probe && !probe->supports(op)) continue;
        ++result.transitions;
        child = model;
        const Time t = time_after(now, op);
        const Outcome outcome = child.apply(op, t);
        auto child_trace = [&] {
          std::vector<uint32_t> child_path = path;
          child_path.push_back(op_index);
          return trace_of(o, universe, child_path);
        };
        bool failed = false;
        if (o.target) {
          failed = target_fails(o, child_trace(), &result.refused);
          if (!result.refused.empty()) return result;
        } else if (model_checks) {
          child.view(t, &after);
          const StepContext ctx{o.config, op, t, outcome, before, after};
          for (const StepCheck* p : o.checks.properties) failed |= p->check(ctx).has_value();
        }
        if (failed) {  // record the shortest counterexample as a replayable run
          result.counterexample =
              replay(child_trace(), o.target ? o.target : &make_model_target, o.target_options, o.checks);
          return result;
        }
        child.canonical_state(t, &encoding);
        if (!visited.insert(digest_of(encoding)).second) continue;
        memory += sizeof(Node) + 48;
        if (memory > o.max_memory_bytes) {
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
