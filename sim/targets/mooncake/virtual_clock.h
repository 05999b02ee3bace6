// The virtual clock and the shortened sleeps of the Mooncake target.
// MasterService reads the time through system_clock::now() and sleeps in its
// background threads; a deterministic run needs the first to answer pinsim's
// virtual time and the second to end at once while a target stops those
// threads. virtual_clock.cpp defines clock_gettime and nanosleep for the
// whole process (so only executables built for the Mooncake target link it);
// this header is what the adapter and the friend access shim call.
#pragma once
#include <cstdint>

namespace pinsim::mooncake_clock {

// From now on CLOCK_REALTIME and CLOCK_REALTIME_COARSE answer the virtual
// time (every other clock, CLOCK_MONOTONIC included, stays real).
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
