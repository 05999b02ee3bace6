// The explorer's visited set: a digest is new once, whatever the set's size,
// its growth and the empty-slot marker (the all-zero digest) in between.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "digest_set.h"
#include "prng.h"

namespace pinsim {

TEST(DigestSet, EachDigestIsNewOnceAcrossGrowth) {
  DigestSet set;
  std::set<std::pair<uint64_t, uint64_t>> reference;
  Prng p(7);
  for (int i = 0; i < 20'000; ++i) {
    // Few distinct values, so most inserts repeat one; equal low bits collide in the probe.
    const Digest d{(p.next() % 3000) << 12, p.next() % 2};
    EXPECT_EQ(set.insert(d), reference.insert({d.a, d.b}).second) << i;
  }
  EXPECT_EQ(set.size(), reference.size());
  EXPECT_GE(set.bytes(), 2 * reference.size() * sizeof(Digest));  // at most half full
}

TEST(DigestSet, TheAllZeroDigestIsAMemberLikeAnyOther) {
  DigestSet set;
  EXPECT_TRUE(set.insert(Digest{}));
  EXPECT_FALSE(set.insert(Digest{}));
  EXPECT_TRUE(set.insert(Digest{0, 1}));
  EXPECT_TRUE(set.insert(digest_of("state")));
  EXPECT_FALSE(set.insert(digest_of("state")));
  EXPECT_EQ(set.size(), 3u);
}

}  // namespace pinsim
