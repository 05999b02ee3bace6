// The machine-readable outcome of a command: the JSON summary (`gate --json`;
// `run`, `explore`, `mutants` with `--format json`) and JUnit XML (`--junit`).
// One writer for every command, so CI reads them the same way: the same
// envelope (format, target, tree, verdict, seconds, runs, failures) plus the
// command's own fields. docs/summary-format.md lists the fields.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "gate.h"

namespace pinsim {

// One failure as the summary lists it.
struct SummaryFailure {
  std::string source;     // "seed 17", "preset pins seed 17", "scenario upsert/x.json", "explore depth 2"
  std::string signature;  // what/op/field (known_findings.h)
  std::string verdict;    // "new", "known", "pre-existing", "changed"
  std::string known;      // the matching finding file, for "known"
  std::string detail;     // one line
  std::string trace, shrunk;  // where the traces were written ("" if not)
  double seconds = 0;          // gate: when it was found, from the gate's start
  double budget_needed = 0;    // gate: the smallest budget whose split finds it (0: the scenario phase)
  std::string fingerprint;     // gate: where and how it failed (failure_fingerprint)
  std::string base;            // gate, "changed": the base's failure on this source ("" when it passed)
};

struct Summary {
  std::string command;  // "run", "explore", "mutants", "gate": the format is "pinsim-<command>"
  std::string target, tree;
  std::string verdict;  // "green", "red", "checked nothing"
  double seconds = 0;
  std::vector<PresetRun> runs;
  std::vector<SummaryFailure> failures;
  nlohmann::json extra = nlohmann::json::object();  // the command's own fields
};

std::string summary_json(const Summary& s);

// One JUnit testcase: its failures (message, text), or why it was skipped.
struct JUnitCase {
  std::string classname, name;
  std::vector<std::pair<std::string, std::string>> failures;
  std::string skipped;     // non-empty: the case is skipped with this message
  std::string system_out;  // non-empty: written as <system-out>
};

std::string junit_xml(const std::string& suite, const std::vector<JUnitCase>& cases);

}  // namespace pinsim
