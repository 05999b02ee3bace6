// The embedded master's mounted segments, held the way Mooncake's master
// holds them: one allocator manager per replica kind (memory, NoF) with its
// segment names in mount order, a byte-counting allocator per segment, and
// the allocation strategy's walk for one request: the request's preferred
// segments in order, one replica per segment, until it has what it asked
// for. Guarded by the master's allocator mutex.
#pragma once
#include <cstdint>
#include <vector>

#include "config.h"
#include "object.h"
#include "op.h"

namespace pinsim::embedded {

// A segment as the segment manager records it (and SegmentSerializer
// writes it): mounted or not, leaving (GRACEFULLY_UNMOUNTING: its allocator
// has left the manager, its buffers are still valid) and the client that
// mounted it (the setup's client, never an actor: the model's kSetupClient).
struct SegmentRecord {
  bool mounted = true;
  bool leaving = false;
  ClientId owner = kSetupClient;
};

// ReplicateConfig's preferred_segments and preferred_nof_segments: where a
// request wants its replicas, in order (segment indices of the config).
struct PreferredSegments {
  std::vector<uint32_t> memory;
  std::vector<uint32_t> nof;
};

class SegmentAllocators {
 public:
  explicit SegmentAllocators(const std::vector<SegmentConfig>& segments);

  // The preferred lists pinsim's clients send (the Mooncake target's too):
  // every mounted segment of each kind, most free bytes first, the lower
  // index on ties.
  // A request fixes them when it begins; a batch's elements share its lists.
  PreferredSegments most_free_first() const;
  // AllocationStrategy::Allocate for one kind: up to `count` buffers of
  // `size` bytes on distinct segments, walking `preferred` in order. Fewer
  // (or none) when room runs out; the caller decides whether that is enough.
  // Mooncake then walks the remaining mounted segments from a random start;
  // here in index order. Every segment mounted when the request began is
  // preferred, so that walk finds only one mounted since (the random start
  // matters only with two of them, which one request's lifetime never sees
  // here: a mount is one op).
  std::vector<uint32_t> allocate(ReplicaKind kind, uint64_t size, uint32_t count,
                                 const std::vector<uint32_t>& preferred);
  // CopyStart's allocation: a buffer of `size` bytes on each of `segments`
  // (mounted ones the caller named), all of them or none.
  bool allocate_each(const std::vector<uint32_t>& segments, uint64_t size);
  // A buffer given back (freed, evicted, or a discarded replica released).
  // A buffer of an unmounted segment frees nothing: its allocator is gone
  // (AllocatedBuffer::isAllocatorValid).
  void release(uint32_t segment, uint64_t size);
  // PrepareUnmountSegment: the segment's allocator leaves its manager and
  // takes its buffers with it; false when it was not mounted.
  bool unmount(uint32_t segment);
  // MountSegment by `owner`: a new, empty allocator; false when it was mounted.
  bool mount(uint32_t segment, ClientId owner);
  // PrepareGracefulUnmountSegment: the allocator leaves its manager (nothing
  // new is placed there) and the buffers stay valid until the unmount.
  void start_leaving(uint32_t segment);
  const SegmentRecord& record(uint32_t segment) const { return segments_[segment].record; }
  // IsSegmentAllocatable: in its kind's manager (mounted, not leaving).
  bool allocatable(uint32_t segment) const;
  // QuerySegments: a segment's bytes allocated and its capacity.
  void query(uint32_t segment, uint64_t* used, uint64_t* capacity) const {
    *used = segments_[segment].used;
    *capacity = segments_[segment].capacity;
  }
  // GetTenantQuotaAllocatableCapacityBytes (GetAllSegments): the mounted
  // memory segments' bytes, leaving ones included.
  uint64_t memory_capacity() const;
  // Every segment's record (a snapshot's, put back by restore, which has
  // emptied every segment first).
  void set_records(const std::vector<SegmentRecord>& records);
  std::vector<SegmentRecord> records() const;
  // A buffer held again by restore; clear() empties every segment.
  void hold(uint32_t segment, uint64_t size);
  void clear();
  // Bytes allocated in each memory segment, in config order, 0 for an
  // unmounted one (View::memory_used), into `out` (emptied first: a View's buffer is reused).
  void memory_used(std::vector<uint64_t>* out) const;
  // Each memory segment's state, in config order (View::mounted), into `out` as above.
  void mount_states(std::vector<uint8_t>* out) const;

 private:
  struct Segment {
    ReplicaKind kind;
    uint64_t capacity;
    uint64_t used = 0;
    SegmentRecord record;
  };
  bool allocate_single(uint32_t segment, uint64_t size);  // BufferAllocator::allocate
  const std::vector<uint32_t>& names(ReplicaKind kind) const { return kind == ReplicaKind::Memory ? memory_ : nof_; }

  std::vector<Segment> segments_;
  std::vector<uint32_t> memory_;  // AllocatorManager::getNames() of each manager: mounted segments, by index
  std::vector<uint32_t> nof_;
};

}  // namespace pinsim::embedded
