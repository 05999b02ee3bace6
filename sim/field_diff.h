// Field-level differences for failure reports: every field where two Views
// (or two outcomes) differ, with the object it belongs to and both values,
// so a report names what differs instead of showing two one-line JSON Views
// for the reader to compare by eye.
#pragma once
#include <string>
#include <vector>

#include "outcome.h"
#include "view.h"

namespace pinsim {

struct FieldDiff {
  std::string object;  // "t0/k3", "t0/g2" (retention), "t1" (tenant charge), "segment 0", "results[2]", or ""
  std::string field;   // "deadline", "lease", "present", "code", ...
  std::string left, right;  // each side's value; "absent" when that side has none
  bool operator==(const FieldDiff&) const = default;
};

// Every differing field, objects in id order, fields in name order.
std::vector<FieldDiff> diff_views(const View& left, const View& right);
std::vector<FieldDiff> diff_outcomes(const Outcome& left, const Outcome& right);

}  // namespace pinsim
