// The virtual clock and the shortened sleeps (virtual_clock.h): definitions of
// clock_gettime and nanosleep that override libc's for the process the
// Mooncake target runs in. While the virtual clock is on, CLOCK_REALTIME and
// CLOCK_REALTIME_COARSE answer the virtual time (pinsim Time t is the instant
// t ms after the epoch), so every system_clock::now() inside MasterService
// reads it, and CLOCK_MONOTONIC and CLOCK_MONOTONIC_COARSE answer
// kSteadyBaseSeconds plus the virtual time, so every steady_clock::now()
// does too (dynamic replication's heat windows and cooldowns, graceful
// unmounts' deadlines). The base keeps steady time from being 0 and puts the
// absolute CLOCK_MONOTONIC deadline of a libstdc++ timed condition-variable
// wait far past the real monotonic time the kernel waits for: such a wait
// ends only when notified (the adapter's Quiesce notifies MasterService's
// threads). Every other clock (CLOCK_MONOTONIC_RAW, CLOCK_BOOTTIME, CPU
// clocks) goes to libc through dlsym(RTLD_NEXT); pinsim's own wall-time
// figures read CLOCK_MONOTONIC_RAW (sim/wall_clock.h), and the sliced sleeps
// below measure real time. The link options of the Mooncake target export
// both symbols so that libstdc++ and libc callers see them too. On an actor's
// thread (sim/sched) a sleep is a yield point instead.
#include "virtual_clock.h"

#include <dlfcn.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>

#include "scheduler.h"

namespace {

std::atomic<bool> g_virtual_clock{false};
std::atomic<int64_t> g_virtual_ms{0};
std::atomic<int> g_cut_sleeps{0};

using ClockGettimeFn = int (*)(clockid_t, struct timespec*);
using NanosleepFn = int (*)(const struct timespec*, struct timespec*);

ClockGettimeFn real_clock_gettime() {
  static ClockGettimeFn fn = reinterpret_cast<ClockGettimeFn>(dlsym(RTLD_NEXT, "clock_gettime"));
  return fn;
}

NanosleepFn real_nanosleep() {
  static NanosleepFn fn = reinterpret_cast<NanosleepFn>(dlsym(RTLD_NEXT, "nanosleep"));
  return fn;
}

int call_real_clock_gettime(clockid_t id, struct timespec* ts) {
  if (ClockGettimeFn fn = real_clock_gettime()) return fn(id, ts);
  return static_cast<int>(syscall(SYS_clock_gettime, id, ts));
}

int call_real_nanosleep(const struct timespec* req, struct timespec* rem) {
  if (NanosleepFn fn = real_nanosleep()) return fn(req, rem);
  return static_cast<int>(syscall(SYS_nanosleep, req, rem));
}

void set_ms(struct timespec* ts, int64_t ms) {
  ts->tv_sec = static_cast<time_t>(ms / 1000);
  ts->tv_nsec = static_cast<long>((ms % 1000) * 1'000'000);
}

// kSteadyBaseSeconds after the virtual time, saturating at kSteadyMaxSeconds.
void set_steady(struct timespec* ts, int64_t ms) {
  using pinsim::mooncake_clock::kSteadyBaseSeconds;
  using pinsim::mooncake_clock::kSteadyMaxSeconds;
  constexpr int64_t kMaxMs = (kSteadyMaxSeconds - kSteadyBaseSeconds) * 1000;
  set_ms(ts, std::clamp<int64_t>(ms, 0, kMaxMs));
  ts->tv_sec += static_cast<time_t>(kSteadyBaseSeconds);
}

}  // namespace

extern "C" int clock_gettime(clockid_t id, struct timespec* ts) {
  const bool realtime = id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE;
  const bool steady = id == CLOCK_MONOTONIC || id == CLOCK_MONOTONIC_COARSE;
  if ((realtime || steady) && g_virtual_clock.load(std::memory_order_acquire)) {
    const int64_t ms = g_virtual_ms.load(std::memory_order_acquire);
    if (realtime) set_ms(ts, ms);
    else set_steady(ts, ms);
    return 0;
  }
  return call_real_clock_gettime(id, ts);
}

extern "C" int nanosleep(const struct timespec* req, struct timespec* rem) {
  // On an actor of the deterministic scheduler a sleep is a yield point
  // (time is virtual there: a sleep only lets the other actors run).
  if (pinsim::sched::Scheduler::controlling()) {
    pinsim::sched::yield_point();
    return 0;
  }
  // Sleeps of 5 ms or more are taken in 1 ms slices so that a target that is
  // stopping MasterService's threads can cut them short.
  if (req && (req->tv_sec > 0 || req->tv_nsec >= 5'000'000)) {
    struct timespec start;
    call_real_clock_gettime(CLOCK_MONOTONIC, &start);
    const int64_t total_ns = static_cast<int64_t>(req->tv_sec) * 1'000'000'000 + req->tv_nsec;
    for (;;) {
      if (g_cut_sleeps.load(std::memory_order_acquire) > 0) return 0;
      struct timespec now;
      call_real_clock_gettime(CLOCK_MONOTONIC, &now);
      const int64_t elapsed =
          (static_cast<int64_t>(now.tv_sec) - start.tv_sec) * 1'000'000'000 + (now.tv_nsec - start.tv_nsec);
      if (elapsed >= total_ns) return 0;
      const int64_t slice = std::min<int64_t>(1'000'000, total_ns - elapsed);
      struct timespec s{0, static_cast<long>(slice)};
      call_real_nanosleep(&s, nullptr);
    }
  }
  return call_real_nanosleep(req, rem);
}

namespace pinsim::mooncake_clock {

void use_virtual_time() { g_virtual_clock.store(true, std::memory_order_release); }

void set_virtual_ms(int64_t ms) { g_virtual_ms.store(ms, std::memory_order_release); }

SleepsCut::SleepsCut() { g_cut_sleeps.fetch_add(1, std::memory_order_acq_rel); }

SleepsCut::~SleepsCut() { g_cut_sleeps.fetch_sub(1, std::memory_order_acq_rel); }

}  // namespace pinsim::mooncake_clock
