// A vector of trivially copyable values that keeps its first N in the
// object itself, for the model's per-object lists (an object's replicas, a
// Pending's eligible ids): almost every object has at most N, so creating,
// copying (the explorer copies the whole model per transition) and erasing
// an object allocate nothing. Only what the model uses of std::vector's
// interface; iterators are pointers, and any growth or erase invalidates
// them, as std::vector's may.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>

namespace pinsim {

template <typename T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T> && N > 0);

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVector() = default;
  SmallVector(const T* first, const T* last) { append(first, static_cast<size_t>(last - first)); }
  SmallVector(const SmallVector& other) { copy_from(other); }
  SmallVector(SmallVector&& other) noexcept { take(other); }
  SmallVector& operator=(const SmallVector& other) {
    if (this != &other) copy_from(other);
    return *this;
  }
  SmallVector& operator=(SmallVector&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  ~SmallVector() { release(); }

  T* data() { return heap_ ? heap_ : inline_values(); }
  const T* data() const { return heap_ ? heap_ : inline_values(); }
  iterator begin() { return data(); }
  iterator end() { return data() + size_; }
  const_iterator begin() const { return data(); }
  const_iterator end() const { return data() + size_; }
  const_iterator cend() const { return end(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& front() { return data()[0]; }
  const T& front() const { return data()[0]; }

  void reserve(size_t n) {
    if (n > capacity_) grow(n);
  }
  void push_back(const T& value) {
    if (size_ == capacity_) {
      const T copy = value;  // `value` may be an element
      grow(capacity_ * 2);
      data()[size_++] = copy;
      return;
    }
    data()[size_++] = value;
  }
  // std::stable_partition without its heap buffer: the elements `keep`
  // accepts stay at the front in their order, the others follow in theirs.
  // `keep` is asked once of each element, in order. Returns the first other.
  template <typename Keep>
  iterator stable_partition(Keep keep) {
    SmallVector others;
    T* out = data();
    for (T* p = data(); p != end(); ++p) {
      if (keep(*p)) *out++ = *p;
      else others.push_back(*p);
    }
    std::copy(others.begin(), others.end(), out);
    return out;
  }
  iterator erase(const_iterator first, const_iterator last) {
    T* from = const_cast<T*>(first);
    const size_t gone = static_cast<size_t>(last - first);
    std::memmove(from, last, static_cast<size_t>(end() - last) * sizeof(T));
    size_ -= gone;
    return from;
  }

 private:
  T* inline_values() { return std::launder(reinterpret_cast<T*>(inline_)); }
  const T* inline_values() const { return std::launder(reinterpret_cast<const T*>(inline_)); }
  // Up to N values are copied as the whole inline buffer, a copy of a size
  // known at compile time (a heap buffer holds more than N: reading N is in it).
  void copy_from(const SmallVector& other) {
    if (other.size_ <= N && !heap_) {
      std::memcpy(inline_, other.data(), sizeof inline_);
      size_ = other.size_;
      return;
    }
    size_ = 0;
    append(other.data(), other.size_);
  }
  void append(const T* values, size_t n) {
    reserve(size_ + n);
    if (n) std::memcpy(data() + size_, values, n * sizeof(T));
    size_ += n;
  }
  void grow(size_t n) {
    T* bigger = static_cast<T*>(std::malloc(n * sizeof(T)));
    if (!bigger) throw std::bad_alloc();
    if (size_) std::memcpy(bigger, data(), size_ * sizeof(T));
    std::free(heap_);
    heap_ = bigger;
    capacity_ = n;
  }
  void release() {
    if (heap_) {
      std::free(heap_);
      heap_ = nullptr;
      capacity_ = N;
    }
    size_ = 0;
  }
  void take(SmallVector& other) {
    if (other.heap_) {
      heap_ = other.heap_;
      capacity_ = other.capacity_;
      other.heap_ = nullptr;
      other.capacity_ = N;
    } else {
      std::memcpy(inline_, other.inline_, sizeof inline_);
    }
    size_ = other.size_;
    other.size_ = 0;
  }

  T* heap_ = nullptr;  // the values when more than N
  uint32_t size_ = 0;
  uint32_t capacity_ = N;
  alignas(T) unsigned char inline_[N * sizeof(T)];
};

// std::erase_if's overload for it: erases every value `pred` holds for.
template <typename T, size_t N, typename Pred>
size_t erase_if(SmallVector<T, N>& v, Pred pred) {
  const auto kept = std::remove_if(v.begin(), v.end(), pred);
  const size_t gone = static_cast<size_t>(v.end() - kept);
  v.erase(kept, v.end());
  return gone;
}

}  // namespace pinsim
