// The deterministic scheduler; see scheduler.h.
#include "scheduler.h"

namespace pinsim::sched {

namespace {

thread_local Scheduler* t_scheduler = nullptr;  // set on an actor's thread
thread_local int t_actor = -1;
thread_local int t_internal = 0;  // inside the scheduler's own bookkeeping

// While alive, the calling thread's locks are real ones (the scheduler's
// own mutex goes through the same pthread functions the interposer catches).
struct Internal {
  Internal() { ++t_internal; }
  ~Internal() { --t_internal; }
};

}  // namespace

Scheduler* Scheduler::controlling() { return t_internal ? nullptr : t_scheduler; }

void yield_point() {
  if (Scheduler* s = Scheduler::controlling()) s->yield();
}

RunResult Scheduler::run() {
  state_.assign(bodies_.size(), State::Runnable);
  waiting_on_.assign(bodies_.size(), nullptr);
  for (size_t i = 0; i < bodies_.size(); ++i) threads_.emplace_back([this, i] { actor_main(static_cast<int>(i)); });
  {
    Internal g;
    std::unique_lock lk(mu_);
    running_ = choose();
    turn_.notify_all();
    turn_.wait(lk, [&] { return running_ == -1; });
  }
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  return result_;
}

void Scheduler::actor_main(int self) {
  t_scheduler = this;
  t_actor = self;
  {
    Internal g;
    std::unique_lock lk(mu_);
    turn_.wait(lk, [&] { return running_ == self; });
  }
  bodies_[self]();
  Internal g;
  std::unique_lock lk(mu_);
  state_[self] = State::Done;
  hand_over(lk, self);
  t_scheduler = nullptr;
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
  const uint32_t k = static_cast<uint32_t>(choices_.pick(runnable.size()));
  result_.schedule.push_back(static_cast<uint32_t>(runnable[k]));
  return runnable[k];
}

void Scheduler::hand_over(std::unique_lock<std::mutex>& lk, int self) {
  ++result_.decisions;
  running_ = choose();
  turn_.notify_all();
  if (state_[self] != State::Done) turn_.wait(lk, [&] { return running_ == self; });
}

bool Scheduler::available(const Lock& l, int self, bool shared) const {
  if (deadlock_) return true;
  if (l.writer != -1) return false;
  return shared || l.readers.empty() || (l.readers.size() == 1 && *l.readers.begin() == self);
}

void Scheduler::acquire(Lock& l, int self, bool shared) {
  if (deadlock_) return;
  if (shared) l.readers.insert(self);
  else l.writer = self;
}

void Scheduler::yield() {
  Internal g;
  std::unique_lock lk(mu_);
  hand_over(lk, t_actor);
}

void Scheduler::lock(const void* m, bool shared) {
  Internal g;
  std::unique_lock lk(mu_);
  const int self = t_actor;
  hand_over(lk, self);  // a preemption point before the acquire
  while (!available(locks_[m], self, shared)) {
    state_[self] = State::Waiting;
    waiting_on_[self] = m;
    hand_over(lk, self);
  }
  waiting_on_[self] = nullptr;
  acquire(locks_[m], self, shared);
}

bool Scheduler::try_lock(const void* m, bool shared) {
  Internal g;
  std::unique_lock lk(mu_);
  const int self = t_actor;
  hand_over(lk, self);
  if (!available(locks_[m], self, shared)) return false;
  acquire(locks_[m], self, shared);
  return true;
}

void Scheduler::unlock(const void* m) {
  Internal g;
  std::unique_lock lk(mu_);
  const int self = t_actor;
  Lock& l = locks_[m];
  if (l.writer == self) l.writer = -1;
  else if (auto it = l.readers.find(self); it != l.readers.end()) l.readers.erase(it);
  for (size_t i = 0; i < state_.size(); ++i)
    if (state_[i] == State::Waiting && waiting_on_[i] == m) state_[i] = State::Runnable;
  hand_over(lk, self);  // a preemption point after the release
}

}  // namespace pinsim::sched
