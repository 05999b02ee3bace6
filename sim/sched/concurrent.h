// Several clients at once against one target, under the deterministic
// scheduler, and the check that what they saw is linearizable: some order of
// the calls, consistent with their real-time order (a call that returned
// before another was invoked comes first), gives every call the outcome it
// got when applied to the model, and ends in the View the target shows (and
// where its replicas are, when it shows that: Target::placement).
// This is Wing & Gong's check, with the scheduler knowing real time exactly.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "choices.h"
#include "model.h"
#include "scheduler.h"
#include "target.h"

namespace pinsim::sched {

struct Call {
  uint32_t actor = 0;
  Op op;
  Outcome outcome;
  uint64_t invoked = 0;   // event clock at the invocation
  uint64_t returned = 0;  // event clock at the return
  // An evict call's lock acquisitions, each with the event clock when it was
  // taken (that of the last invocation or return before it).
  std::vector<std::pair<const void*, uint64_t>> acquired;
  // An evict call taken in steps: the clock of the eviction's release of
  // discarded replicas, between its pass 1 and pass 2, where the history has
  // it (0: anywhere inside the call). A call that returned by then comes
  // before the Release step, and so before every Pass2 step. A lane that can
  // name its target's locks fills it (concurrency_lane.cpp).
  uint64_t release_after = 0;
  // And per object, the clock of the census's hold of the object's shard
  // lock: the object's Census step comes after every call that returned by
  // then and before every call invoked after it. An object left out may have
  // its Census step anywhere inside the call.
  std::vector<std::pair<ObjectId, uint64_t>> census_at;
  // Below 10/44, the same for the collect, BatchEvict's second scan: the
  // object's Collect step comes where that scan held the object's shard.
  std::vector<std::pair<ObjectId, uint64_t>> collect_at;
  // And the refill's scan, when pass 1 falls short of a compact collect: the
  // object's Refill step, which tests and visits it at once, comes no
  // earlier than that scan's hold of its shard (after every call that
  // returned by then), since Mooncake visits after it scans.
  std::vector<std::pair<ObjectId, uint64_t>> refill_after;
};

// A call that threw out of the target (exception_type.h): its actor's
// script ends there, and the round is a failure of its own.
struct Thrown {
  uint32_t actor = 0;
  Op op;
  std::string type;  // the exception's type, demangled
  std::string what;

  std::string signature() const;  // "exception/<op>/<type>"
  std::string describe() const;   // "<op> threw <type>: <what>"
};

struct History {
  std::vector<Call> calls;  // in invocation order, a call that threw left out
  std::optional<Thrown> thrown;  // the first call that threw
  View final_view;
  std::optional<Placement> final_placement;  // when the target shows it (Target::placement)
  RunResult run;  // the schedule, and whether it deadlocked
};

// Runs scripts[i] on actor i, every op at virtual time `now`, against
// `target` (which must be safe to call from several threads), under a
// Scheduler with `preempt_pct`.
History run_concurrent(Target& target, const std::vector<std::vector<Op>>& scripts, Time now, Choices& choices,
                       uint32_t preempt_pct = 100);
// The same under any scheduling policy (policies.h).
History run_concurrent(Target& target, const std::vector<std::vector<Op>>& scripts, Time now, Policy& policy);

// One step of a linearization: a call (an index of history.calls) and, for
// a single start, the placement preference it applied with (empty: the
// model's own at that state). A client fixes its preference when its request
// begins, so a concurrent start may place by an older picture of free space.
//
// An evict call of a target with kCapEvictionInSteps that overlaps another
// call, or that asks for less than every candidate (its target or lower
// bound below 100%: pass 2 then takes some objects in shard order), is
// linearized as BatchEvict's steps (Model::evict_begin): Begin (its
// outcome), Census, Pass1 and Pass2 for each object the history names, and
// Release, in that order, each anywhere inside the call; below 10/44 of the
// objects, Collect after the Census and Refill after Pass1 for each object
// too (Mooncake's compact frontier: Model::evict_collect_step,
// evict_refill_step). Within a stage the
// objects may go in any order (Mooncake's shard order, from a random start
// in pass 2, is not followed), which accepts at least every order Mooncake
// can take.
//
// When no order of whole calls explains a round, a single start in
// multi-tenant mode that overlaps another call and may be refused for quota
// in some order (its tenant's charge plus the round's starts exceed its
// quota, or the round changes quotas) is linearized as Mooncake's Put/UpsertStart takes it, each step anywhere
// inside the call and in this order: Attempt1, QuotaEvict1, Attempt2,
// QuotaEvict2, Attempt3 (Model::start_attempt, Model::start_quota_evict).
// An attempt refused for quota changes nothing, and the quota eviction after
// it runs under its own locks, so other calls may land between them; the
// attempt that ends the run gives the call's outcome, and the steps left
// after it are taken as done. The search chooses the start's preference at
// the attempt that ends the run: a refusal for quota does not depend on it
// (the quota is checked before placement), and the model's own is the one
// its first attempt took.
//
// Batch calls and RemoveAll are not atomic either: a batch answers per key
// and Mooncake's batch calls, RemoveAll and RemoveByRegex take each key or
// shard under its own lock, so two batches on the same keys may interleave
// key by key, and a RemoveAll may miss an object a write ends meanwhile.
// Nothing states more (docs/interpretations.md, "Batch calls and RemoveAll
// under concurrency"). When no order of whole calls explains a round, such a
// call that overlaps another is taken in steps: a batch as an Element step
// per key (the single op on that key, answered by the key's result; a batch
// refused whole, or naming a key twice, stays whole), a RemoveAll as a
// RemoveOne step per object the history names of its tenant (Model::
// remove_all_step), then RemoveEnd, which answers the count removed.
//
// An unmount is not atomic either: Mooncake's UnmountSegment prepares the
// segment (it stops being allocatable), releases the segment lock while it
// sweeps the invalid handles, and commits after. When no order of whole calls
// explains a round, an unmount that overlaps another call is taken as
// UnmountPrepare (Model::unmount_prepare_step: the segment leaves, as a
// graceful unmount's does) then UnmountCommit (the unmount op, which answers).
enum class EvictStage : uint8_t {
  Whole, Begin, Census, Collect, Pass1, Refill, Release, Pass2, Attempt1, QuotaEvict1, Attempt2, QuotaEvict2, Attempt3,
  Element, RemoveOne, RemoveEnd, UnmountPrepare, UnmountCommit
};
struct Linearized {
  size_t call = 0;
  std::vector<uint64_t> preference;
  EvictStage stage = EvictStage::Whole;
  ObjectId object{};  // Census, Collect, Pass1, Refill, Pass2, Element, RemoveOne
  // Census, Collect, Refill, Release: the clock of the eviction's hold of
  // the lock the step stands for (Call::census_at, collect_at, refill_after,
  // release_after); 0: anywhere inside the call.
  uint64_t held = 0;
  // A start's quota eviction (Whole, Element, QuotaEvict): the objects it
  // scans first (Model::scan_first_in_next_eviction); empty: key order.
  std::vector<ObjectId> scan_first;
};

// The evictions, starts and RemoveAlls in progress along a linearization, by call.
struct Runs {
  std::map<size_t, EvictionRun> evictions;
  std::map<size_t, StartRun> starts;
  std::map<size_t, uint64_t> removals;  // a RemoveAll in steps: the objects removed so far
};

// Applies one step of a linearization to `m` (`runs` carries the evictions,
// starts and RemoveAlls taken in steps from one step to the next). The
// outcome of a Whole, Begin or RemoveEnd step, and of the attempt that ends a
// start, is the call's; an Element step's is its key's result; other steps
// answer OK.
Outcome apply_step(Model& m, Runs& runs, const History& history, const Linearized& step, Time now);

// One search visits at most this many states (calls done and model state).
// A history that needs more is undecided: the search throws SearchUndecided,
// which each lane reports as a failure of its own kind (never as a pass), so
// a check that could not finish is never taken for one that passed.
inline constexpr size_t kSearchBudget = 3'000'000;
// The field (Failure::field) and signature every lane gives such a failure.
// The shrinker (schedule_shrink.h) writes it as run, never shrunk.
inline constexpr const char* kUndecided = "undecided/search-budget";
struct SearchUndecided : std::runtime_error {
  SearchUndecided()
      : std::runtime_error("undecided: the linearization search visited " + std::to_string(kSearchBudget) +
                           " states without an answer") {}
};

// An order of history.calls that explains the history from `start` (as
// check_linearizable says), or nullopt when none does. A start may place by
// any order of the segments of each kind, unless no outcome and no compared
// View field can tell placements apart (no segment compared, no call that
// names a segment, room in every segment for all the history's starts):
// then the model's own placement stands for all. The search skips a state it
// has seen (the calls done and the model's canonical state).
std::optional<std::vector<Linearized>> linearize(const Model& start, const History& history, Time now,
                                                 Capabilities caps);

// A linearization that explains a history, and the model state it ends in.
struct Explanation {
  std::vector<Linearized> order;
  Model end;
};

// Up to `limit` linearizations that explain the history (as linearize), one
// per distinct end state (canonical, replica ids ranked per object): orders
// may end in the same View but differ in state no View shows (which object
// holds the bytes of a segment, when the target shows no Placement), and the
// next calls may tell them apart. Empty when none explains it. The outcomes
// of `free_calls` are not checked (explain_outcomes). Where placement cannot
// tell them apart in this history (linearize), the ends are the model's own
// placements only: a lane that carries them into a later round compares
// segments (kCapSegments), as the embedded lane does.
std::vector<Explanation> explanations(const Model& start, const History& history, Time now, Capabilities caps,
                                      size_t limit, const std::vector<size_t>& free_calls = {});

// The first linearization that gives every call its outcome, whatever View
// it ends in (nullopt when none does): for the account of a history that is
// not linearizable, what its calls' outcomes imply and where the target's
// View departs from it (the Mooncake lane's finding signatures). The
// outcomes of `free_calls` are not checked: which calls no order can give
// their outcomes.
std::optional<Explanation> explain_outcomes(const Model& start, const History& history, Time now, Capabilities caps,
                                            const std::vector<size_t>& free_calls = {});
// Up to `limit` such linearizations, one per distinct end state: orders that
// give the same outcomes may still place a start on other segments, and
// only one of them may end near the target's View (closest_explanation).
std::vector<Explanation> outcome_explanations(const Model& start, const History& history, Time now,
                                              Capabilities caps, size_t limit,
                                              const std::vector<size_t>& free_calls = {});

// nullopt when some linearization of `history`, applied to `start`, gives
// every outcome and the final View (as far as `caps` shows it); otherwise a
// one-line account of the history that none explains.
std::optional<std::string> check_linearizable(const Model& start, const History& history, Time now,
                                              Capabilities caps);

}  // namespace pinsim::sched
