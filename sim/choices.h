// Choices: the one interface through which a workload makes every decision.
// Three sources serve it: a seeded PRNG for campaigns, an exhaustive odometer
// for the bounded explorer (docs/explorer.md), and replay from a trace (which
// bypasses choice-making and feeds recorded ops).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "prng.h"

namespace pinsim {

class Choices {
 public:
  virtual ~Choices() = default;
  // A value in [0, n); n >= 1.
  virtual uint64_t pick(uint64_t n) = 0;
  // A biased coin. The exhaustive source takes both sides once.
  virtual bool chance(uint32_t percent) { return pick(100) < percent; }
  // An index drawn with the given weights; zero weights are never drawn.
  virtual size_t pick_weighted(std::span<const uint32_t> weights) {
    uint64_t total = 0;
    for (uint32_t w : weights) total += w;
    uint64_t r = pick(total);
    size_t i = 0;
    while (r >= weights[i]) r -= weights[i++];
    return i;
  }
};

class RandomChoices final : public Choices {
 public:
  explicit RandomChoices(uint64_t seed) : prng_(seed) {}
  uint64_t pick(uint64_t n) override { return prng_.below(n); }

 private:
  Prng prng_;
};

// The exhaustive source (as TigerBeetle's exhaustigen): each run records the
// choices it made; next() moves to the following run like an odometer, so
// repeated runs enumerate every sequence of choices exactly once.
class OdometerChoices final : public Choices {
 public:
  uint64_t pick(uint64_t n) override {
    if (pos_ == digits_.size()) digits_.push_back({0, n});
    Digit& d = digits_[pos_++];
    d.bound = n;
    if (d.value >= n) d.value = n ? n - 1 : 0;
    return d.value;
  }
  bool chance(uint32_t percent) override {
    if (percent == 0) return false;
    if (percent >= 100) return true;
    return pick(2) == 1;
  }
  size_t pick_weighted(std::span<const uint32_t> weights) override {
    uint64_t live = 0;  // each non-zero weight is one branch
    for (uint32_t w : weights) live += w > 0;
    uint64_t k = pick(live);
    size_t i = 0;
    for (;; ++i)
      if (weights[i] > 0 && k-- == 0) return i;
  }
  // Prepares the next run; false when every sequence has been produced.
  bool next() {
    digits_.resize(pos_);
    pos_ = 0;
    while (!digits_.empty() && digits_.back().value + 1 >= digits_.back().bound) digits_.pop_back();
    if (digits_.empty()) return false;
    ++digits_.back().value;
    return true;
  }

 private:
  struct Digit {
    uint64_t value;
    uint64_t bound;
  };
  std::vector<Digit> digits_;
  size_t pos_ = 0;
};

}  // namespace pinsim
