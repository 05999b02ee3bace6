// Breadth-first exploration; see explorer.h.
#include "explorer.h"

#include <set>
#include <unordered_set>
#include <variant>

#include "model_target.h"

namespace pinsim {

namespace {

struct Node {
  Model model;
  Time now;
  std::vector<Op> path;
};

// Every distinct op the generator can produce in this state.
std::vector<Op> all_ops(const Workload& generator, const Model& model, Time now) {
  std::vector<Op> ops;
  OdometerChoices odometer;
  do {
    Workload g = generator;
    Op op = g.next(odometer, model, now);
    if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(std::move(op));
  } while (odometer.next());
  return ops;
}

Trace trace_of(const ExploreOptions& o, const std::vector<Op>& path) {
  Trace t;
  t.description = "found by pinsim explore";
  t.config = o.config;
  for (const Op& op : path) t.steps.push_back({0, op, std::nullopt});
  return t;
}

}  // namespace

ExploreResult explore(const ExploreOptions& o) {
  ExploreResult result;
  auto created = Model::create(o.config);
  if (std::holds_alternative<std::string>(created)) return result;
  const Workload generator(o.workload, o.config);
  std::unordered_set<std::string> visited;
  uint64_t memory = 0;
  std::vector<Node> frontier{{std::get<Model>(std::move(created)), 0, {}}};
  visited.insert(frontier[0].model.canonical_state(0));
  result.states = 1;
  for (uint32_t depth = 1; depth <= o.max_depth && !frontier.empty(); ++depth) {
    std::vector<Node> next;
    for (const Node& node : frontier) {
      const View before = node.model.view(node.now);
      for (const Op& op : all_ops(generator, node.model, node.now)) {
        ++result.transitions;
        std::vector<Op> path = node.path;
        path.push_back(op);
        Node child{node.model, node.now, std::move(path)};
        if (op.kind == OpKind::Advance)
          child.now = op.advance_ms > static_cast<uint64_t>(kTimeMax - child.now) ? kTimeMax
                                                                                 : child.now + static_cast<Time>(op.advance_ms);
        const Outcome outcome = child.model.apply(op, child.now);
        bool failed = false;
        if (o.target) {
          // In lockstep with the target, replayed from the start (targets
          // cannot be copied); the replay also checks the properties.
          failed = replay(trace_of(o, child.path), o.target, o.target_options, o.checks).failure.has_value();
        } else {
          const View after = child.model.view(child.now);
          const StepContext ctx{o.config, op, child.now, outcome, before, after};
          for (const StepCheck* p : o.checks.properties) failed |= p->check(ctx).has_value();
        }
        if (failed) {  // record the shortest counterexample as a replayable run
          result.counterexample = replay(trace_of(o, child.path), o.target ? o.target : &make_model_target,
                                         o.target_options, o.checks);
          return result;
        }
        std::string key = child.model.canonical_state(child.now);
        if (visited.contains(key)) continue;
        memory += key.size() + 64 + child.path.size() * sizeof(Op);
        if (memory > o.max_memory_bytes) {
          result.capped = true;
          result.depth = depth - 1;
          return result;
        }
        visited.insert(std::move(key));
        ++result.states;
        next.push_back(std::move(child));
      }
    }
    result.depth = depth;
    frontier = std::move(next);
  }
  return result;
}

}  // namespace pinsim
