// The model's objects, flat: entries in one vector (erase moves the last
// entry into the hole), a flat hash index from id to position (open
// addressing, linear probing), and key order as a sorted list of positions
// built only when someone iterates in order after a change. Lookups touch
// two cache lines instead of chasing tree nodes, and copying the table (the
// explorer copies models) is a copy of two vectors.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "object.h"

namespace pinsim {

class ObjectTable {
 public:
  struct Entry {
    ObjectId first;  // map-like names: callers read entry->first / ->second
    Object second;
  };

  // Key-order iteration (Views, scans, canonical encodings).
  template <typename E, typename T>
  class Ordered {
   public:
    Ordered(T* table, size_t i) : table_(table), i_(i) {}
    E& operator*() const { return table_->entries_[table_->order_[i_]]; }
    E* operator->() const { return &**this; }
    Ordered& operator++() { ++i_; return *this; }
    bool operator==(const Ordered& o) const { return i_ == o.i_; }

   private:
    T* table_;
    size_t i_;
  };
  using iterator = Ordered<Entry, ObjectTable>;
  using const_iterator = Ordered<const Entry, const ObjectTable>;

  Entry* find(ObjectId id) {
    const uint32_t at = position(id);
    return at == kNone ? nullptr : &entries_[at];
  }
  const Entry* find(ObjectId id) const {
    const uint32_t at = position(id);
    return at == kNone ? nullptr : &entries_[at];
  }
  bool contains(ObjectId id) const { return position(id) != kNone; }
  // Inserting may move every entry: pointers from find() do not survive it.
  Object& insert(ObjectId id, Object&& obj) {
    Object& stored = insert(id);
    stored = std::move(obj);
    return stored;
  }
  // A default object, for the caller to fill in place (no 400-byte move).
  Object& insert(ObjectId id) {
    entries_.emplace_back().first = id;
    index(id, static_cast<uint32_t>(entries_.size() - 1));
    order_valid_ = false;
    return entries_.back().second;
  }
  // Erasing moves the last entry into the hole: only pointers to the erased
  // entry and to the last one go stale.
  void erase(Entry* e) {
    const uint32_t at = static_cast<uint32_t>(e - entries_.data());
    unindex(e->first);
    const uint32_t last = static_cast<uint32_t>(entries_.size() - 1);
    if (at != last) {
      slots_[slot_of(entries_[last].first)].at = at;
      entries_[at] = std::move(entries_[last]);
    }
    entries_.pop_back();
    order_valid_ = false;
  }
  // Entries in storage order (no order: for what does not depend on one).
  std::vector<Entry>& unordered() { return entries_; }
  const std::vector<Entry>& unordered() const { return entries_; }
  iterator begin() { sort(); return {this, 0}; }
  iterator end() { return {this, entries_.size()}; }
  const_iterator begin() const { sort(); return {this, 0}; }
  const_iterator end() const { return {this, entries_.size()}; }
  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Slot {
    ObjectId id;
    uint32_t at = kNone;  // position in entries_, kNone: empty
  };
  static uint64_t hash(ObjectId id) { return (uint64_t{id.tenant} << 32 | id.key) * 0x9e3779b97f4a7c15ull; }
  size_t home(ObjectId id) const { return static_cast<size_t>(hash(id) >> shift_); }
  size_t mask() const { return slots_.size() - 1; }

  void sort() const {
    if (order_valid_) return;
    order_.resize(entries_.size());
    for (uint32_t i = 0; i < order_.size(); ++i) order_[i] = i;
    std::sort(order_.begin(), order_.end(),
              [&](uint32_t a, uint32_t b) { return entries_[a].first < entries_[b].first; });
    order_valid_ = true;
  }
  uint32_t position(ObjectId id) const {
    if (slots_.empty()) return kNone;
    for (size_t i = home(id);; i = (i + 1) & mask()) {
      const Slot& s = slots_[i];
      if (s.at == kNone || s.id == id) return s.at;
    }
  }
  size_t slot_of(ObjectId id) const {  // id is present
    size_t i = home(id);
    while (slots_[i].id != id || slots_[i].at == kNone) i = (i + 1) & mask();
    return i;
  }
  void index(ObjectId id, uint32_t at) {
    if (2 * entries_.size() > slots_.size()) {
      rebuild(std::max<size_t>(16, slots_.size() * 2));
      return;  // rebuild() indexed every entry, this one included
    }
    size_t i = home(id);
    while (slots_[i].at != kNone) i = (i + 1) & mask();
    slots_[i] = {id, at};
  }
  // Backward-shift deletion: later entries of the probe run move up, so a
  // lookup never stops early at a hole.
  void unindex(ObjectId id) {
    size_t i = slot_of(id);
    for (size_t j = (i + 1) & mask(); slots_[j].at != kNone; j = (j + 1) & mask()) {
      const size_t h = home(slots_[j].id);
      if (((j - h) & mask()) >= ((j - i) & mask())) {  // j's home is not in (i, j]
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i].at = kNone;
  }
  void rebuild(size_t capacity) {
    slots_.assign(capacity, Slot{});
    shift_ = 64 - std::countr_zero(capacity);
    for (uint32_t at = 0; at < entries_.size(); ++at) {
      size_t i = home(entries_[at].first);
      while (slots_[i].at != kNone) i = (i + 1) & mask();
      slots_[i] = {entries_[at].first, at};
    }
  }

  std::vector<Entry> entries_;
  std::vector<Slot> slots_;  // a power of two, at most half full
  int shift_ = 64;
  mutable std::vector<uint32_t> order_;  // positions in key order, when order_valid_
  mutable bool order_valid_ = true;
};

}  // namespace pinsim
