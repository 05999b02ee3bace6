// What the Mooncake concurrency lane knows of a schedule beyond the
// scheduler's own result: the lock graph edge by edge (lock_order.cpp) and how
// many threads actors started inline (inline_threads.cpp).
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace pinsim::mooncake_lane {

// Forgets the edges noted so far (call before a schedule runs).
void clear_lock_edges();
// Every edge a -> b noted since: some actor requested b while it held a.
std::vector<std::pair<const void*, const void*>> lock_edges();

// Threads actors started and that ran inline, since the process started.
uint64_t inline_threads_run();

}  // namespace pinsim::mooncake_lane
