// The table over trees' gate summaries; see gate_table.h.
#include "gate_table.h"

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "json_codec.h"

namespace pinsim {

using nlohmann::json;

namespace {

json read_summary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DecodeError(path + ": cannot open file");
  std::stringstream buf;
  buf << in.rdbuf();
  json j;
  try {
    j = json::parse(buf.str());
  } catch (const json::exception& e) {
    throw DecodeError(path + ": invalid JSON: " + e.what());
  }
  if (!j.is_object() || j.value("format", "") != "pinsim-gate")
    throw DecodeError(path + ": $.format: expected \"pinsim-gate\"");
  return j;
}

std::string plural(size_t n, const std::string& word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

// One tree's row, and the lines under the table for its new signatures and fixed findings.
struct Row {
  std::string cells, notes, verdict;
};

Row row_of(const std::string& name, const json& j) {
  uint64_t seeds = 0;
  for (const json& r : j.at("runs")) seeds += r.at("seeds_run").get<uint64_t>();
  std::map<std::string, size_t> count{{"new", 0}, {"known", 0}, {"pre-existing", 0}, {"changed", 0}};
  // (verdict, signature) -> (failures, first source), for the new and the changed ones
  std::map<std::pair<std::string, std::string>, std::pair<size_t, std::string>> new_sigs;
  std::set<std::string> findings;
  for (const json& f : j.at("failures")) {
    const std::string v = f.at("verdict").get<std::string>();
    ++count[v];
    if (v == "known") findings.insert(f.value("known", ""));
    if (v != "new" && v != "changed") continue;
    auto& s = new_sigs[{v, f.at("signature").get<std::string>()}];
    if (s.first++ == 0) s.second = f.at("source").get<std::string>();
  }
  std::vector<std::string> fixed;
  for (const json& f : j.at("findings"))
    if (f.at("status").get<std::string>() == "fixed") fixed.push_back(f.at("file").get<std::string>());
  Row row;
  row.verdict = j.value("verdict", "");
  std::ostringstream c, notes;
  c << "| " << name << " | " << j.value("tree", "") << " | " << (row.verdict == "red" ? "**red**" : row.verdict)
    << " | " << seeds << " | " << std::round(j.value("seconds", 0.0) * 10) / 10 << " | "
    << count["new"] + count["changed"] << (new_sigs.empty() ? "" : " (" + plural(new_sigs.size(), "signature") + ")")
    << " | " << count["known"]
    << (findings.empty() ? "" : " (" + plural(findings.size(), "finding") + ")") << " | " << count["pre-existing"]
    << " | " << fixed.size() << " |\n";
  for (const auto& [key, s] : new_sigs)
    notes << "- " << name << ": " << key.first << " `" << key.second << "` (" << s.first << ", first " << s.second
          << ")\n";
  for (const std::string& f : fixed) notes << "- " << name << ": fixed `" << f << "`\n";
  row.cells = c.str(), row.notes = notes.str();
  return row;
}

}  // namespace

GateTable gate_table(const std::vector<std::pair<std::string, std::string>>& trees) {
  std::ostringstream md, notes;
  md << "## pinsim gate over " << plural(trees.size(), "tree") << "\n\n"
     << "| tree | build | verdict | seeds | seconds | new or changed | known | pre-existing | fixed |\n"
     << "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  GateTable t{"", "green"};
  for (const auto& [name, path] : trees) {
    const json j = read_summary(path);
    Row row;
    try {
      row = row_of(name, j);
    } catch (const json::exception& e) {
      throw DecodeError(path + ": not a gate summary: " + e.what());
    }
    md << row.cells;
    notes << row.notes;
    if (row.verdict == "red") t.verdict = "red";
    else if (row.verdict != "green" && t.verdict == "green") t.verdict = "checked nothing";
  }
  md << "\nNew failures, known failures and pre-existing ones are counted per failure (a campaign seed or a replayed "
        "trace);\nfixed is the number of the tree's findings whose trace no longer fails.\n";
  if (!notes.str().empty()) md << "\n" << notes.str();
  t.markdown = md.str();
  return t;
}

}  // namespace pinsim
