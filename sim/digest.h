// A 128-bit digest of a byte string, for the explorer's visited set: storing
// digests instead of whole canonical states keeps about 50 bytes per state.
// Two independent 64-bit hashes; a collision would merge two distinct states
// (probability about n^2 / 2^129 for n states: negligible at any n the
// memory cap allows). Deterministic: no per-process seed.
#pragma once
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace pinsim {

struct Digest {
  uint64_t a = 0, b = 0;
  bool operator==(const Digest&) const = default;
};

namespace digest_detail {
inline uint64_t mix(uint64_t x) {  // splitmix64 finaliser
  x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27; x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
}  // namespace digest_detail

inline Digest digest_of(std::string_view bytes) {
  using digest_detail::mix;
  uint64_t a = 0x9e3779b97f4a7c15ull ^ bytes.size(), b = 0xc2b2ae3d27d4eb4full + bytes.size();
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, bytes.data() + i, 8);
    // One multiply per stream and word (each step is a bijection of the
    // stream's state for a fixed word); the finalisers below mix fully.
    a = std::rotl((a ^ w) * 0x9e3779b97f4a7c15ull, 31);
    b = std::rotl((b + w) * 0xff51afd7ed558ccdull, 27);
  }
  uint64_t tail = 0;
  std::memcpy(&tail, bytes.data() + i, bytes.size() - i);
  return {mix(a ^ tail), mix(b + tail * 0xc4ceb9fe1a85ec53ull)};
}

struct DigestHash {
  size_t operator()(const Digest& d) const { return static_cast<size_t>(d.a); }
};

}  // namespace pinsim
