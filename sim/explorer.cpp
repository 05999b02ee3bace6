// Breadth-first exploration; see explorer.h. The distinct states form a
// tree (each state remembers its parent and the op that reached it first),
// so a state costs a tree node and a 128-bit digest in the visited set; a
// state's model is rebuilt by replaying its path (at most max_depth ops)
// when it is expanded.
#include "explorer.h"

#include <algorithm>
#include <bit>
#include <unordered_set>
#include <variant>

#include "digest.h"
#include "model_target.h"

namespace pinsim {

namespace {

struct Node {
  uint32_t parent;
  Op op;  // the op that first reached this state
};

// A hash of every field of an op (Op::fields()), for de-duplicating the
// odometer's runs; ops with equal hashes are then compared field by field,
// so two ops that differ in any field never merge.
uint64_t op_hash(const Op& op) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  auto word = [&](uint64_t v) { h = (std::rotl(h, 23) ^ v) * 0xff51afd7ed558ccdull; };
  auto add = [&](const auto& v) {
    using T = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<T, std::vector<GroupId>> || std::is_same_v<T, std::vector<uint64_t>>) {
      word(v.size());
      for (uint64_t x : v) word(x);
    } else if constexpr (std::is_same_v<T, std::optional<uint64_t>>) {
      word(v.has_value());
      word(v.value_or(0));
    } else {
      word(static_cast<uint64_t>(v));
    }
  };
  std::apply([&](const auto&... f) { (add(f), ...); }, op.fields());
  return h ^ (h >> 29);
}

std::vector<Op> path_of(const std::vector<Node>& tree, uint32_t n) {
  std::vector<Op> path;
  for (; n != 0; n = tree[n].parent) path.push_back(tree[n].op);
  std::reverse(path.begin(), path.end());
  return path;
}

Trace trace_of(const ExploreOptions& o, const std::vector<Op>& path) {
  Trace t;
  t.description = "found by pinsim explore";
  t.config = o.config;
  for (const Op& op : path) t.steps.push_back({0, op, std::nullopt});
  return t;
}

}  // namespace

std::vector<Op> all_ops(const Workload& generator, const Model& model, Time now) {
  std::vector<Op> ops;
  // Positions in ops, hashed and compared by the op they name; a candidate is
  // appended first and taken back when an equal op is already there.
  auto hash = [&](uint32_t i) { return op_hash(ops[i]); };
  auto equal = [&](uint32_t i, uint32_t j) { return ops[i] == ops[j]; };
  std::unordered_set<uint32_t, decltype(hash), decltype(equal)> seen(1024, hash, equal);
  OdometerChoices odometer;
  do {
    ops.push_back(generator.next(odometer, model, now));
    if (!seen.insert(static_cast<uint32_t>(ops.size() - 1)).second) ops.pop_back();
  } while (odometer.next());
  return ops;
}

ExploreResult explore(const ExploreOptions& o) {
  ExploreResult result;
  auto created = Model::create(o.config);
  if (std::holds_alternative<std::string>(created)) return result;
  const Model root = std::get<Model>(std::move(created));
  const Workload generator(o.workload, o.config);
  const bool model_checks = !o.target && !o.checks.properties.empty();
  std::vector<Node> tree{{0, Op{}}};
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
      const std::vector<Op> path = path_of(tree, static_cast<uint32_t>(n));
      model = root;
      Time now = 0;
      for (const Op& op : path) model.apply(op, now = time_after(now, op));
      if (model_checks) model.view(now, &before);
      for (const Op& op : all_ops(generator, model, now)) {
        ++result.transitions;
        child = model;
        const Time t = time_after(now, op);
        const Outcome outcome = child.apply(op, t);
        auto child_trace = [&] {
          std::vector<Op> child_path = path;
          child_path.push_back(op);
          return trace_of(o, child_path);
        };
        bool failed = false;
        if (o.target) {
          // In lockstep with the target, replayed from the start (targets
          // cannot be copied); the replay also checks the properties.
          failed = replay(child_trace(), o.target, o.target_options, o.checks).failure.has_value();
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
        memory += sizeof(Node) + 48 + op.groups.size() * sizeof(GroupId);
        if (memory > o.max_memory_bytes) {
          result.capped = true;
          return result;
        }
        tree.push_back({static_cast<uint32_t>(n), op});
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
