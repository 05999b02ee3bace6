// Virtual time. The model never reads a clock: every entry point takes `now`
// in virtual milliseconds since the start of a run. Deadline arithmetic
// saturates at kTimeMax instead of wrapping (RFC 3028 "Master configuration",
// rule C2; Mooncake's ComputeSoftPinDeadline saturates at time_point::max()).
#pragma once
#include <cstdint>
#include <limits>

namespace pinsim {

using Time = int64_t;
inline constexpr Time kTimeMax = std::numeric_limits<Time>::max();

// now + ttl, or kTimeMax when the sum is not representable (RFC 3028 C2).
// `now` is never negative in a valid run; a negative `now` is treated as 0
// headroom-wise so the arithmetic itself can never overflow.
constexpr Time saturating_deadline(Time now, uint64_t ttl_ms) {
  const uint64_t headroom = now >= 0 ? static_cast<uint64_t>(kTimeMax - now)
                                     : static_cast<uint64_t>(kTimeMax);
  if (ttl_ms > headroom) return kTimeMax;
  return static_cast<Time>(static_cast<uint64_t>(now) + ttl_ms);
}

}  // namespace pinsim
