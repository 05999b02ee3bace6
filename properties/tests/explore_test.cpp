// The bounded explorer on a small universe (1 key, 1 actor, 1 tenant, 1
// group): the model satisfies P1-P14 in every state to depth 3, and two
// seeded faults of the embedded target are found at depth 2, breadth first,
// so the counterexamples are shortest ones. The ladder of universes
// (sim/explore_ladder.h) finds faults in the rungs made for them, bounded by
// depth and by states expanded, never by time.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <set>

#include "explore_ladder.h"
#include "explorer.h"
#include "model_target.h"
#include "property.h"
#include "trace.h"
#ifdef PINSIM_HAVE_EMBEDDED
#include "embedded_target.h"
#endif

namespace pinsim {

static ExploreOptions small_universe(uint32_t depth) {
  ExploreOptions o;
  o.max_depth = depth;
  o.workload.keys = o.workload.actors = o.workload.tenants = o.workload.groups = 1;
  o.workload.sizes = {32};
  o.workload.hard_pin_pct = 0;  // hard pin doubles the writes' fan-out; campaigns and P14 cover it
  o.workload.group_shape_pct = 0;
  o.workload.soft_pin_ttls = {500};
  o.workload.retention_ttls = {500, 5000};
  o.checks = Checks{all_properties(), true};
  return o;
}

// Depth 3 takes about 35 s with the batch ops in the universe; a sanitizer
// build (./dev sanitize) asks for depth 2 through PINSIM_EXPLORE_DEPTH.
TEST(Explore, ModelSatisfiesEveryPropertyToDepth3) {
  const char* env = std::getenv("PINSIM_EXPLORE_DEPTH");
  const uint32_t depth = env ? static_cast<uint32_t>(std::strtoul(env, nullptr, 10)) : 3;
  const ExploreResult r = explore(small_universe(depth));
  EXPECT_FALSE(r.counterexample) << r.counterexample->failure->detail;
  EXPECT_EQ(r.depth, depth);
  EXPECT_GT(r.states, depth >= 3 ? 1000u : 10u);
}

TEST(Explore, MemoryCapStopsCleanly) {
  ExploreOptions o = small_universe(3);
  o.max_memory_bytes = 64 << 10;
  const ExploreResult r = explore(o);
  EXPECT_TRUE(r.capped);
  EXPECT_LT(r.depth, 3u);
}

TEST(Explore, StopsWhenAsked) {
  ExploreOptions o = small_universe(3);
  int asked = 0;
  o.should_stop = [&asked] { return ++asked > 5; };
  const ExploreResult r = explore(o);
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.expanded, 5u);
}

// The explorer's ops come from the campaign generator: each op it expands is
// one the workload can draw, and no op is listed twice.
TEST(Explore, AllOpsAreDistinctAndCoverEveryKind) {
  ExploreOptions o = small_universe(1);
  auto model = std::get<Model>(Model::create(o.config));
  const std::vector<Op> ops = all_ops(Workload(o.workload, o.config), model, 0);
  std::set<int> kinds;
  for (size_t i = 0; i < ops.size(); ++i) {
    kinds.insert(static_cast<int>(ops[i].kind));
    for (size_t j = 0; j < i; ++j) EXPECT_FALSE(ops[i] == ops[j]) << i << " " << j;
  }
  EXPECT_EQ(kinds.size(), static_cast<size_t>(kOpKindCount));
}

// Symmetry reduction: states that differ only by a renaming of actors have
// the same canonical encoding; states that differ by a key do not.
TEST(Explore, ActorsAreSymmetricKeysAreNot) {
  auto state_after = [](ClientId client, KeyId key) {
    auto m = std::get<Model>(Model::create(Config{}));
    Op put;
    put.kind = OpKind::PutStart;
    put.client = client;
    put.object = {0, key};
    put.size = 32;
    put.memory_replicas = 1;
    m.apply(put, 0);
    return m.canonical_state(0);
  };
  EXPECT_EQ(state_after(1, 0), state_after(2, 0));
  EXPECT_NE(state_after(1, 0), state_after(1, 1));
}

// A target that refuses the configuration: the explore says so and explores
// nothing (it never reports a green over transitions that were not run).
static std::unique_ptr<Target> refusing_target(const Config&, const TargetOptions&, std::string* error) {
  *error = "this tree is checked against another profile";
  return nullptr;
}

TEST(Explore, TargetThatRefusesTheConfigurationIsReported) {
  ExploreOptions o = small_universe(2);
  o.target = &refusing_target;
  const ExploreResult r = explore(o);
  EXPECT_EQ(r.refused, "this tree is checked against another profile");
  EXPECT_EQ(r.transitions, 0u);
  EXPECT_FALSE(r.counterexample);
}

// Another target seen through a wrapper that can leave out RetainGroups
// (the explore then leaves those ops out, as a campaign draws only ops its
// target supports) and cannot be copied (the explore then replays each
// transition from the start).
class WrappedTarget final : public Target {
 public:
  WrappedTarget(std::unique_ptr<Target> inner, bool no_retention)
      : inner_(std::move(inner)), no_retention_(no_retention) {}
  std::string_view name() const override { return inner_->name(); }
  Capabilities capabilities() const override { return inner_->capabilities(); }
  Outcome apply(const Op& op, Time now) override { return inner_->apply(op, now); }
  bool supports(const Op& op) const override {
    return inner_->supports(op) && !(no_retention_ && op.kind == OpKind::RetainGroups);
  }
  View view(Time now) const override { return inner_->view(now); }
  std::optional<Placement> placement() const override { return inner_->placement(); }

 private:
  std::unique_ptr<Target> inner_;
  bool no_retention_;
};

static std::unique_ptr<Target> no_retention_target(const Config& c, const TargetOptions& o, std::string* error) {
  auto inner = make_model_target(c, o, error);
  return inner ? std::make_unique<WrappedTarget>(std::move(inner), true) : nullptr;
}

TEST(Explore, LeavesOutOpsTheTargetDoesNotSupport) {
  ExploreOptions o = small_universe(1);
  const ExploreResult all = explore(o);
  auto model = std::get<Model>(Model::create(o.config));
  size_t retains = 0;
  for (const Op& op : all_ops(Workload(o.workload, o.config), model, 0)) retains += op.kind == OpKind::RetainGroups;
  ASSERT_GT(retains, 0u);
  o.target = &no_retention_target;
  const ExploreResult r = explore(o);
  EXPECT_TRUE(r.refused.empty()) << r.refused;
  EXPECT_FALSE(r.counterexample);
  EXPECT_EQ(r.transitions, all.transitions - retains);
}

#ifdef PINSIM_HAVE_EMBEDDED
TEST(Explore, FindsFaultsF4AndF7AtDepth2) {
  for (const char* fault : {"F4", "F7"}) {
    ExploreOptions o = small_universe(2);
    o.target = &make_embedded_target;
    o.target_options = fault_options({fault});
    const ExploreResult r = explore(o);
    ASSERT_TRUE(r.counterexample) << fault;
    EXPECT_EQ(r.counterexample->trace.steps.size(), 2u) << fault;
  }
}

// A failure matching a known finding is counted and the explore goes on
// past it (its state not expanded): with F4's counterexamples known, the
// explore of the same universe ends without one.
TEST(Explore, KnownFindingsAreCountedAndTheExploreGoesOn) {
  ExploreOptions o = small_universe(2);
  o.target = &make_embedded_target;
  o.target_options = fault_options({"F4"});
  const ExploreResult first = explore(o);
  ASSERT_TRUE(first.counterexample);
  // F4 shows under a few signatures: each counterexample found is made known, until none is left.
  o.known = {{"f4.json", first.counterexample->variant, {}, {}, {}, {}}};
  ExploreResult r = first;
  for (int i = 0; i < 8 && r.counterexample; ++i) {
    o.known[0].signatures.push_back(failure_signature(*r.counterexample->failure, r.counterexample->trace));
    r = explore(o);
  }
  EXPECT_FALSE(r.counterexample);
  ASSERT_EQ(r.known.count("f4.json"), 1u);
  EXPECT_GE(r.known.at("f4.json"), 1u);
  EXPECT_GT(r.transitions, first.transitions);
}

static std::unique_ptr<Target> uncopyable_embedded(const Config& c, const TargetOptions& o, std::string* error) {
  auto inner = make_embedded_target(c, o, error);
  return inner ? std::make_unique<WrappedTarget>(std::move(inner), false) : nullptr;
}

// Transitions checked on copies of the embedded master (Target::clone) reach
// the same states and the same counterexamples as transitions replayed from
// the start, with and without a fault.
TEST(Explore, CopiesOfTheTargetExploreAsReplaysDo) {
  for (const char* fault : {"", "F4", "F7", "F10"}) {
    ExploreOptions o = small_universe(2);
    if (*fault) o.target_options = fault_options({fault});
    o.target = &make_embedded_target;
    const ExploreResult copied = explore(o);
    o.target = &uncopyable_embedded;
    const ExploreResult replayed = explore(o);
    EXPECT_EQ(copied.states, replayed.states) << fault;
    EXPECT_EQ(copied.transitions, replayed.transitions) << fault;
    ASSERT_EQ(copied.counterexample.has_value(), replayed.counterexample.has_value()) << fault;
    if (copied.counterexample) {
      EXPECT_EQ(write_trace(copied.counterexample->trace), write_trace(replayed.counterexample->trace)) << fault;
    }
  }
}

// --jobs: a target that cannot be copied has each level's transitions
// replayed by worker processes, with the same states, transitions and
// counterexample as in one process; a copyable target is refused --jobs.
TEST(Explore, WorkersReplayAsOneProcessDoes) {
  for (const char* fault : {"", "F4"}) {
    ExploreOptions o = small_universe(2);
    if (*fault) o.target_options = fault_options({fault});
    o.target = &uncopyable_embedded;
    const ExploreResult one = explore(o);
    o.jobs = 2;
    const ExploreResult two = explore(o);
    EXPECT_TRUE(two.refused.empty()) << two.refused;
    EXPECT_EQ(one.states, two.states) << fault;
    EXPECT_EQ(one.transitions, two.transitions) << fault;
    EXPECT_EQ(one.depth, two.depth) << fault;
    ASSERT_EQ(one.counterexample.has_value(), two.counterexample.has_value()) << fault;
    if (one.counterexample) {
      EXPECT_EQ(write_trace(one.counterexample->trace), write_trace(two.counterexample->trace)) << fault;
    }
  }
  ExploreOptions o = small_universe(1);
  o.jobs = 2;
  o.target = &make_embedded_target;
  EXPECT_NE(explore(o).refused.find("--jobs 2"), std::string::npos);
  o.target = nullptr;
  EXPECT_NE(explore(o).refused.find("--jobs 2"), std::string::npos);
}
#endif

// --seconds climbs the ladder unless a universe flag is named; without a
// budget there is no ladder. Flags that are not the universe (depth, target,
// fault, profile, memory) keep the ladder.
TEST(ExploreLadder, OnlyWithABudgetAndNoUniverseFlag) {
  EXPECT_TRUE(climbs_ladder(true, {"seconds"}));
  EXPECT_TRUE(climbs_ladder(true, {"seconds", "depth", "target", "fault", "profile", "memory-mb", "out"}));
  EXPECT_FALSE(climbs_ladder(false, {"depth", "target"}));
  for (std::string_view flag : universe_flags())
    EXPECT_FALSE(climbs_ladder(true, {"seconds", std::string(flag)})) << flag;
  EXPECT_FALSE(climbs_ladder(true, {"seconds", "keys"}));
  EXPECT_FALSE(climbs_ladder(true, {"seconds", "ops"}));
}

// The table itself: known op kinds, shares of the budget that grow to the
// whole of it, and the default universe last.
TEST(ExploreLadder, RungsAreWellFormed) {
  const std::vector<LadderRung>& rungs = explore_ladder();
  ASSERT_GE(rungs.size(), 2u);
  uint32_t share = 0;
  for (const LadderRung& r : rungs) {
    EXPECT_GT(r.budget_pct, share) << r.name;
    share = r.budget_pct;
    EXPECT_EQ(r.default_universe, &r == &rungs.back()) << r.name;
    if (r.default_universe) continue;
    EXPECT_GT(r.max_depth, 0u) << r.name;
    std::string unknown;
    EXPECT_TRUE(op_weights(r.ops, &unknown)) << r.name << ": " << unknown;
  }
  EXPECT_EQ(share, 100u);
}

#ifdef PINSIM_HAVE_EMBEDDED
// The ladder against one fault, each rung bounded by `max_depth` and by
// 100,000 states expanded (work, not time: the same rungs end the same way
// on any machine).
static LadderResult climb_against(const char* fault, std::optional<uint32_t> max_depth) {
  LadderOptions l;
  l.base = small_universe(4);
  l.base.target = &make_embedded_target;
  l.base.target_options = fault_options({fault});
  l.max_depth = max_depth;
  l.budget = [](uint32_t) {
    auto asked = std::make_shared<uint64_t>(0);
    return std::function<bool()>([asked] { return ++*asked > 100'000; });
  };
  return climb_ladder(l);
}

static std::string_view rung_name(const RungResult* r) { return r ? explore_ladder()[r->index].name : "none"; }

// Every rung capped at depth 3: a fault of the one-key rung, one of a master
// configuration (quota eviction of a hard pin), one of a failover (a standby
// that keeps a write in flight) and one that needs a group member (two keys)
// are each found by their rung, as short as there.
TEST(ExploreLadder, FindsFaultsInTheirRungs) {
  const struct {
    const char* fault;
    std::string_view rung;
    size_t ops;
  } cases[] = {{"F4", "one key", 2}, {"F17", "quotas", 3}, {"F30", "failover", 2}, {"F9", "two keys", 3}};
  for (const auto& c : cases) {
    const LadderResult r = climb_against(c.fault, 3);
    ASSERT_TRUE(r.found()) << c.fault;
    EXPECT_EQ(rung_name(r.found()), c.rung) << c.fault;
    EXPECT_EQ(r.found()->result.counterexample->trace.steps.size(), c.ops) << c.fault;
    EXPECT_FALSE(r.stopped()) << c.fault;  // every rung before it ran to its depth
  }
}

// The climb is deterministic: the same fault gives the same counterexample.
TEST(ExploreLadder, SameClimbSameCounterexample) {
  const LadderResult a = climb_against("F17", 3), b = climb_against("F17", 3);
  ASSERT_TRUE(a.found() && b.found());
  EXPECT_EQ(write_trace(a.found()->result.counterexample->trace), write_trace(b.found()->result.counterexample->trace));
  EXPECT_EQ(a.rungs.size(), b.rungs.size());
}

// F2 needs 6 ops (a pin replaced by an upsert, its stale index entry popped
// by cleanup), out of the default universe's reach: the deeper-writes rung
// reaches depth 6 after the rungs before it ran to theirs.
TEST(ExploreLadder, ReachesDepthSixForAStaleIndexEntry) {
  const LadderResult r = climb_against("F2", std::nullopt);
  ASSERT_TRUE(r.found());
  EXPECT_EQ(rung_name(r.found()), "deeper writes");
  EXPECT_EQ(r.found()->result.counterexample->trace.steps.size(), 6u);
  EXPECT_FALSE(r.stopped());
}
#endif

}  // namespace pinsim
