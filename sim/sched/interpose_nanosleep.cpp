// nanosleep as a yield for an actor's thread (the standard library's thread
// sleeps reach it), apart from interpose.cpp because the Mooncake target
// defines its own nanosleep (its virtual clock, virtual_clock.cpp, which
// yields on an actor's thread too): a program linked with that target leaves
// this file out.
#include <ctime>
#include <dlfcn.h>

#include "scheduler.h"

extern "C" int nanosleep(const timespec* req, timespec* rem) {
  if (pinsim::sched::Scheduler* s = pinsim::sched::Scheduler::interposing()) return s->yield(), 0;
  using Fn = int (*)(const timespec*, timespec*);
  static const Fn f = [] {
    void* p = dlsym(RTLD_NEXT, "nanosleep");
    Fn out;
    __builtin_memcpy(&out, &p, sizeof p);
    return out;
  }();
  return f(req, rem);
}
