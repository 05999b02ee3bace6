// Routes the pthread mutex and rwlock calls of an actor's thread to the
// scheduler that runs it (scheduler.h), so unmodified code that locks through
// std::mutex, std::shared_mutex or pthread directly is scheduled at each lock
// and unlock. Every other thread, and the scheduler's own bookkeeping, get
// the real functions (found with dlsym(RTLD_NEXT)). Linked into test
// executables only, as the Mooncake target's virtual clock is: defining these
// symbols in a program overrides libc's for the whole process.
#include <cerrno>
#include <dlfcn.h>
#include <pthread.h>

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

}  // namespace

extern "C" {

int pthread_mutex_lock(pthread_mutex_t* m) noexcept {
  if (Scheduler* s = Scheduler::controlling()) return s->lock(m, false), 0;
  static const MutexFn f = real<MutexFn>("pthread_mutex_lock");
  return f(m);
}

int pthread_mutex_trylock(pthread_mutex_t* m) noexcept {
  if (Scheduler* s = Scheduler::controlling()) return s->try_lock(m, false) ? 0 : EBUSY;
  static const MutexFn f = real<MutexFn>("pthread_mutex_trylock");
  return f(m);
}

int pthread_mutex_unlock(pthread_mutex_t* m) noexcept {
  if (Scheduler* s = Scheduler::controlling()) return s->unlock(m), 0;
  static const MutexFn f = real<MutexFn>("pthread_mutex_unlock");
  return f(m);
}

int pthread_rwlock_rdlock(pthread_rwlock_t* l) noexcept {
  if (Scheduler* s = Scheduler::controlling()) return s->lock(l, true), 0;
  static const RwFn f = real<RwFn>("pthread_rwlock_rdlock");
  return f(l);
}

int pthread_rwlock_wrlock(pthread_rwlock_t* l) noexcept {
  if (Scheduler* s = Scheduler::controlling()) return s->lock(l, false), 0;
  static const RwFn f = real<RwFn>("pthread_rwlock_wrlock");
  return f(l);
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t* l) noexcept {
  if (Scheduler* s = Scheduler::controlling()) return s->try_lock(l, true) ? 0 : EBUSY;
  static const RwFn f = real<RwFn>("pthread_rwlock_tryrdlock");
  return f(l);
}

int pthread_rwlock_trywrlock(pthread_rwlock_t* l) noexcept {
  if (Scheduler* s = Scheduler::controlling()) return s->try_lock(l, false) ? 0 : EBUSY;
  static const RwFn f = real<RwFn>("pthread_rwlock_trywrlock");
  return f(l);
}

int pthread_rwlock_unlock(pthread_rwlock_t* l) noexcept {
  if (Scheduler* s = Scheduler::controlling()) return s->unlock(l), 0;
  static const RwFn f = real<RwFn>("pthread_rwlock_unlock");
  return f(l);
}

}  // extern "C"
