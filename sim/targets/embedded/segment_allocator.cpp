// Segments, their allocators and the preferred-segment walk (segment_allocator.h).
#include "segment_allocator.h"

#include "view.h"

#include <algorithm>

namespace pinsim::embedded {

SegmentAllocators::SegmentAllocators(const std::vector<SegmentConfig>& segments) {
  for (uint32_t s = 0; s < segments.size(); ++s) {  // mounted in config order
    segments_.push_back({segments[s].kind, segments[s].capacity});
    (segments[s].kind == ReplicaKind::Memory ? memory_ : nof_).push_back(s);
  }
}

PreferredSegments SegmentAllocators::most_free_first() const {
  auto by_free = [this](std::vector<uint32_t> order) {
    std::stable_sort(order.begin(), order.end(), [this](uint32_t a, uint32_t b) {
      return segments_[a].capacity - segments_[a].used > segments_[b].capacity - segments_[b].used;
    });
    return order;
  };
  return {by_free(memory_), by_free(nof_)};
}

bool SegmentAllocators::allocate_single(uint32_t segment, uint64_t size) {
  Segment& s = segments_[segment];
  if (s.capacity - s.used < size) return false;
  s.used += size;
  return true;
}

std::vector<uint32_t> SegmentAllocators::allocate(ReplicaKind kind, uint64_t size, uint32_t count,
                                                  const std::vector<uint32_t>& preferred) {
  std::vector<uint32_t> used;
  if (count == 0 || names(kind).empty()) return used;
  auto walk = [&](const std::vector<uint32_t>& order) {
    for (uint32_t segment : order) {
      if (used.size() == count) break;
      const SegmentRecord& r = segments_[segment].record;
      const bool mounted_here = segments_[segment].kind == kind && r.mounted && !r.leaving;
      if (!mounted_here || std::find(used.begin(), used.end(), segment) != used.end()) continue;
      if (allocate_single(segment, size)) used.push_back(segment);
    }
  };
  walk(preferred);
  walk(names(kind));  // the mounted segments the request did not list (mounted since it began)
  return used;
}

bool SegmentAllocators::allocate_each(const std::vector<uint32_t>& segments, uint64_t size) {
  for (uint32_t s : segments)
    if (segments_[s].capacity - segments_[s].used < size) return false;
  for (uint32_t s : segments) segments_[s].used += size;
  return true;
}

void SegmentAllocators::release(uint32_t segment, uint64_t size) {
  if (segment == kNoSegment) return;  // a disk replica: a file, in no segment
  if (segments_[segment].record.mounted) segments_[segment].used -= size;
}

bool SegmentAllocators::unmount(uint32_t segment) {
  Segment& s = segments_[segment];
  if (!s.record.mounted) return false;
  std::vector<uint32_t>& list = s.kind == ReplicaKind::Memory ? memory_ : nof_;
  if (!s.record.leaving) list.erase(std::find(list.begin(), list.end(), segment));  // a leaving one left already
  s.record = {false, false, 0};
  s.used = 0;
  return true;
}

bool SegmentAllocators::mount(uint32_t segment, ClientId owner) {
  Segment& s = segments_[segment];
  if (s.record.mounted) return false;
  s.record = {true, false, owner};
  s.used = 0;
  std::vector<uint32_t>& list = s.kind == ReplicaKind::Memory ? memory_ : nof_;
  list.insert(std::lower_bound(list.begin(), list.end(), segment), segment);
  return true;
}

void SegmentAllocators::start_leaving(uint32_t segment) {
  Segment& s = segments_[segment];
  if (!s.record.mounted || s.record.leaving) return;
  std::vector<uint32_t>& list = s.kind == ReplicaKind::Memory ? memory_ : nof_;
  list.erase(std::find(list.begin(), list.end(), segment));
  s.record.leaving = true;
}

bool SegmentAllocators::allocatable(uint32_t segment) const {
  const std::vector<uint32_t>& list = names(segments_[segment].kind);
  return std::find(list.begin(), list.end(), segment) != list.end();
}

uint64_t SegmentAllocators::memory_capacity() const {
  uint64_t bytes = 0;
  for (const Segment& s : segments_)
    if (s.kind == ReplicaKind::Memory && s.record.mounted) bytes += s.capacity;
  return bytes;
}

void SegmentAllocators::set_records(const std::vector<SegmentRecord>& records) {
  for (uint32_t s = 0; s < segments_.size(); ++s) {
    unmount(s);
    if (!records[s].mounted) continue;
    mount(s, records[s].owner);
    if (records[s].leaving) start_leaving(s);
  }
}

std::vector<SegmentRecord> SegmentAllocators::records() const {
  std::vector<SegmentRecord> out;
  for (const Segment& s : segments_) out.push_back(s.record);
  return out;
}

void SegmentAllocators::hold(uint32_t segment, uint64_t size) {
  if (segment != kNoSegment) segments_[segment].used += size;
}

void SegmentAllocators::clear() {
  for (Segment& s : segments_) s.used = 0;
}

void SegmentAllocators::mount_states(std::vector<uint8_t>* out) const {
  out->clear();
  for (const Segment& s : segments_)
    if (s.kind == ReplicaKind::Memory)
      out->push_back(!s.record.mounted ? kUnmounted : s.record.leaving ? kLeaving : kMounted);
}

void SegmentAllocators::memory_used(std::vector<uint64_t>* out) const {
  out->clear();
  for (const Segment& s : segments_)
    if (s.kind == ReplicaKind::Memory) out->push_back(s.used);
}

}  // namespace pinsim::embedded
