// Threads run inline on the thread that starts them (inline_threads.cpp): on
// an actor of the deterministic scheduler always, and on any thread inside an
// InlineThreads scope. The sequential lane opens one around BatchEvict, which
// starts sixteen census threads (and as many collectors) per call and joins
// them before it returns: run one after another on the caller they scan the
// same disjoint shards into the same slots, without a clone, a stack mapped
// and unmapped and its pages faulted in, per thread.
#pragma once
#include <cstdint>

namespace pinsim::mooncake_lane {

// While one is alive on a thread, the threads that thread starts run to their
// end inside pthread_create. Use it only around calls that join every thread
// they start before returning (a thread that waits for its parent would hang).
// PINSIM_MOONCAKE_REAL_THREADS=1 turns the scopes off (real threads, for comparison).
class InlineThreads {
 public:
  InlineThreads();
  ~InlineThreads();
  InlineThreads(const InlineThreads&) = delete;
  InlineThreads& operator=(const InlineThreads&) = delete;

 private:
  bool previous_;
};

}  // namespace pinsim::mooncake_lane
