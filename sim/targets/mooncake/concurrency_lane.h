// The Mooncake concurrency lane: the real MasterService under the
// deterministic scheduler (sim/sched), with clients and MasterService's own
// background work as actors, checked for linearizability against the model,
// with its lock graph named after MasterService's members. A seed gives a
// scenario (a sequential prefix, then one script per actor at one instant)
// and a schedule; the same seed gives the same schedule, outcomes and View.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "campaign.h"
#include "concurrent.h"
#include "known_findings.h"
#include "config.h"
#include "op.h"
#include "target.h"
#include "trace.h"

namespace pinsim::mooncake_lane {

struct Scenario {
  Config config;
  std::vector<std::pair<Time, Op>> prefix;  // applied in order to the target and the model alike
  // One script per actor, all run at `now`: the clients first, then the
  // eviction actor (BatchEvict) and the cleanup actor (the task-cleanup cycle).
  std::vector<std::vector<Op>> scripts;
  std::vector<std::string> roles;  // "client", "evict", "cleanup", per script
  Time now = 0;
  // An unmount's sweep of the objects it left without a replica runs after
  // the round's calls (mooncake_defer_unmount_sweep), not inside the call:
  // the trace's settings.unmount_sweep "after_round".
  bool sweep_after_round = false;
};

// The background actors of a scenario. BatchEvict scans the shards one at a
// time, each under its own lock, so it is not one atomic step: a history
// where it overlaps client writes may have no linearization with the
// model's atomic Evict (README.md, "Eviction is not atomic").
struct Background {
  bool evict = true;
  bool cleanup = true;
};
// Every background actor this tree runs repeatably and has: the evict actor
// where BatchEvict can be seeded (mooncake_evict_is_seedable), the cleanup
// actor where the tree has a cleanup (CleanupExpiredSoftPins, or PR 2835's
// retention prune; a pre-#2909 tree has neither and answers it UNSUPPORTED).
Background tree_actors();

// Keys 1..4 of tenant 0, some put in the prefix with a soft pin that is due
// at `now`, one still to come, or none, some read so that a lease protects
// them; then `clients` clients of two calls each on the same keys, an evict
// actor and a cleanup actor as `background` asks. In half of the seeds the
// keys belong to groups (on main; on the PR 2835 tree retention draws them).
// Since session 29 half of the seeds also give clients wider calls (batch
// calls, RemoveAll, copies; README.md, "Wider calls"), and since session 30
// half run in multi-tenant mode (README.md, "Tenants and quotas"), since
// session 32 a quarter unmount a segment (README.md, "Unmounts"), and since
// session 33 half leave the keys of their Puts fresh (README.md, "Fresh keys
// for Puts"), and since session 44 half ask BatchEvict for less than every
// candidate (README.md, "Eviction targets below 100%"). Each comes from a
// stream of its own; `draws` leaves one out, for the tests of earlier
// findings, which name seeds of the draws of before.
struct Draws {
  bool wide_calls = true;
  bool tenants = true;
  bool unmounts = true;
  bool fresh_puts = true;
  bool evict_targets = true;
  bool frontier_targets = true;  // 5% in half of the seeds below 100% (session 45)
};
Scenario make_scenario(uint64_t seed, uint32_t clients, Background background = {}, Draws draws = {});

// The refusal of a scenario with an evict actor on a tree whose BatchEvict
// cannot be seeded (mooncake_evict_is_seedable): its runs would not repeat.
inline constexpr const char* kEvictNotSeedable =
    "the evict actor needs a tree whose BatchEvict can be seeded (this one starts at a random shard, so a "
    "seed's schedule would not repeat); use --background cleanup";

struct Edge {
  std::string from, to;  // lock names (see lock_name in mooncake_target.h)
  auto operator<=>(const Edge&) const = default;
};

// A history the linearization search could not decide within its budget
// (sched::SearchUndecided) has the signature sched::kUndecided: a failure,
// never a pass, and never shrunk (schedule_shrink.h).
// The signature of a history decided not linearizable whose nearest order
// (the one the name comes from) the search could not find within the budget.
// A search that names one call past the budget only leaves that call out.
inline constexpr const char* kNamingUndecided = "not-linearizable/naming-past-budget";

struct Result {
  std::string variant;  // the tree (Target::variant), for matching known findings
  std::string error;  // the target refused the scenario, or the prefix already differed from the model
  sched::History history;
  // No linearization explains the history, or a call threw (history.thrown,
  // its signature "exception/<op>/<type>", with no conditions or alternatives).
  std::optional<std::string> violation;
  std::string signature;  // of the violation (violation_signatures' first), or ""
  // The others violation_signatures gives: any of them may be what a known
  // finding names (the first call that explains is no more the defect's
  // than the others).
  std::vector<std::string> alternatives;
  // Conditions of known_findings.h the failing history met (lane_conditions).
  std::vector<std::string> conditions;
  std::vector<Edge> edges;               // the lock graph, sorted, distinct names
  std::vector<std::string> cycle;        // the scheduler's lock cycle, named; empty when none
  uint64_t switches = 0;                 // decisions that changed the running actor
  uint64_t inline_threads = 0;           // threads actors started, run inline
};

// The lock graph noted since the last schedule began (lock_order.h), each
// lock named after its member of `target`'s MasterService, sorted, distinct.
std::vector<Edge> named_lock_edges(const Target& target);

// Runs `scenario` once under a schedule drawn from `schedule_seed`. With
// `known` findings, a failure one of them names is named by the first
// signature that finding names, and the rest are not computed
// (violation_signatures' `is_known`): the same finding matches, sooner.
Result run(const Scenario& scenario, uint64_t schedule_seed, uint32_t preempt_pct,
           const std::vector<KnownFinding>& known = {});
// The same under PCT (policies.h): random actor priorities and `depth` - 1
// change points over the decisions a schedule of this scenario is expected
// to take (a bug of depth d is found with probability at least
// 1 / (actors x steps^(d-1)) per schedule).
Result run_pct(const Scenario& scenario, uint64_t schedule_seed, uint32_t depth,
               const std::vector<KnownFinding>& known = {});
// Runs `scenario` under a recorded schedule; `diverged` when the run could
// not follow it (the target took another path). `first_only`: a failure is
// named by its first signature alone (no alternatives), which is all
// replay_trace reports.
Result replay(const Scenario& scenario, const std::vector<uint32_t>& schedule, bool* diverged,
              bool first_only = false);

// A run as a trace (docs/trace-format.md): the prefix as its steps, and one
// concurrent round with the actors' scripts and the schedule taken.
// `pct_depth` 0: the schedule was drawn at random with `preempt_pct`.
Trace to_trace(const Scenario& scenario, const Result& result, uint64_t seed, uint32_t preempt_pct,
               uint32_t pct_depth = 0);
// The scenario and schedule of such a trace, or nullopt and the reason.
std::optional<Scenario> scenario_of(const Trace& trace, std::vector<uint32_t>* schedule, std::string* why);
// Such a trace replayed under its recorded schedule (as far as the run
// follows it: `diverged` when it could not), with the run as a trace: the
// schedule taken, and the recorded trace's settings, seed, run, description
// and finding. Nullopt and `why` when it is not such a trace or the target
// refused its scenario. `first_only` as replay's. What replay_trace,
// `mooncake_concurrency --replay` and the gate's corpus replay share.
struct Replayed {
  Scenario scenario;
  Result result;
  bool diverged = false;
  Trace as_run;
};
std::optional<Replayed> replay_recorded(const Trace& trace, std::string* why, bool first_only = false);
// Replays such a trace from scratch, as the schedule shrinker
// (sched/schedule_shrink.h) asks: the trace as run (the schedule taken), and
// its failure: a deadlock, a lock cycle, or no linearization (what
// "not-linearizable", field its first signature). `error` when it cannot run.
RunResult replay_trace(const Trace& trace);
// How a run failed, as replay_trace says it: a deadlock, a lock cycle, an
// op that threw ("exception", field its type) or no linearization
// ("not-linearizable", field its first signature); nullopt when it passed.
std::optional<Failure> failure_of(const Result& r);

// The signatures of a history no linearization explains, for recognising a
// known finding (scenarios/findings/concurrency/), in the "what/op/field"
// shape of known_findings.h, the first being the history's own, the rest its
// alternatives: "not-linearizable/outcomes/<op>:<code>" when no order gives
// every call its outcome, one for each call that, its outcome left
// unchecked, lets an order explain the others (its op and code, "full" for a
// refused retain, a batch named by the element whose key, taken out, lets
// an order explain the rest; "-" when no one call does); otherwise, when
// leaving one call's outcome unchecked lets an order explain the final View
// too, one for each such call; else, along the first order that gives every
// outcome, where the target's View departs from the model's end state:
// "not-linearizable/view/<field>:<pin>", the first differing field of an
// object the model holds (as field_diff.h names it) and that object's pin
// (hard, soft or none), else the first differing field and "-";
// "not-linearizable/placement/-" when only the placement differs.
// With `is_known` (whether a known finding names a signature), a list of
// one-call signatures stops at the first signature it accepts: only that one
// is given, and the calls after it are not searched.
using IsKnown = std::function<bool(const std::string&)>;
std::vector<std::string> violation_signatures(const Model& start, const sched::History& history, Time now,
                                              Capabilities caps, const IsKnown& is_known = nullptr);
// The conditions a known finding may name in `when` (known_findings.h) that
// a history met: "expected_quota_exceeded" when the model refuses a start for
// quota that the target did not, the start applied after the calls that
// returned before it began, that began before it began, or that returned
// before it returned (in the order they began); with
// "quota_refused_replacement" too when such a start names an object that
// exists then (a replacement, as Case C is); and, on its own,
// "quota_refused_erased" when a start the target refused for quota names an
// object that existed, with a completed replica, when the round began and is
// missing from the final View; "preserved_pin_dropped" (with "preserve_resizes"),
// "start_changes_group", "start_keeps_group", "replacement_meets_quota",
// "unmount_frees_quota_for_start", "refused_start_preempts_write",
// "remove_all_counts_unmounted" and "lost_write_blocks_start" as
// known_findings.h says. Computed in lane_conditions.cpp.
// `sweep_after_round`: the scenario's (an unmount's effects then reach to
// the round's end).
std::vector<std::string> lane_conditions(const Model& start, const sched::History& history, Time now,
                                         bool sweep_after_round = false);
// The known finding that names the result's signature or one of its
// alternatives (and whose conditions the result met), or nullptr.
// `matched`, when given, is set to the signature the finding names.
const KnownFinding* match_result(const std::vector<KnownFinding>& known, const Result& r,
                                 std::string* matched = nullptr);

// The op kinds the calls of `history` used, each once: what a known finding's
// `needs` is matched against (known_findings.h), as a sequential run's steps are.
std::vector<OpKind> ops_used(const sched::History& history);

// "shard" for "shard[17]", "object_op_lock" for "object_op_lock[5]": a lock
// name without its index.
std::string lock_kind(const std::string& name);

// True for an edge against the lock order MasterService documents (the
// deadline index mutex after the shard locks; snapshot and client mutexes
// before them): the index before a shard, or a shard before the snapshot or
// client mutex.
bool against_lock_order(const Edge& e);

// An edge's signature, "lock-order/<kind>/<kind>" (the lock held, the lock
// taken), and the finding of r's tree that names an edge against the lock
// order by it, or null.
std::string edge_signature(const Edge& e);
const KnownFinding* match_edge(const std::vector<KnownFinding>& known, const Result& r, const Edge& e);

}  // namespace pinsim::mooncake_lane
