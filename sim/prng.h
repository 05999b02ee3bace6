// The seeded pseudo-random source of campaigns: xoshiro256** seeded through
// splitmix64. A fixed algorithm (not std::mt19937 + distributions, whose
// output differs between standard libraries), so a seed means the same run
// on every machine and compiler.
#pragma once
#include <cstdint>

namespace pinsim {

class Prng {
 public:
  explicit Prng(uint64_t seed) {
    for (uint64_t& w : s_) w = splitmix(seed);
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, n) by rejection (no modulo bias); n == 0 gives 0. The
  // rejected draws are those at or above UINT64_MAX - UINT64_MAX % n, which
  // is above UINT64_MAX - n: a draw at or below that is kept without the
  // division that finds the limit (the same draws kept, the same values).
  uint64_t below(uint64_t n) {
    if (n <= 1) return 0;
    uint64_t x = next();
    while (x > UINT64_MAX - n && x >= UINT64_MAX - UINT64_MAX % n) x = next();
    return x % n;
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitmix(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t s_[4];
};

}  // namespace pinsim
