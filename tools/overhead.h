// The harness's cost on top of the target's own: a trace's ops replayed
// twice after construction, once in lockstep (model, Views, properties) and
// once against a fresh target alone, timed per op kind. Measured and
// printed by `pinsim run --overhead`, never asserted.
#pragma once
#include <array>
#include <cstdint>
#include <cstdio>

#include "campaign.h"

namespace pinsim {

struct OverheadTable {
  std::array<double, kOpKindCount> checked{}, bare{};  // seconds per op kind
  std::array<uint64_t, kOpKindCount> count{};            // ops per op kind
  void add(const Trace& trace, TargetFactory factory, const TargetOptions& options, const Checks& checks);
  void print(std::FILE* out) const;
};

}  // namespace pinsim
