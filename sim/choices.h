// Choices: the one interface through which a workload makes every decision.
// Three sources serve it (DESIGN.md "The run"): a seeded PRNG for campaigns,
// an exhaustive odometer for the bounded explorer (a later issue), and replay
// from a trace (which bypasses choice-making and feeds recorded ops).
#pragma once
#include <cstdint>

#include "prng.h"

namespace pinsim {

class Choices {
 public:
  virtual ~Choices() = default;
  // A value in [0, n); n >= 1.
  virtual uint64_t pick(uint64_t n) = 0;
  bool chance(uint32_t percent) { return pick(100) < percent; }
};

class RandomChoices final : public Choices {
 public:
  explicit RandomChoices(uint64_t seed) : prng_(seed) {}
  uint64_t pick(uint64_t n) override { return prng_.below(n); }

 private:
  Prng prng_;
};

}  // namespace pinsim
