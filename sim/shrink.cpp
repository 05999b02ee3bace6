// Shrinking by replay: every candidate is replayed from scratch and kept only
// if it still fails the same way at its last step.
#include "shrink.h"

#include <algorithm>
#include <functional>
#include <set>

namespace pinsim {

namespace {

class Shrinker {
 public:
  Shrinker(TargetFactory factory, const TargetOptions& options, const Checks& checks)
      : factory_(factory), options_(options), checks_(checks) {}

  std::optional<Failure> run(const Trace& t) {
    ++replays_;
    return replay(t, factory_, options_, checks_).failure;
  }
  // "Fails the same way": the same kind of failure at the same op kind on the
  // same side; for a broken expectation also the same fields expected the
  // same way (one that now lists a key the op no longer has, or a trivially
  // broken one, is another failure).
  std::string signature(const Failure& f, const Trace& t) const {
    std::string s = f.what + "|" + std::string(to_string(t.steps[f.step].op.kind)) + "|" + f.field;
    if (f.on_model) s += "|model";
    if (f.what != "expect") return s;
    std::vector<std::string> expected;
    for (const FieldDiff& d : f.diff) expected.push_back(d.field + "=" + d.left);
    std::sort(expected.begin(), expected.end());
    for (const std::string& e : expected) s += "|" + e;
    return s;
  }
  bool fails_same(const Trace& t) {
    if (t.steps.empty() || replays_ >= kMaxReplays) return false;
    const auto f = run(t);
    return f && f->step + 1 == t.steps.size() && signature(*f, t) == signature_;
  }
  static bool same_ops(const Trace& a, const Trace& b) {
    return a.steps.size() == b.steps.size() &&
           std::equal(a.steps.begin(), a.steps.end(), b.steps.begin(),
                      [](const TraceStep& x, const TraceStep& y) { return x.op == y.op && x.expect == y.expect; });
  }
  // Replaces `cur` by `candidate` when it still fails the same way.
  bool attempt(Trace& cur, Trace candidate) {
    if (same_ops(candidate, cur) || !fails_same(candidate)) return false;
    cur = std::move(candidate);
    return true;
  }

  // Delta debugging over every step but the failing last one.
  bool remove_steps(Trace& cur) {
    bool any = false;
    size_t n = 2;
    while (cur.steps.size() > 1) {
      const size_t body = cur.steps.size() - 1;
      const size_t chunk = (body + n - 1) / n;
      bool reduced = false;
      for (size_t start = 0; start < body; start += chunk) {
        Trace c = cur;
        c.steps.erase(c.steps.begin() + start, c.steps.begin() + std::min(start + chunk, body));
        if (attempt(cur, std::move(c))) {
          reduced = any = true;
          n = std::max<size_t>(n - 1, 2);
          break;
        }
      }
      if (reduced) continue;
      if (chunk == 1) break;
      n = std::min(n * 2, body);
    }
    return any;
  }

  // Tries the rewrites of each step, most aggressive first; after a rewrite
  // is kept the rewrites of the new op are tried, until none is kept.
  bool rewrite_steps(Trace& cur, const std::function<std::vector<Op>(const Op&)>& rewrites) {
    bool any = false;
    for (size_t i = 0; i < cur.steps.size(); ++i) {
      bool progress = true;
      while (progress) {
        progress = false;
        for (const Op& op : rewrites(cur.steps[i].op)) {
          Trace c = cur;
          fit_expectation(&c.steps[i], op);
          c.steps[i].op = op;
          if (attempt(cur, std::move(c))) {
            progress = any = true;
            break;
          }
        }
      }
    }
    return any;
  }

  bool merge_advances(Trace& cur) {
    bool any = false;
    for (size_t i = 0; i + 1 < cur.steps.size(); ++i) {
      if (cur.steps[i].op.kind != OpKind::Advance || cur.steps[i + 1].op.kind != OpKind::Advance) continue;
      Trace c = cur;
      c.steps[i].op.advance_ms += c.steps[i + 1].op.advance_ms;
      c.steps.erase(c.steps.begin() + static_cast<long>(i) + 1);
      if (attempt(cur, std::move(c))) any = true;
    }
    return any;
  }

  // A batch step whose op loses a key loses that key's expected result, so
  // the expectation still speaks of the op's keys (a stale one would fail
  // for the wrong reason).
  static void fit_expectation(TraceStep* step, const Op& to) {
    if (!step->expect || step->expect->results.size() != step->op.keys.size() ||
        to.keys.size() + 1 != step->op.keys.size())
      return;
    size_t dropped = 0;
    while (dropped < to.keys.size() && to.keys[dropped] == step->op.keys[dropped]) ++dropped;
    step->expect->results.erase(step->expect->results.begin() + static_cast<long>(dropped));
  }

  // Every id of one kind a step names, in its op and in its state expectation.
  using IdVisitor = std::function<void(TraceStep&, const std::function<void(uint32_t&)>&)>;

  // Renames every use of one id to a smaller one (actors, keys, tenants, groups).
  bool rename(Trace& cur, const IdVisitor& visit) {
    std::set<uint32_t> ids;
    for (TraceStep& s : cur.steps) visit(s, [&ids](uint32_t& id) { ids.insert(id); });
    bool any = false;
    for (auto it = ids.rbegin(); it != ids.rend(); ++it) {
      for (uint32_t to = 0; to < *it; ++to) {
        Trace c = cur;
        for (TraceStep& s : c.steps)
          visit(s, [from = *it, to](uint32_t& id) {
            if (id == from) id = to;
          });
        if (attempt(cur, std::move(c))) {
          any = true;
          break;
        }
      }
    }
    return any;
  }

  std::optional<ShrinkResult> shrink(const Trace& input) {
    const auto first = run(input);
    if (!first) return std::nullopt;
    Trace cur = input;
    signature_ = signature(*first, cur);
    cur.steps.resize(first->step + 1);
    // Expectations are dropped, except the failing one when the failure is a
    // broken expectation: a property or comparison failure at the last step
    // must not be blocked by that step's recorded outcome, which removing
    // earlier steps may change (an exist that was false becomes true).
    // State expectations likewise: only the failing step's stays.
    for (size_t i = 0; i < cur.steps.size(); ++i)
      if (i + 1 < cur.steps.size() || first->what != "expect") {
        cur.steps[i].expect.reset();
        cur.steps[i].expect_state.reset();
      }
    for (int round = 0; round < 8; ++round) {
      bool changed = remove_steps(cur);
      changed |= merge_advances(cur);
      changed |= rewrite_steps(cur, smaller_ops);
      changed |= rename(cur, [](TraceStep& s, const auto& f) { f(s.op.client); });
      changed |= rename(cur, keys);
      changed |= rename(cur, tenants);
      changed |= rename(cur, groups);
      if (!changed) break;
    }
    // Record the result: times from the replay, the model's outcomes as
    // expectations, and a planted expectation kept on the failing step.
    RunResult r = replay(cur, factory_, options_, checks_);
    ++replays_;
    ShrinkResult out{r.trace, *r.failure, replays_};
    if (out.failure.what == "expect") out.trace.steps.back().expect = cur.steps.back().expect;
    return out;
  }

  static void keys(TraceStep& s, const std::function<void(uint32_t&)>& f) {
    if (is_key_op(s.op.kind)) f(s.op.object.key);
    for (KeyId& k : s.op.keys) f(k);
    if (s.expect_state)
      for (ObjectExpectation& o : s.expect_state->objects) f(o.id.key);
  }
  static void tenants(TraceStep& s, const std::function<void(uint32_t&)>& f) {
    if (s.op.kind != OpKind::Advance) f(s.op.object.tenant);
    if (!s.expect_state) return;
    for (ObjectExpectation& o : s.expect_state->objects) f(o.id.tenant);
    for (RetentionExpectation& r : s.expect_state->retention) f(r.tenant);
    for (UsageView& u : s.expect_state->usage) f(u.tenant);
  }
  static void groups(TraceStep& s, const std::function<void(uint32_t&)>& f) {
    if (s.op.kind != OpKind::Advance) f(s.op.group);
    for (GroupId& g : s.op.groups) f(g);
    if (!s.expect_state) return;
    for (ObjectExpectation& o : s.expect_state->objects)
      if (o.group) f(*o.group);
    for (RetentionExpectation& r : s.expect_state->retention) f(r.group);
  }

  // Smaller values for a number: 0, x/2, 3x/4, ..., x-1 (a binary search
  // once the caller retries after each success).
  static std::vector<uint64_t> smaller(uint64_t x) {
    std::vector<uint64_t> v;
    for (uint64_t d = x; d > 0; d /= 2) v.push_back(x - d);
    return v;
  }

  // Simpler versions of one op, most aggressive first.
  static std::vector<Op> smaller_ops(const Op& op) {
    std::vector<Op> v;
    auto with = [&](auto change) {
      Op o = op;
      change(o);
      if (!(o == op)) v.push_back(o);
    };
    switch (op.kind) {
      case OpKind::Advance:
        for (uint64_t ms : smaller(op.advance_ms)) with([ms](Op& o) { o.advance_ms = ms; });
        break;
      case OpKind::OffloadEnd:
      case OpKind::PromotionEnd:
        if (op.fail) with([](Op& o) { o.fail = false; });  // a success report is the simpler story
        break;
      case OpKind::UpsertStart:
        with([](Op& o) { o.kind = OpKind::PutStart; });
        [[fallthrough]];
      case OpKind::PutStart:
        with([](Op& o) { o.nof_replicas = 0; o.memory_replicas = std::max(o.memory_replicas, 1u); });
        if (op.dfs_replicas) with([](Op& o) { o.dfs_replicas = 0; });
        with([](Op& o) { o.memory_replicas = std::min(o.memory_replicas, 1u); });
        with([](Op& o) { o.group = 0; });
        with([](Op& o) { o.soft_pin = {}; });
        if (op.soft_pin.ttl_ms)
          for (uint64_t ttl : smaller(*op.soft_pin.ttl_ms)) with([ttl](Op& o) { o.soft_pin.ttl_ms = ttl; });
        // Sizes are kept: they come from the workload's set (32, 64), which
        // every target allocates exactly. A shrunk size such as 61 or 33 is
        // rounded up by Mooncake's offset allocator, which would turn a
        // divergence into an allocator artefact (docs/interpretations.md).
        break;
      case OpKind::UpsertEnd:
        with([](Op& o) { o.kind = OpKind::PutEnd; });
        [[fallthrough]];
      case OpKind::PutEnd:
        with([](Op& o) { o.selector = ReplicaSelector::All; });
        break;
      case OpKind::UpsertRevoke:
        with([](Op& o) { o.kind = OpKind::PutRevoke; });
        [[fallthrough]];
      case OpKind::PutRevoke:
        with([](Op& o) { o.selector = ReplicaSelector::All; });
        break;
      case OpKind::Remove:
        with([](Op& o) { o.force = false; });
        break;
      case OpKind::RetainGroups:
        for (size_t i = 0; i < op.groups.size(); ++i)
          with([i](Op& o) { o.groups.erase(o.groups.begin() + static_cast<long>(i)); });
        for (uint64_t ttl : smaller(op.ttl_ms)) with([ttl](Op& o) { o.ttl_ms = ttl; });
        break;
      case OpKind::Evict:
        // Each rewrite moves one way only (target up, lower bound down), so
        // rewrites never cycle.
        with([](Op& o) { o.evict_lowerbound_pct = 0; });
        with([](Op& o) { o.evict_target_pct = 100; });
        break;
      case OpKind::Restore:
        with([](Op& o) { o.fail_first_candidate = false; });
        break;
      case OpKind::BatchExist: case OpKind::BatchGet: case OpKind::BatchPutEnd: case OpKind::BatchPutRevoke:
      case OpKind::BatchUpsertStart: case OpKind::BatchUpsertEnd: case OpKind::BatchUpsertRevoke:
      case OpKind::BatchRemove:
        // A batch of one well-formed key is its single op; otherwise drop
        // one key (with its size when sizes pair with keys), never the last:
        // a batch has 1-4 keys, as the workload draws them.
        if (op.keys.size() == 1 && batch_well_formed(op)) v.push_back(batch_element(op, 0));
        for (size_t i = 0; op.keys.size() > 1 && i < op.keys.size(); ++i)
          with([i](Op& o) {
            if (o.sizes.size() == o.keys.size()) o.sizes.erase(o.sizes.begin() + static_cast<long>(i));
            o.keys.erase(o.keys.begin() + static_cast<long>(i));
          });
        with([](Op& o) { o.selector = ReplicaSelector::All; o.force = false; });
        break;
      default:
        break;
    }
    return v;
  }

  // A budget keeps shrinking bounded on long traces whose failure needs many
  // steps (delta debugging is quadratic there); the result is then the
  // smallest trace found within it.
  static constexpr size_t kMaxReplays = 4000;
  TargetFactory factory_;
  TargetOptions options_;
  Checks checks_;
  std::string signature_;
  size_t replays_ = 0;
};

}  // namespace

std::optional<ShrinkResult> shrink(const Trace& failing, TargetFactory factory, const TargetOptions& options,
                                   const Checks& checks) {
  return Shrinker(factory, options, checks).shrink(failing);
}

}  // namespace pinsim
