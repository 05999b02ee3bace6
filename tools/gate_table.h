// One table over the gate runs of several Mooncake trees. A pinsim binary
// links one Mooncake build, so each tree's gate runs with its own pinsim
// build and writes its JSON summary; this reads the summaries back and puts
// them side by side: tree, verdict, new, known, pre-existing and fixed.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace pinsim {

struct GateTable {
  std::string markdown;
  std::string verdict;  // "red" if a tree is red, else "checked nothing" if one checked nothing, else "green"
};

// `trees`: (name, path of a gate JSON summary). Throws DecodeError naming the
// file for anything that is not a gate summary.
GateTable gate_table(const std::vector<std::pair<std::string, std::string>>& trees);

}  // namespace pinsim
