// The explorer's op universe (listing a state's ops was the
// explorer's biggest cost, about 2,500 odometer runs of the workload per
// state). Every op the workload generates is interned once in a table; the
// ops of a state are a list of indices into it, computed once per distinct
// generator input (Workload::generator_input: the marks advances aim at and
// each key's writer; with checksums, each key's first replica and the time,
// from which an End's checksum is derived) and shared by every state with
// that input. The lists keep the odometer's order, so exploration is the same
// as listing per state.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "workload.h"

namespace pinsim {

// Every distinct op the workload can generate in this state, in the order the
// odometer first produces them (exposed for tests and for the tool's
// --list-ops).
std::vector<Op> all_ops(const Workload& generator, const Model& model, Time now);

class OpUniverse {
 public:
  explicit OpUniverse(const Workload& generator) : generator_(generator) {}
  // The ops of this state, as indices into the table, in all_ops' order.
  // The reference stays valid while the universe lives.
  const std::vector<uint32_t>& ops_in(const Model& model, Time now);
  // Valid until the next ops_in.
  const Op& op(uint32_t index) const { return table_[index]; }
  // Memory held by the table and the lists (estimated).
  uint64_t bytes() const { return bytes_; }

 private:
  struct WordsHash {
    size_t operator()(const std::vector<uint64_t>& words) const;
  };
  uint32_t intern(const Op& op);
  const Workload& generator_;
  std::vector<Op> table_;
  std::unordered_multimap<uint64_t, uint32_t> index_;  // op_hash -> position in table_
  std::unordered_map<std::vector<uint64_t>, std::vector<uint32_t>, WordsHash> lists_;
  std::vector<uint64_t> input_;  // reused: the generator input of the state asked about
  uint64_t bytes_ = 0;
};

}  // namespace pinsim
