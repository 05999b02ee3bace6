// nanosleep as a yield for an actor's thread (std::this_thread::sleep_for
// reaches it), apart from interpose.cpp because the Mooncake target defines
// its own nanosleep (its virtual clock's sliced sleeps): a program linked with
// that target leaves this file out, and its actors' nanosleeps really sleep.
#include <ctime>
#include <dlfcn.h>

#include "scheduler.h"

extern "C" int nanosleep(const timespec* req, timespec* rem) {
  if (pinsim::sched::Scheduler* s = pinsim::sched::Scheduler::controlling()) return s->yield(), 0;
  using Fn = int (*)(const timespec*, timespec*);
  static const Fn f = [] {
    void* p = dlsym(RTLD_NEXT, "nanosleep");
    Fn out;
    __builtin_memcpy(&out, &p, sizeof p);
    return out;
  }();
  return f(req, rem);
}
