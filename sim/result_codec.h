// A seed's RunResult as bytes, so that a seed run in another process (a
// worker of --jobs, or a child of the fork server) comes back whole. The
// trace travels as write_trace's canonical text, so a failing seed's trace
// written by the parent is byte for byte the one the child recorded.
#pragma once
#include <string>

#include "campaign.h"

namespace pinsim {

// `with_trace` false drops a passing seed's steps (a failing seed's trace is
// always kept: known findings and --out need it).
std::string encode_run_result(const RunResult& r, bool with_trace);
// Throws DecodeError on bytes encode_run_result did not write.
RunResult decode_run_result(const std::string& bytes);

}  // namespace pinsim
