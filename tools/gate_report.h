// The gate's outputs: a Markdown report fit for a PR comment, JUnit XML for
// CI dashboards, and a JSON summary that is also the `--base` input of a
// differential run and the input of `pinsim gate --merge` (shards).
#pragma once
#include <string>
#include <vector>

#include "gate.h"

namespace pinsim {

// `trace_paths[i]` / `shrunk_paths[i]`: where failure i's traces were written ("" if not).
struct GateFiles {
  std::vector<std::string> trace_paths, shrunk_paths;
};

// `flags`: the target options to repeat in replay lines (" --fault F2").
std::string gate_markdown(const GateResult& r, const std::string& target, const std::string& flags,
                          const GateFiles& files);
std::string gate_junit(const GateResult& r);
std::string gate_json(const GateResult& r, const std::string& target, const GateFiles& files);
// Reads a JSON summary back as a base; throws DecodeError naming the file.
GateBase read_gate_base(const std::string& path);
// Combines shard summaries into one JSON summary (verdict: red if any is).
std::string merge_gate_json(const std::vector<std::string>& paths);
// "red", "green" or "checked nothing" of a summary written by gate_json.
std::string summary_verdict(const std::string& json_text);

}  // namespace pinsim
