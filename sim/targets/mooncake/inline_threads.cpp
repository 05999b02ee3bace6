// Threads started by an actor of the deterministic scheduler (sim/sched), or
// inside an InlineThreads scope (inline_threads.h), run inline, on the
// starting thread. The scheduler runs its actors one at a
// time and knows nothing of threads an actor starts, yet Mooncake's BatchEvict
// starts sixteen census threads, each taking the locks of its shards. Left
// alone they would take the real mutexes, which the scheduler never takes for
// its actors, and could read a shard that another actor holds in the
// schedule: mutual exclusion broken, behaviour Mooncake cannot show. Here
// pthread_create called on an actor's thread runs the start routine to its
// end before it returns, so the child's locks are the actor's and are
// scheduled; pthread_join and pthread_detach of such a thread return at once.
// The children run in creation order: BatchEvict's scan disjoint shards into
// their own slots, so any order of them gives the same result, while other
// actors may still run at every lock a child takes. Every other thread, and
// every thread outside a schedule and a scope, gets libc's functions.
// Linked, with the scheduler's interposer, into the executables of the
// Mooncake target: defining these symbols overrides libc's for the process.
#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "inline_threads.h"
#include "scheduler.h"

namespace {

// Ids of inline threads: not a canonical address, so never a real pthread_t.
constexpr uint64_t kInlineTag = 0xf1f1'0000'0000'0000ull;
constexpr uint64_t kInlineMask = 0xffff'0000'0000'0000ull;
std::atomic<uint64_t> g_inline_threads{0};

thread_local bool t_in_scope = false;  // an InlineThreads scope is alive on this thread

bool scopes_enabled() {
  static const bool real = [] {
    const char* v = std::getenv("PINSIM_MOONCAKE_REAL_THREADS");
    return v && *v && std::string(v) != "0";
  }();
  return !real;
}

bool is_inline(pthread_t t) { return (static_cast<uint64_t>(t) & kInlineMask) == kInlineTag; }

using CreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
using JoinFn = int (*)(pthread_t, void**);
using DetachFn = int (*)(pthread_t);

}  // namespace

namespace pinsim::mooncake_lane {

// Threads run inline since the process started (for tests: BatchEvict under a
// schedule must add sixteen per census).
uint64_t inline_threads_run() { return g_inline_threads.load(std::memory_order_relaxed); }

InlineThreads::InlineThreads() : previous_(t_in_scope) { t_in_scope = scopes_enabled(); }
InlineThreads::~InlineThreads() { t_in_scope = previous_; }

}  // namespace pinsim::mooncake_lane

extern "C" {

int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*), void* arg) noexcept {
  if (t_in_scope || pinsim::sched::Scheduler::controlling()) {
    *thread = static_cast<pthread_t>(kInlineTag | (g_inline_threads.fetch_add(1) + 1));
    start(arg);
    return 0;
  }
  // libc's: the definition after this executable's own (looked up on first use,
  // which may come before this file's static initialisers have run).
  static const auto libc_create = reinterpret_cast<CreateFn>(dlsym(RTLD_NEXT, "pthread_create"));
  return libc_create(thread, attr, start, arg);
}

int pthread_join(pthread_t thread, void** result) {
  if (is_inline(thread)) {
    if (result) *result = nullptr;
    return 0;
  }
  static const auto libc_join = reinterpret_cast<JoinFn>(dlsym(RTLD_NEXT, "pthread_join"));
  return libc_join(thread, result);
}

int pthread_detach(pthread_t thread) noexcept {
  if (is_inline(thread)) return 0;
  static const auto libc_detach = reinterpret_cast<DetachFn>(dlsym(RTLD_NEXT, "pthread_detach"));
  return libc_detach(thread);
}

}  // extern "C"
