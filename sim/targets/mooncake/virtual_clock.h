// The virtual clock and the shortened sleeps of the Mooncake target.
// MasterService reads the time through system_clock::now() (leases, soft-pin
// deadlines, retention) and steady_clock::now() (dynamic replication's heat
// windows and cooldowns, graceful unmounts' timers), and sleeps in its
// background threads; a deterministic run needs both clocks to answer
// pinsim's virtual time and the sleeps to end at once while a target stops
// those threads. virtual_clock.cpp defines clock_gettime and nanosleep for the
// whole process (so only executables built for the Mooncake target link it,
// and pinsim's own wall-time figures read CLOCK_MONOTONIC_RAW: sim/wall_clock.h);
// this header is what the adapter and the friend access shim call.
#pragma once
#include <cstdint>

namespace pinsim::mooncake_clock {

// The steady clock's reading at virtual time 0: never 0 (Mooncake takes a
// zero steady time_point for "unset"), and far past the real CLOCK_MONOTONIC
// (the time since boot), so that the absolute deadline a timed
// condition-variable wait derives from it is never reached in real time.
inline constexpr int64_t kSteadyBaseSeconds = 1'000'000'000;
// The steady clock saturates here (virtual times of about 95 years and more
// read the same), well below the 2^63 ns steady_clock can count, so that
// Mooncake may add its cooldowns and graces to any reading.
inline constexpr int64_t kSteadyMaxSeconds = 4'000'000'000;
// A delay, in ms, that no steady reading plus it ever reaches: a timer armed
// with it never expires, however far the virtual time moves.
inline constexpr uint64_t kBeyondSteadyMs = (kSteadyMaxSeconds - kSteadyBaseSeconds + 1) * 1000ull;

// From now on CLOCK_REALTIME and CLOCK_REALTIME_COARSE answer the virtual
// time, and CLOCK_MONOTONIC and CLOCK_MONOTONIC_COARSE kSteadyBaseSeconds
// plus it (saturating at kSteadyMaxSeconds); every other clock
// (CLOCK_MONOTONIC_RAW, CLOCK_BOOTTIME, ...) stays real.
void use_virtual_time();
// The virtual time, in ms after the epoch (process-wide: one target at a time,
// or several actors of one target sharing the same instant).
void set_virtual_ms(int64_t ms);

// While one of these lives, sleeps of 5 ms or more return at once (the
// client monitor's 1 s, job dispatch's 500 ms): a target that stops or
// destroys a MasterService need not wait for its threads to wake up.
class SleepsCut {
 public:
  SleepsCut();
  ~SleepsCut();
  SleepsCut(const SleepsCut&) = delete;
  SleepsCut& operator=(const SleepsCut&) = delete;
};

}  // namespace pinsim::mooncake_clock
