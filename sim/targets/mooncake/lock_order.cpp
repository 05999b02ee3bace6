// The pthread lock calls of the code linked into a Mooncake executable
// (MasterService, its libraries, the adapter), as scheduling points of the
// deterministic scheduler (sim/sched), and the lock graph of a schedule edge
// by edge: an edge a -> b when an actor requested b while it held a (the
// scheduler's own definition; sim/sched keeps the same graph but reports only
// a cycle). Every executable linked with the Mooncake target is linked with
// -Wl,--wrap=<each pthread lock call>, so those calls reach these wrappers:
// on an actor's thread they note the edge and go to the scheduler; on any
// other thread they are libc's. Calls made from shared libraries are not
// wrapped: they take the real lock, as they should. glog's first pass over a
// VLOG site, for one, takes its module lock once per process; were that a
// scheduling point, the first schedule of a process would differ from the
// same seed's schedule later in it. No such critical section calls back into
// the wrapped code, so an actor is never switched out holding a real lock.
#include "lock_order.h"

#include <pthread.h>

#include <algorithm>
#include <cerrno>
#include <set>

#include "scheduler.h"

namespace {

using pinsim::sched::Scheduler;

std::set<std::pair<const void*, const void*>> g_edges;  // touched by the running actor only
thread_local std::vector<const void*> t_held;

void requested(const void* lock) {
  for (const void* h : t_held)
    if (h != lock) g_edges.insert({h, lock});
}

void released(const void* lock) {
  if (auto it = std::find(t_held.rbegin(), t_held.rend(), lock); it != t_held.rend())
    t_held.erase(std::next(it).base());
}

// A lock (a try when `attempt`) on an actor's thread: true when taken.
bool take(Scheduler& s, const void* lock, bool shared, bool attempt) {
  if (attempt) {
    if (!s.try_lock(lock, shared)) return false;  // a try never waits: no edge
  } else {
    requested(lock);
    s.lock(lock, shared);
  }
  t_held.push_back(lock);
  return true;
}

}  // namespace

namespace pinsim::mooncake_lane {

void clear_lock_edges() {
  g_edges.clear();
  t_held.clear();
}

std::vector<std::pair<const void*, const void*>> lock_edges() { return {g_edges.begin(), g_edges.end()}; }

}  // namespace pinsim::mooncake_lane

extern "C" {

int __real_pthread_mutex_lock(pthread_mutex_t* m);
int __real_pthread_mutex_trylock(pthread_mutex_t* m);
int __real_pthread_mutex_unlock(pthread_mutex_t* m);
int __real_pthread_rwlock_rdlock(pthread_rwlock_t* l);
int __real_pthread_rwlock_wrlock(pthread_rwlock_t* l);
int __real_pthread_rwlock_tryrdlock(pthread_rwlock_t* l);
int __real_pthread_rwlock_trywrlock(pthread_rwlock_t* l);
int __real_pthread_rwlock_unlock(pthread_rwlock_t* l);

int __wrap_pthread_mutex_lock(pthread_mutex_t* m) {
  if (Scheduler* s = Scheduler::controlling()) return take(*s, m, false, false), 0;
  return __real_pthread_mutex_lock(m);
}

int __wrap_pthread_mutex_trylock(pthread_mutex_t* m) {
  if (Scheduler* s = Scheduler::controlling()) return take(*s, m, false, true) ? 0 : EBUSY;
  return __real_pthread_mutex_trylock(m);
}

int __wrap_pthread_mutex_unlock(pthread_mutex_t* m) {
  if (Scheduler* s = Scheduler::controlling()) return released(m), s->unlock(m), 0;
  return __real_pthread_mutex_unlock(m);
}

int __wrap_pthread_rwlock_rdlock(pthread_rwlock_t* l) {
  if (Scheduler* s = Scheduler::controlling()) return take(*s, l, true, false), 0;
  return __real_pthread_rwlock_rdlock(l);
}

int __wrap_pthread_rwlock_wrlock(pthread_rwlock_t* l) {
  if (Scheduler* s = Scheduler::controlling()) return take(*s, l, false, false), 0;
  return __real_pthread_rwlock_wrlock(l);
}

int __wrap_pthread_rwlock_tryrdlock(pthread_rwlock_t* l) {
  if (Scheduler* s = Scheduler::controlling()) return take(*s, l, true, true) ? 0 : EBUSY;
  return __real_pthread_rwlock_tryrdlock(l);
}

int __wrap_pthread_rwlock_trywrlock(pthread_rwlock_t* l) {
  if (Scheduler* s = Scheduler::controlling()) return take(*s, l, false, true) ? 0 : EBUSY;
  return __real_pthread_rwlock_trywrlock(l);
}

int __wrap_pthread_rwlock_unlock(pthread_rwlock_t* l) {
  if (Scheduler* s = Scheduler::controlling()) return released(l), s->unlock(l), 0;
  return __real_pthread_rwlock_unlock(l);
}

}  // extern "C"
