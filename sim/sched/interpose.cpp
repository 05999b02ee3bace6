// Routes the pthread mutex, rwlock and condition-variable calls and the
// sleeps of an actor's thread to the scheduler that runs it (scheduler.h), so
// unmodified code that locks through std::mutex, std::shared_mutex,
// std::condition_variable or pthread directly is scheduled at each lock,
// unlock, wait and signal, and a sleep is a yield (time is virtual; nanosleep,
// which the standard library's thread sleeps call, is in interpose_nanosleep.cpp).
// Every other thread, and the scheduler's own bookkeeping, get the real
// functions (found with dlsym(RTLD_NEXT)). Linked into executables only (the
// scheduler's tests and pinsim, for `run --actors`), never into a library:
// defining these symbols in a program overrides libc's for the whole process.
#include <cerrno>
#include <ctime>
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include "scheduler.h"

namespace {

using pinsim::sched::Scheduler;

template <typename F>
F real(const char* name) {
  static_assert(sizeof(F) == sizeof(void*));
  void* f = dlsym(RTLD_NEXT, name);
  F out;
  __builtin_memcpy(&out, &f, sizeof f);
  return out;
}

using MutexFn = int (*)(pthread_mutex_t*);
using RwFn = int (*)(pthread_rwlock_t*);
using CondFn = int (*)(pthread_cond_t*);
using CondWaitFn = int (*)(pthread_cond_t*, pthread_mutex_t*);
using CondTimedFn = int (*)(pthread_cond_t*, pthread_mutex_t*, const timespec*);
using CondClockFn = int (*)(pthread_cond_t*, pthread_mutex_t*, clockid_t, const timespec*);

}  // namespace

extern "C" {

int pthread_mutex_lock(pthread_mutex_t* m) noexcept {
  if (Scheduler* s = Scheduler::interposing()) return s->lock(m, false), 0;
  static const MutexFn f = real<MutexFn>("pthread_mutex_lock");
  return f(m);
}

int pthread_mutex_trylock(pthread_mutex_t* m) noexcept {
  if (Scheduler* s = Scheduler::interposing()) return s->try_lock(m, false) ? 0 : EBUSY;
  static const MutexFn f = real<MutexFn>("pthread_mutex_trylock");
  return f(m);
}

int pthread_mutex_unlock(pthread_mutex_t* m) noexcept {
  if (Scheduler* s = Scheduler::interposing()) return s->unlock(m), 0;
  static const MutexFn f = real<MutexFn>("pthread_mutex_unlock");
  return f(m);
}

int pthread_rwlock_rdlock(pthread_rwlock_t* l) noexcept {
  if (Scheduler* s = Scheduler::interposing()) return s->lock(l, true), 0;
  static const RwFn f = real<RwFn>("pthread_rwlock_rdlock");
  return f(l);
}

int pthread_rwlock_wrlock(pthread_rwlock_t* l) noexcept {
  if (Scheduler* s = Scheduler::interposing()) return s->lock(l, false), 0;
  static const RwFn f = real<RwFn>("pthread_rwlock_wrlock");
  return f(l);
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t* l) noexcept {
  if (Scheduler* s = Scheduler::interposing()) return s->try_lock(l, true) ? 0 : EBUSY;
  static const RwFn f = real<RwFn>("pthread_rwlock_tryrdlock");
  return f(l);
}

int pthread_rwlock_trywrlock(pthread_rwlock_t* l) noexcept {
  if (Scheduler* s = Scheduler::interposing()) return s->try_lock(l, false) ? 0 : EBUSY;
  static const RwFn f = real<RwFn>("pthread_rwlock_trywrlock");
  return f(l);
}

int pthread_rwlock_unlock(pthread_rwlock_t* l) noexcept {
  if (Scheduler* s = Scheduler::interposing()) return s->unlock(l), 0;
  static const RwFn f = real<RwFn>("pthread_rwlock_unlock");
  return f(l);
}

int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  if (Scheduler* s = Scheduler::interposing()) return s->cond_wait(c, m, false), 0;
  static const CondWaitFn f = real<CondWaitFn>("pthread_cond_wait");
  return f(c, m);
}

int pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m, const timespec* t) {
  if (Scheduler* s = Scheduler::interposing()) return s->cond_wait(c, m, true) ? 0 : ETIMEDOUT;
  static const CondTimedFn f = real<CondTimedFn>("pthread_cond_timedwait");
  return f(c, m, t);
}

int pthread_cond_clockwait(pthread_cond_t* c, pthread_mutex_t* m, clockid_t clock, const timespec* t) {
  if (Scheduler* s = Scheduler::interposing()) return s->cond_wait(c, m, true) ? 0 : ETIMEDOUT;
  static const CondClockFn f = real<CondClockFn>("pthread_cond_clockwait");
  return f(c, m, clock, t);
}

int pthread_cond_signal(pthread_cond_t* c) noexcept {
  if (Scheduler* s = Scheduler::interposing()) return s->cond_signal(c, false), 0;
  static const CondFn f = real<CondFn>("pthread_cond_signal");
  return f(c);
}

int pthread_cond_broadcast(pthread_cond_t* c) noexcept {
  if (Scheduler* s = Scheduler::interposing()) return s->cond_signal(c, true), 0;
  static const CondFn f = real<CondFn>("pthread_cond_broadcast");
  return f(c);
}

int clock_nanosleep(clockid_t clock, int flags, const timespec* t, timespec* rem) {
  if (Scheduler* s = Scheduler::interposing()) return s->yield(), 0;
  using Fn = int (*)(clockid_t, int, const timespec*, timespec*);
  static const Fn f = real<Fn>("clock_nanosleep");
  return f(clock, flags, t, rem);
}

int usleep(useconds_t us) {
  if (Scheduler* s = Scheduler::interposing()) return s->yield(), 0;
  using Fn = int (*)(useconds_t);
  static const Fn f = real<Fn>("usleep");
  return f(us);
}

unsigned sleep(unsigned seconds) {
  if (Scheduler* s = Scheduler::interposing()) return s->yield(), 0;
  using Fn = unsigned (*)(unsigned);
  static const Fn f = real<Fn>("sleep");
  return f(seconds);
}

}  // extern "C"
