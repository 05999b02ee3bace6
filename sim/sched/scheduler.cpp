// The deterministic scheduler; see scheduler.h.
#include "scheduler.h"

#include <algorithm>

namespace pinsim::sched {

namespace {

thread_local int t_actor = -1;

}  // namespace

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
  cond_seq_.assign(bodies_.size(), 0);
  held_.assign(bodies_.size(), {});
  for (size_t i = 0; i < bodies_.size(); ++i) threads_.emplace_back([this, i] { actor_main(static_cast<int>(i)); });
  pass_to(choose());
  wait_turn(-1);
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  find_lock_cycle();
  result_.lock_edges = edges_.size();
  return result_;
}

void Scheduler::actor_main(int self) {
  t_controlling_ = this;
  t_actor = self;
  wait_turn(self);
  bodies_[self]();
  state_[self] = State::Done;
  t_controlling_ = nullptr;
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
  const int running = running_.load();
  const int current = running >= 0 && state_[running] == State::Runnable ? running : -1;
  const int next = policy_.choose(runnable, current);
  result_.preemptions += current >= 0 && next != current;
  result_.schedule.push_back(static_cast<uint32_t>(next));
  return next;
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
  if (observer_) observer_(self, m);
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

void Scheduler::release(const void* m, int self) {
  Lock& l = locks_[m];
  if (auto it = std::find(held_[self].rbegin(), held_[self].rend(), m); it != held_[self].rend())
    held_[self].erase(std::next(it).base());
  if (l.writer == self) l.writer = -1;
  else if (auto it = l.readers.find(self); it != l.readers.end()) l.readers.erase(it);
  for (size_t i = 0; i < state_.size(); ++i)
    if (state_[i] == State::Waiting && waiting_on_[i] == m) state_[i] = State::Runnable;
}

void Scheduler::unlock(const void* m) {
  release(m, t_actor);
  hand_over(t_actor);  // a preemption point after the release
}

// An untimed wait blocks (Waiting) until a signal; a timed one stays runnable,
// so it is a yield point that may return before any signal. Either way the
// mutex is released first and retaken (a lock, with its preemption point).
bool Scheduler::cond_wait(const void* cv, const void* m, bool timed) {
  const int self = t_actor;
  release(m, self);
  cond_seq_[self] = ++cond_clock_;
  waiting_on_[self] = cv;
  if (!timed && !deadlock_) state_[self] = State::Waiting;
  hand_over(self);
  const bool signalled = cond_seq_[self] == 0;
  cond_seq_[self] = 0;
  waiting_on_[self] = nullptr;
  lock(m, false);
  return signalled;
}

// Wakes the longest-waiting actor on cv (all of them with `all`).
void Scheduler::cond_signal(const void* cv, bool all) {
  const int self = t_actor;
  for (;;) {
    int first = -1;
    for (size_t i = 0; i < state_.size(); ++i)
      if (waiting_on_[i] == cv && cond_seq_[i] != 0 && (first < 0 || cond_seq_[i] < cond_seq_[first]))
        first = static_cast<int>(i);
    if (first < 0) break;
    cond_seq_[first] = 0;
    if (state_[first] == State::Waiting) state_[first] = State::Runnable;
    if (!all) break;
  }
  hand_over(self);
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
