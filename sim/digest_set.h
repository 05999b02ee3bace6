// A set of digests for the explorers' visited sets: one flat array, open
// addressing with linear probing, at most half full. A node-based set
// allocated a node per state and missed the cache twice per lookup; the
// explorer looks one up for every transition it checks. Deterministic: the
// slot of a digest depends on the digest alone.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "digest.h"

namespace pinsim {

class DigestSet {
 public:
  // Whether `d` was new (and is now in the set).
  bool insert(const Digest& d) {
    if (d == Digest{}) return !std::exchange(has_empty_, true);  // the slots' empty marker, kept aside
    if (2 * (size_ + 1) > slots_.size()) grow();
    Digest& slot = slots_[slot_of(d)];
    if (slot == d) return false;
    slot = d;
    ++size_;
    return true;
  }
  size_t size() const { return size_ + has_empty_; }
  // Bytes the set holds (its slots), for the explorer's memory cap.
  size_t bytes() const { return slots_.size() * sizeof(Digest); }

 private:
  // Where `d` is, or the empty slot where it would go (linear probing from its home).
  size_t slot_of(const Digest& d) const {
    size_t i = d.a & mask_;
    while (!(slots_[i] == d) && !(slots_[i] == Digest{})) i = (i + 1) & mask_;
    return i;
  }
  void grow() {
    std::vector<Digest> old = std::move(slots_);
    slots_.assign(old.empty() ? 1024 : 2 * old.size(), Digest{});
    mask_ = slots_.size() - 1;
    for (const Digest& d : old)
      if (!(d == Digest{})) slots_[slot_of(d)] = d;
  }

  std::vector<Digest> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;  // digests in slots_
  bool has_empty_ = false;
};

}  // namespace pinsim
