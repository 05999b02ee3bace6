// A deterministic scheduler for code that synchronises through locks: its
// actors run on real threads, but exactly one runs at a time, and control
// changes hands only at synchronisation points (a lock, an unlock, an
// explicit yield), where the scheduler decides who runs next, drawing each
// decision from Choices (seeded random, the exhaustive odometer, or replay).
// Same choices, same interleaving: the schedule is a plain list of actor
// indices. It is CHESS's idea (systematic interleaving at synchronisation
// points) for threads of one process.
//
// Locks are the scheduler's own notion: lock(m) waits (in schedule terms)
// while another actor holds m; the real primitive is never taken while a
// schedule runs. A program's pthread mutexes and rwlocks reach it through the
// interposer (interpose.cpp), linked into test executables only. Condition
// variables are the scheduler's too: a wait releases the lock and blocks until
// a signal (a timed wait, like a sleep, is a yield point that may return
// without one). Not modelled: thread creation inside an actor.
// A schedule where no actor can run while some still wait is a deadlock: the
// run stops, every waiting actor unwinds (SchedulerAbort), and run() says so.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "choices.h"
#include "policies.h"

namespace pinsim::sched {

// Thrown inside a waiting actor when its run ends in a deadlock; the actor's
// body unwinds (locks it holds are released as no-ops) and the run returns.
struct SchedulerAbort {};

struct RunResult {
  bool deadlock = false;
  // A cycle in the lock graph (an edge a -> b: some actor took b while it
  // held a), the locks in order; empty when the order is consistent. A cycle
  // is a potential deadlock even when no schedule of this run deadlocked.
  std::vector<const void*> lock_cycle;
  std::vector<uint32_t> schedule;  // the actor chosen at each decision with more than one candidate
  uint64_t decisions = 0;          // synchronisation points met
  uint64_t preemptions = 0;        // switches away from an actor that could have gone on
  uint64_t lock_edges = 0;         // distinct edges of the lock graph
};

class Scheduler {
 public:
  // preempt_pct: at a decision where the running actor could go on, how
  // often another is considered (100: every decision is a uniform choice;
  // lower: few preemptions per run, as PCT favours, for code with many
  // synchronisation points).
  explicit Scheduler(Choices& choices, uint32_t preempt_pct = 100)
      : owned_(std::make_unique<RandomPolicy>(choices, preempt_pct)), policy_(*owned_) {}
  // Decisions by any policy (policies.h), owned by the caller.
  explicit Scheduler(Policy& policy) : policy_(policy) {}
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Adds an actor (before run()).
  void spawn(std::function<void()> body) { bodies_.push_back(std::move(body)); }
  // Runs every actor to its end, or to a deadlock; then joins their threads.
  RunResult run();

  // The scheduler running the calling thread as an actor, or nullptr (any
  // other thread uses the real primitives). Inline: the interposer asks on
  // every lock and unlock of every thread, the lockstep runner's included.
  static Scheduler* controlling() { return t_controlling_; }
  // The scheduler the interposer (interpose.cpp) routes the calling thread's
  // libc calls to: controlling(), unless a lane that schedules its own calls
  // turned the interposer off (InterposerOff).
  static Scheduler* interposing() { return interposer_on_ ? t_controlling_ : nullptr; }
  // While one lives, an executable's interposer leaves every call to libc.
  // The Mooncake lane schedules the lock calls of the code linked into the
  // executable through its wrappers (targets/mooncake/lock_order.cpp) and
  // nothing else; in pinsim, which also carries the interposer, a shared
  // library's call on an actor's thread would otherwise become a scheduling
  // point that its own executable does not have, and a seed's schedule would
  // differ between the two. Made before the actors' threads start, undone
  // after they are joined (thread creation and join order the flag).
  struct InterposerOff {
    InterposerOff() { interposer_on_ = false; }
    ~InterposerOff() { interposer_on_ = true; }
    InterposerOff(const InterposerOff&) = delete;
    InterposerOff& operator=(const InterposerOff&) = delete;
  };

  // Called on the acquiring actor's thread each time an actor takes a lock
  // (set before run()): the concurrent lane stamps an eviction's shard locks.
  void observe_acquisitions(std::function<void(int actor, const void* m)> observer) {
    observer_ = std::move(observer);
  }
  // Synchronisation points, called on an actor's thread.
  void yield();
  void lock(const void* m, bool shared);
  bool try_lock(const void* m, bool shared);
  void unlock(const void* m);
  // Releases m, waits for cv to be signalled (timed: or for the next turn,
  // returning false), and takes m again. True when signalled.
  bool cond_wait(const void* cv, const void* m, bool timed);
  void cond_signal(const void* cv, bool all);

 private:
  enum class State { Runnable, Waiting, Done };
  struct Lock {
    int writer = -1;             // the actor holding it exclusively
    std::multiset<int> readers;  // actors holding it shared
  };
  bool available(const Lock& l, int self, bool shared) const;
  void acquire(const void* m, int self, bool shared);
  void release(const void* m, int self);
  void hand_over(int self);  // a decision; waits for the turn to come back
  int choose();              // the next actor, or -1
  void wait_turn(int self);
  void pass_to(int next);
  void actor_main(int self);

  static inline constinit thread_local Scheduler* t_controlling_ = nullptr;  // set on an actor's thread
  static inline constinit bool interposer_on_ = true;
  std::function<void(int, const void*)> observer_;
  std::unique_ptr<Policy> owned_;
  Policy& policy_;
  std::vector<std::function<void()>> bodies_;
  std::vector<std::thread> threads_;
  std::vector<State> state_;
  std::vector<const void*> waiting_on_;  // a lock, or a condition variable
  std::vector<uint64_t> cond_seq_;       // when each actor began its wait on a condition variable (0: none)
  uint64_t cond_clock_ = 0;
  std::map<const void*, Lock> locks_;
  std::vector<std::vector<const void*>> held_;  // per actor, in the order taken
  std::set<std::pair<const void*, const void*>> edges_;  // the lock graph
  void find_lock_cycle();
  std::atomic<int> running_{-2};  // the baton: the actor that runs (-1: the run is over)
  bool deadlock_ = false;
  RunResult result_;
};

// A preemption point for code under a schedule (a no-op on other threads):
// what a test puts between a read and a write to expose a race.
void yield_point();

}  // namespace pinsim::sched
