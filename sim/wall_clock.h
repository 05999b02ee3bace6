// Seconds of real elapsed time, for figures (rates, progress, budgets), never
// for outcomes. Read from CLOCK_MONOTONIC_RAW, which no target virtualises:
// the Mooncake target answers CLOCK_REALTIME and CLOCK_MONOTONIC (so
// std::chrono's system_clock and steady_clock) with its virtual time in the
// process it runs in (sim/targets/mooncake/virtual_clock.h).
#pragma once
#include <time.h>

namespace pinsim {

// Real seconds since an arbitrary fixed instant (the boot, roughly).
inline double wall_seconds() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// A stopwatch started at construction (or restart()).
class WallClock {
 public:
  WallClock() : start_(wall_seconds()) {}
  void restart() { start_ = wall_seconds(); }
  double seconds() const { return wall_seconds() - start_; }

 private:
  double start_;
};

}  // namespace pinsim
