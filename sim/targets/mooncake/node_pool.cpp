// A pool for small over-aligned blocks. MasterService's constructor fills a
// 128 Ki-entry lock-free client-ping queue, each node a 64-byte block aligned
// to a cache line (`operator new(size, align_val_t)`), and its destructor
// frees them one by one. Through glibc's memalign that was most of a
// master's construction and teardown, which a campaign pays for every
// configuration it has no kept master of (mooncake_target.cpp, "Masters kept
// for reuse"). Here the replaceable aligned `operator new` and `operator
// delete` serve blocks of at most 64 bytes and 64-byte alignment from one
// reserved region, reused through a free list and never returned to the
// system; larger or more aligned blocks go to aligned_alloc and free as
// before. Allocation is not observable to MasterService, and no outcome
// depends on an address. A spin lock, not a mutex: the concurrency lane
// schedules pthread lock calls, and a pool lock must not become a scheduling
// point. It is a source of each executable (like byte_vector.cpp); configure
// with -DPINSIM_MOONCAKE_NODE_POOL=OFF to leave it out (sanitizer builds do).
#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

constexpr std::size_t kBlock = 64;
constexpr std::size_t kRegion = std::size_t{1} << 32;  // address space only: pages are committed as touched

struct Pool {
  char* base = nullptr;
  char* next = nullptr;
  char* end = nullptr;
  void* free_list = nullptr;
  std::atomic_flag busy = ATOMIC_FLAG_INIT;

  Pool() {
    void* p = mmap(nullptr, kRegion, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return;  // every block then comes from aligned_alloc
    madvise(p, kRegion, MADV_HUGEPAGE);  // a fault per 2 MiB, not per 4 KiB page (a hint: no error if refused)
    base = next = static_cast<char*>(p);
    end = base + kRegion;
  }
  void lock() {
    while (busy.test_and_set(std::memory_order_acquire)) {
    }
  }
  void unlock() { busy.clear(std::memory_order_release); }
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: blocks may be freed during exit
  return *p;
}

void* take(std::size_t size, std::size_t align) {
  if (size > kBlock || align > kBlock) return nullptr;
  Pool& p = pool();
  p.lock();
  void* block = p.free_list;
  if (block) p.free_list = *static_cast<void**>(block);
  else if (p.next != p.end) block = p.next, p.next += kBlock;
  p.unlock();
  return block;
}

// Gives a pool block back (true), or says it is not one.
bool give(void* block) {
  Pool& p = pool();
  if (static_cast<char*>(block) < p.base || static_cast<char*>(block) >= p.end) return false;
  p.lock();
  *static_cast<void**>(block) = p.free_list;
  p.free_list = block;
  p.unlock();
  return true;
}

void* aligned(std::size_t size, std::align_val_t al) {
  if (void* block = take(size, static_cast<std::size_t>(al))) return block;
  const std::size_t a = static_cast<std::size_t>(al);
  const std::size_t rounded = size == 0 ? a : (size + a - 1) & ~(a - 1);  // aligned_alloc wants a multiple
  return std::aligned_alloc(a, rounded);
}

void release(void* block) noexcept {
  if (block && !give(block)) std::free(block);
}

}  // namespace

void* operator new(std::size_t size, std::align_val_t al) {
  if (void* block = aligned(size, al)) return block;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t al) { return operator new(size, al); }
void* operator new(std::size_t size, std::align_val_t al, const std::nothrow_t&) noexcept { return aligned(size, al); }
void* operator new[](std::size_t size, std::align_val_t al, const std::nothrow_t&) noexcept {
  return aligned(size, al);
}
void operator delete(void* block, std::align_val_t) noexcept { release(block); }
void operator delete[](void* block, std::align_val_t) noexcept { release(block); }
void operator delete(void* block, std::size_t, std::align_val_t) noexcept { release(block); }
void operator delete[](void* block, std::size_t, std::align_val_t) noexcept { release(block); }
void operator delete(void* block, std::align_val_t, const std::nothrow_t&) noexcept { release(block); }
void operator delete[](void* block, std::align_val_t, const std::nothrow_t&) noexcept { release(block); }
