// The soft-pin gauge (Mooncake's master_soft_pin_key_count): moved only by
// incremental deltas at the owning transitions (constructor with a deadline
// +1, destructor with a stored deadline -1, commit and lazy-expiry deltas,
// one aggregate decrement per expiry cycle), never recomputed; except that a
// restore rebuilds it with the rest of the metrics (snapshot.cpp).
#pragma once
#include <atomic>
#include <cstdint>

namespace pinsim::embedded {

class SoftPinGauge {
 public:
  SoftPinGauge() = default;
  SoftPinGauge(const SoftPinGauge& other) : value_(other.value()) {}  // EmbeddedMaster::clone
  SoftPinGauge& operator=(const SoftPinGauge&) = delete;
  void add(int64_t delta) {
    if (delta != 0) value_.fetch_add(delta, std::memory_order_relaxed);
  }
  int64_t value() const { return value_.load(std::memory_order_relaxed); }
  void rebuild(int64_t value) { value_.store(value, std::memory_order_relaxed); }
  // Fault F20 only: `delta` applied to a value read earlier, outside any
  // lock, and stored: a change made in between is lost.
  void store_from(int64_t read_earlier, int64_t delta) {
    value_.store(read_earlier + delta, std::memory_order_relaxed);
  }

 private:
  std::atomic<int64_t> value_{0};
};

}  // namespace pinsim::embedded
