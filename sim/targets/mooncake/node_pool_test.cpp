// The node pool (node_pool.cpp): a cache-line block comes from it aligned, a
// freed block is the next one served, and larger or more aligned blocks
// still come from aligned_alloc.
#include <gtest/gtest.h>

#include <cstdint>
#include <new>

namespace {

struct alignas(64) Node {
  char bytes[64];
};
struct alignas(128) Wide {
  char bytes[256];
};

bool aligned_to(const void* p, uintptr_t a) { return reinterpret_cast<uintptr_t>(p) % a == 0; }

}  // namespace

TEST(NodePool, ServesAlignedBlocksAndReusesThem) {
#if !PINSIM_MOONCAKE_NODE_POOL
  GTEST_SKIP() << "configured without the node pool (-DPINSIM_MOONCAKE_NODE_POOL=OFF or a sanitizer build)";
#else
  Node* a = new Node;
  EXPECT_TRUE(aligned_to(a, 64));
  const uintptr_t first = reinterpret_cast<uintptr_t>(a);
  delete a;
  Node* b = new Node;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b), first);  // the free list gives it back first
  Wide* w = new Wide;
  EXPECT_TRUE(aligned_to(w, 128));
  Node* many = new Node[3];  // 192 bytes: aligned_alloc
  EXPECT_TRUE(aligned_to(many, 64));
  delete[] many;
  delete w;
  delete b;
#endif
}
