// The deterministic scheduler; see scheduler.h.
#include "scheduler.h"

#include <algorithm>

namespace pinsim::sched {

namespace {

thread_local Scheduler* t_scheduler = nullptr;  // set on an actor's thread
thread_local int t_actor = -1;

}  // namespace

Scheduler* Scheduler::controlling() { return t_scheduler; }

void yield_point() {
  if (Scheduler* s = Scheduler::controlling()) s->yield();
}

// The baton is running_: the actor it names runs, every other waits on it
// (C++20 atomic wait, a futex: the scheduler takes no pthread lock, so the
// interposed calls never reach it). State is touched by the baton's holder
// only; storing the next holder publishes it.
void Scheduler::wait_turn(int self) {
  for (int cur = running_.load(); cur != self; cur = running_.load()) running_.wait(cur);
}

void Scheduler::pass_to(int next) {
  if (running_.exchange(next) != next) running_.notify_all();
}

RunResult Scheduler::run() {
  state_.assign(bodies_.size(), State::Runnable);
  waiting_on_.assign(bodies_.size(), nullptr);
  held_.assign(bodies_.size(), {});
  for (size_t i = 0; i < bodies_.size(); ++i) threads_.emplace_back([this, i] { actor_main(static_cast<int>(i)); });
  pass_to(choose());
  wait_turn(-1);
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  find_lock_cycle();
  return result_;
}

void Scheduler::actor_main(int self) {
  t_scheduler = this;
  t_actor = self;
  wait_turn(self);
  bodies_[self]();
  state_[self] = State::Done;
  t_scheduler = nullptr;
  hand_over(self);
}

// The next actor to run: one of the runnable ones, chosen when there are
// several. With none runnable while some wait, the schedule deadlocked: the
// run is marked, and the rest finish one at a time with locks ignored
// (their effects are not part of any result).
int Scheduler::choose() {
  std::vector<int> runnable;
  for (size_t i = 0; i < state_.size(); ++i)
    if (state_[i] == State::Runnable) runnable.push_back(static_cast<int>(i));
  if (runnable.empty()) {
    for (size_t i = 0; i < state_.size(); ++i)
      if (state_[i] == State::Waiting) {
        deadlock_ = result_.deadlock = true;
        state_[i] = State::Runnable;
        runnable.push_back(static_cast<int>(i));
      }
    return runnable.empty() ? -1 : runnable.front();
  }
  if (runnable.size() == 1 || deadlock_) return runnable.front();
  const int current = running_.load();
  if (preempt_pct_ < 100 && current >= 0 && state_[current] == State::Runnable && !choices_.chance(preempt_pct_)) {
    result_.schedule.push_back(static_cast<uint32_t>(current));  // no preemption here
    return current;
  }
  const uint32_t k = static_cast<uint32_t>(choices_.pick(runnable.size()));
  result_.schedule.push_back(static_cast<uint32_t>(runnable[k]));
  return runnable[k];
}

void Scheduler::hand_over(int self) {
  ++result_.decisions;
  const bool done = state_[self] == State::Done;
  pass_to(choose());
  if (!done) wait_turn(self);
}

bool Scheduler::available(const Lock& l, int self, bool shared) const {
  if (deadlock_) return true;
  if (l.writer != -1) return false;
  return shared || l.readers.empty() || (l.readers.size() == 1 && *l.readers.begin() == self);
}

void Scheduler::acquire(const void* m, int self, bool shared) {
  if (deadlock_) return;
  Lock& l = locks_[m];
  held_[self].push_back(m);
  if (shared) l.readers.insert(self);
  else l.writer = self;
}

void Scheduler::yield() {
  hand_over(t_actor);
}

void Scheduler::lock(const void* m, bool shared) {
  const int self = t_actor;
  for (const void* h : held_[self])  // the lock graph: m requested while h is held
    if (h != m) edges_.insert({h, m});
  hand_over(self);  // a preemption point before the acquire
  while (!available(locks_[m], self, shared)) {
    state_[self] = State::Waiting;
    waiting_on_[self] = m;
    hand_over(self);
  }
  waiting_on_[self] = nullptr;
  acquire(m, self, shared);
}

bool Scheduler::try_lock(const void* m, bool shared) {
  const int self = t_actor;
  hand_over(self);
  if (!available(locks_[m], self, shared)) return false;
  acquire(m, self, shared);
  return true;
}

void Scheduler::unlock(const void* m) {
  const int self = t_actor;
  Lock& l = locks_[m];
  if (auto it = std::find(held_[self].rbegin(), held_[self].rend(), m); it != held_[self].rend())
    held_[self].erase(std::next(it).base());
  if (l.writer == self) l.writer = -1;
  else if (auto it = l.readers.find(self); it != l.readers.end()) l.readers.erase(it);
  for (size_t i = 0; i < state_.size(); ++i)
    if (state_[i] == State::Waiting && waiting_on_[i] == m) state_[i] = State::Runnable;
  hand_over(self);  // a preemption point after the release
}

// A cycle in the lock graph by depth-first search (white, grey, black),
// reported as the locks on it in order.
void Scheduler::find_lock_cycle() {
  std::map<const void*, std::vector<const void*>> next;
  for (const auto& [a, b] : edges_) next[a].push_back(b);
  std::map<const void*, int> colour;
  std::vector<const void*> path;
  std::function<bool(const void*)> visit = [&](const void* v) {
    colour[v] = 1;
    path.push_back(v);
    for (const void* w : next[v]) {
      if (colour[w] == 1) {
        result_.lock_cycle.assign(std::find(path.begin(), path.end(), w), path.end());
        return true;
      }
      if (colour[w] == 0 && visit(w)) return true;
    }
    colour[v] = 2;
    path.pop_back();
    return false;
  };
  for (const auto& [v, _] : next)
    if (colour[v] == 0 && visit(v)) return;
}

}  // namespace pinsim::sched
