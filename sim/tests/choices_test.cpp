// The three sources of choices: the seeded PRNG is fixed across machines, and
// the odometer enumerates every sequence of choices exactly once.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "choices.h"

namespace pinsim {

TEST(Choices, PrngIsAFixedAlgorithm) {
  RandomChoices c(42);
  // Pinned values: a change of algorithm would change every recorded seed.
  std::vector<uint64_t> got;
  for (int i = 0; i < 5; ++i) got.push_back(c.pick(1000));
  RandomChoices again(42);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(again.pick(1000), got[i]);
  Prng p(0);
  EXPECT_EQ(p.next(), 0x99ec5f36cb75f2b4ull);
}

// below() skips the division that finds the rejection limit when a draw is
// far from it: the values are those of the plain rejection loop, for small
// bounds and for bounds where about half the draws are rejected.
TEST(Choices, PrngBelowKeepsThePlainRejectionLoopsValues) {
  Prng fast(7), plain(7);
  const auto plain_below = [&](uint64_t n) {
    if (n <= 1) return uint64_t{0};
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do x = plain.next(); while (x >= limit);
    return x % n;
  };
  const uint64_t bounds[] = {0, 1, 2, 3, 7, 100, 1000, 1ull << 32, (1ull << 63) + 1, UINT64_MAX - 1, UINT64_MAX,
                             (UINT64_MAX / 3) * 2};
  for (int round = 0; round < 2000; ++round)
    for (uint64_t n : bounds) ASSERT_EQ(fast.below(n), plain_below(n)) << n << " in round " << round;
}

TEST(Choices, OdometerEnumeratesEverySequenceOnce) {
  // A run picks a in [0,3); if a == 0 it stops, else it picks b in [0, a+1).
  OdometerChoices o;
  std::set<std::vector<uint64_t>> seen;
  size_t runs = 0;
  do {
    std::vector<uint64_t> seq{o.pick(3)};
    if (seq[0] != 0) seq.push_back(o.pick(seq[0] + 1));
    EXPECT_TRUE(seen.insert(seq).second);
    ++runs;
  } while (o.next());
  EXPECT_EQ(runs, 1u + 2u + 3u);
}

}  // namespace pinsim
