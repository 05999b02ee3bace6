// What an op returned, as the caller sees it: the error code plus the few
// result fields the lifecycle API exposes. Compared step by step in lockstep.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "error_code.h"

namespace pinsim {

// PR 2835: RetainGroups answers per group with tl::expected<bool, ErrorCode>.
enum class RetainResult : uint8_t { Accepted, Full, InvalidParams };

// One element of a batch op's answer: the element's code, and for
// batch_exist / batch_get what exist / get would answer.
struct KeyResult {
  ErrorCode code = ErrorCode::OK;
  std::optional<bool> exists;        // batch_exist
  std::optional<uint32_t> replicas;  // batch_get: readable replica count
  std::optional<uint64_t> checksum;  // batch_get: as get
  bool operator==(const KeyResult&) const = default;
};

struct Outcome {
  ErrorCode code = ErrorCode::OK;
  std::optional<bool> exists;           // exist
  std::optional<uint32_t> replicas;     // get: readable replica count
  std::optional<uint64_t> checksum;     // get: the checksum the last End declared (none if it declared none)
  std::optional<uint64_t> removed;      // remove_all: objects removed
  std::vector<RetainResult> retained;   // retain_groups, one per element
  std::vector<KeyResult> results;       // batch ops, one per key in order
  std::optional<uint32_t> segment;      // propose: the segment its lease copies to
  bool operator==(const Outcome&) const = default;
  static Outcome of(ErrorCode c) { Outcome o; o.code = c; return o; }
  KeyResult as_key_result() const { return {code, exists, replicas, checksum}; }
};

}  // namespace pinsim
