// SmallVector (model/small_vector.h), the list an object keeps its replicas
// and a Pending its eligible ids in: the same values as std::vector through
// growth past the inline capacity, erasure, copies and moves either way
// between inline and heap storage.
#include "small_vector.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace pinsim {
namespace {

using Small = SmallVector<uint64_t, 3>;

std::vector<uint64_t> values(const Small& v) { return {v.begin(), v.end()}; }

Small of(std::initializer_list<uint64_t> xs) {
  Small v;
  for (uint64_t x : xs) v.push_back(x);
  return v;
}

TEST(SmallVector, GrowsPastItsInlineCapacityKeepingOrder) {
  Small v;
  std::vector<uint64_t> expected;
  for (uint64_t i = 0; i < 20; ++i) {
    v.push_back(i * 7);
    expected.push_back(i * 7);
    ASSERT_EQ(values(v), expected);
  }
  EXPECT_EQ(v.front(), 0u);
  EXPECT_EQ(*(v.end() - 1), 133u);
  EXPECT_EQ(*(v.begin() + 5), 35u);
}

TEST(SmallVector, PushBackOfItsOwnElementWhileGrowing) {
  Small v = of({1, 2, 3});
  v.push_back(v.front());  // the element is read before the storage moves
  EXPECT_EQ(values(v), (std::vector<uint64_t>{1, 2, 3, 1}));
}

TEST(SmallVector, EraseARangeOrOneValue) {
  for (const size_t n : {size_t{3}, size_t{6}}) {  // inline, then heap
    Small v;
    for (uint64_t i = 0; i < n; ++i) v.push_back(i);
    v.erase(v.begin() + 1, v.begin() + 2);
    std::vector<uint64_t> expected;
    for (uint64_t i = 0; i < n; ++i)
      if (i != 1) expected.push_back(i);
    EXPECT_EQ(values(v), expected);
    v.erase(v.begin(), v.begin() + 2);
    expected.erase(expected.begin(), expected.begin() + 2);
    EXPECT_EQ(values(v), expected);
    v.erase(v.begin(), v.end());
    EXPECT_TRUE(v.empty());
  }
  Small w = of({5, 6, 7, 8, 9});
  EXPECT_EQ(erase_if(w, [](uint64_t x) { return x % 2 == 0; }), 2u);
  EXPECT_EQ(values(w), (std::vector<uint64_t>{5, 7, 9}));
}

TEST(SmallVector, CopiesAndMovesBetweenInlineAndHeap) {
  const Small inline_values = of({1, 2});
  const Small heap_values = of({1, 2, 3, 4, 5});
  Small a = heap_values;  // heap into a new one
  EXPECT_EQ(values(a), values(heap_values));
  a = inline_values;  // inline into one on the heap
  EXPECT_EQ(values(a), (std::vector<uint64_t>{1, 2}));
  Small b = inline_values;
  b = heap_values;  // heap into an inline one
  EXPECT_EQ(values(b), values(heap_values));
  Small shrunk = of({1, 2, 3, 4});
  shrunk.erase(shrunk.begin() + 1, shrunk.end());  // on the heap with one value
  Small c = of({9, 9});
  c = shrunk;
  EXPECT_EQ(values(c), (std::vector<uint64_t>{1}));
  Small moved = std::move(b);  // takes the heap buffer
  EXPECT_EQ(values(moved), values(heap_values));
  EXPECT_TRUE(b.empty());  // NOLINT(bugprone-use-after-move): a moved-from list is empty
  Small d = of({7});
  d = std::move(a);  // inline values
  EXPECT_EQ(values(d), (std::vector<uint64_t>{1, 2}));
  Small e(heap_values.begin() + 1, heap_values.begin() + 3);
  EXPECT_EQ(values(e), (std::vector<uint64_t>{2, 3}));
  EXPECT_NE(values(e), values(heap_values));
}

}  // namespace
}  // namespace pinsim
