// Op builders shared by tests that write small traces by hand (one place for
// the ops several test files need).
#pragma once
#include <cstdint>

#include "op.h"

namespace pinsim::testing {

// A BatchEvict pass: first-pass target and second-pass lower bound, percent.
inline Op evict(uint32_t target_pct, uint32_t lowerbound_pct) {
  Op op;
  op.kind = OpKind::Evict;
  op.evict_target_pct = target_pct;
  op.evict_lowerbound_pct = lowerbound_pct;
  return op;
}

// Virtual time moves on by `ms`.
inline Op advance(uint64_t ms) {
  Op op;
  op.kind = OpKind::Advance;
  op.advance_ms = ms;
  return op;
}

}  // namespace pinsim::testing
