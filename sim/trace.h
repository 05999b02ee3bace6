// Traces: the JSON record of a run (docs/trace-format.md, schema in
// scenarios/trace.schema.json). Any run can write one; `pinsim replay` reads
// one back; scenarios are traces with expected outcomes. Writing is canonical
// (sorted keys, fixed layout), so the same run gives byte-identical text.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "concurrent_trace.h"
#include "config.h"
#include "expectation.h"
#include "op.h"
#include "outcome.h"
#include "virtual_time.h"

namespace pinsim {

inline constexpr int kTraceVersion = 1;

struct TraceStep {
  Time t = 0;  // virtual time at which the op is applied (after an advance)
  Op op;       // op.client is the step's actor
  std::optional<Outcome> expect;
  std::optional<StateExpectation> expect_state;  // "expect": {"state": ...}
};

// A finding trace (scenarios/findings/): the target variant it was found on
// and the signatures of its failure (known_findings.h).
struct FindingInfo {
  std::string tree;
  std::vector<std::string> signatures;
  // Op kinds the defect needs ("needs", optional): a failure matches only in
  // a run that used each of them at or before its failing step, so a coarse
  // signature (a restore that loses an object) is not taken for this finding
  // in runs that never, say, started a copy.
  std::vector<OpKind> needs;
  // Other trees its trace was replayed on and failed there with one of its
  // signatures ("also_on", optional): the same defect, recognised there too.
  std::vector<std::string> also_on;
  // Conditions the defect needs ("when", optional; kFindingConditions in
  // known_findings.h), for a defect only a certain use of an op shows.
  std::vector<std::string> when;
  // The divergence is a standing offset of a metric ("goes_on", optional;
  // only with signatures of an offset field, kOffsetFields in runner.h): a
  // campaign goes on past it and compares the metric against the offset.
  bool goes_on = false;
};

// A known finding a run went on past (`"went_on"` in the trace): its step,
// the finding's file, the failure's signature and what the finding needs
// besides (its `needs` and `when`). A replay of the trace goes on past a
// failure that matches it so, as the campaign did, so that what came after
// reproduces (and shrinks) as it was found.
struct WentOnPast {
  uint64_t step = 0;
  std::string finding;
  std::string signature;
  std::vector<OpKind> needs;
  std::vector<std::string> when;
  bool operator==(const WentOnPast&) const = default;
};

// The flags that shaped a recorded run (`"run"` in the trace): the target it
// ran against, its tree (Target::variant(), "" for none), the seeded faults,
// the properties checked (empty: all) and whether the target was compared
// with the model. replay, shrink and show read them back; the profile is the
// config's. Traces without it (hand-written scenarios) take the command line's.
struct RunFlags {
  std::string target;
  std::string tree;
  std::vector<std::string> faults;
  std::vector<std::string> properties;
  bool compare = true;
  bool operator==(const RunFlags&) const = default;
};

struct Trace {
  std::string description;
  std::string rule;  // the rule a scenario proves (a name from rules.h), or ""
  std::optional<uint64_t> seed;
  std::optional<FindingInfo> finding;
  std::optional<RunFlags> run;
  Config config;
  std::vector<TraceStep> steps;
  // Rounds of several actors at once after the steps (concurrent_trace.h).
  std::optional<ConcurrentRun> concurrent;
  std::vector<WentOnPast> went_on;
};

std::string write_trace(const Trace& trace);
// Parses a trace; throws DecodeError("<source>: <json path>: <reason>").
Trace read_trace(const std::string& text, const std::string& source);
// Reads a file of at most `max_bytes`; throws DecodeError("<path>: cannot
// open"), a size error, and as above.
inline constexpr uint64_t kDefaultMaxTraceBytes = 64ull << 20;
Trace load_trace(const std::string& path, uint64_t max_bytes = kDefaultMaxTraceBytes);
// `s` with control characters and non-ASCII bytes as \xNN, for messages.
std::string printable(const std::string& s);

}  // namespace pinsim
