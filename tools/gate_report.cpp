// Writers and readers of the gate's reports; see gate_report.h.
#include "gate_report.h"

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "json_codec.h"
#include "summary.h"

namespace pinsim {

using nlohmann::json;

namespace {

std::string verdict_of(const GateResult& r) { return r.checked_nothing() ? "checked nothing" : r.red() ? "red" : "green"; }

json read_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DecodeError(path + ": cannot open file");
  std::stringstream buf;
  buf << in.rdbuf();
  try {
    return json::parse(buf.str());
  } catch (const json::exception& e) {
    throw DecodeError(path + ": invalid JSON: " + e.what());
  }
}

std::map<std::string, uint64_t> verdict_counts(const GateResult& r) {
  std::map<std::string, uint64_t> n{{"new", 0}, {"known", 0}, {"pre-existing", 0}, {"changed", 0}};
  for (const GateFailure& f : r.failures) ++n[f.verdict];
  return n;
}

// The fields that differ, on one line: "`t0/k1` lease: model 3182767, embedded 0".
std::string markdown_diff(const Failure& f) {
  if (f.diff.empty()) return "";
  std::string line = "  Differs:";
  for (size_t i = 0; i < f.diff.size() && i < 6; ++i) {
    const FieldDiff& d = f.diff[i];
    line += std::string(i ? ";" : "") + " " + (d.object.empty() ? "" : "`" + d.object + "` ") + d.field + ": " +
            f.left + " " + d.left + ", " + f.right + " " + d.right;
  }
  return line + (f.diff.size() > 6 ? "; and " + std::to_string(f.diff.size() - 6) + " more" : "") + "\n";
}

// How to replay a failure's trace: `pinsim replay`, or its lane's command.
std::string reproduce(const GateFailure& f, const std::string& path) {
  if (!f.replay_command.empty()) return "`" + f.replay_command + " " + path + "`";
  return "`pinsim replay " + path + " <target>`";
}

// One line per distinct new signature: how often, where first, how to replay.
void markdown_failures(std::ostringstream& md, const GateResult& r, const GateFiles& files) {
  std::map<std::string, std::vector<size_t>> by_signature;
  for (size_t i = 0; i < r.failures.size(); ++i)
    if (r.failures[i].verdict == "new") by_signature[r.failures[i].signature].push_back(i);
  for (const auto& [signature, all] : by_signature) {
    size_t shown = all.front();
    for (size_t i : all)
      if (r.failures[i].shrunk) shown = i;
    const GateFailure& f = r.failures[shown];
    md << "- `" << signature << "`: " << all.size() << " failure" << (all.size() > 1 ? "s" : "") << ", first "
       << r.failures[all.front()].source << ". " << f.failure.detail << "\n";
    const bool shrunk = f.shrunk && files.shrunk_paths.size() > shown;
    const std::string path = shrunk ? files.shrunk_paths[shown] : files.trace_paths.size() > shown ? files.trace_paths[shown] : "";
    if (!path.empty()) md << "  Reproduce: " << reproduce(f, path);
    if (shrunk && f.replay_command.empty()) md << " (shrunk to " << f.shrunk->steps.size() << " steps)";
    if (shrunk && !f.replay_command.empty()) md << " (shrunk)";
    md << "\n" << markdown_diff(shrunk ? f.shrunk_failure : f.failure);  // the differences of the trace named
  }
}

// How a changed failure differs from the base's on its source.
std::string changed_from(const GateFailure& f) {
  if (f.verdict != "changed") return "";
  return f.base_detail.empty() ? " (the base passes it)" : " (the base: " + f.base_detail + ")";
}

// One line per changed failure (few by nature: one per source), with the base's.
void markdown_changed(std::ostringstream& md, const GateResult& r, const GateFiles& files) {
  for (size_t i = 0; i < r.failures.size(); ++i) {
    const GateFailure& f = r.failures[i];
    if (f.verdict != "changed") continue;
    md << "- `" << f.signature << "` at " << f.source << ", step " << f.failure.step << ": " << f.failure.detail
       << changed_from(f) << ".";
    if (files.trace_paths.size() > i) md << " Reproduce: " << reproduce(f, files.trace_paths[i]);
    md << "\n";
  }
}

}  // namespace

std::string gate_markdown(const GateResult& r, const std::string& target, const std::string& flags,
                          const GateFiles& files) {
  std::ostringstream md;
  const auto n = verdict_counts(r);
  md << "## pinsim gate: " << verdict_of(r) << "\n\n"
     << "Target `" << target << "`" << (r.variant.empty() ? "" : " (tree " + r.variant + ")") << ", " << r.seconds
     << " s. New failures: " << n.at("new") << ", known: " << n.at("known") << ", pre-existing: " << n.at("pre-existing")
     << (n.at("changed") ? ", changed: " + std::to_string(n.at("changed")) : "") << ".\n\n| preset | seeds run | refused | steps |\n| --- | --- | --- | --- |\n";
  for (const PresetRun& p : r.runs) md << "| " << p.preset << " | " << p.seeds_run << " | " << p.refused << " | " << p.steps << " |\n";
  std::map<std::string, uint64_t> sc;
  for (const ScenarioResult& s : r.scenarios) ++sc[s.status];
  md << "\nScenarios: " << sc["passed"] << " passed, " << sc["failed"] << " failed, " << sc["not applicable"]
     << " not applicable to this target.\n";
  if (!r.findings.empty()) {
    md << "\n| known finding | status |\n| --- | --- |\n";
    for (const FindingResult& f : r.findings) md << "| `" << f.file << "` | " << f.status << " |\n";
  }
  if (n.at("new")) {
    md << "\n### New failures\n\n";
    markdown_failures(md, r, files);
  }
  if (n.at("changed")) {
    md << "\n### Changed failures\n\nThe base fails these sources otherwise, or not at all: the change moved a "
          "known or pre-existing failure.\n\n";
    markdown_changed(md, r, files);
  }
  std::string text = md.str();
  const std::string replay_flags = "--target " + target + flags;
  for (size_t p; (p = text.find("<target>")) != std::string::npos;) text.replace(p, 8, replay_flags);
  return text;
}

std::string gate_junit(const GateResult& r) {
  auto failures_of = [&](const std::string& prefix) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const GateFailure& f : r.failures)
      if ((f.verdict == "new" || f.verdict == "changed") && f.source.rfind(prefix, 0) == 0)
        out.emplace_back(f.signature, f.source + ": " + f.failure.detail + changed_from(f));
    return out;
  };
  std::vector<JUnitCase> cases;
  for (const ScenarioResult& s : r.scenarios) {
    const bool skipped = s.status == "not applicable";
    cases.push_back({"scenario", s.file, skipped ? decltype(failures_of("")){} : failures_of("scenario " + s.file),
                     skipped ? s.detail : "", ""});
  }
  for (const FindingResult& f : r.findings)
    cases.push_back({"finding", f.file, failures_of("finding " + f.file), "", f.status});
  for (const PresetRun& p : r.runs)
    cases.push_back({"preset", p.preset,
                     failures_of(p.preset == kGateLane ? p.preset + " " : "preset " + p.preset + " "), "", ""});
  return junit_xml("pinsim-gate", cases);
}

std::string gate_json(const GateResult& r, const std::string& target, const GateFiles& files) {
  Summary s{"gate", target, r.variant, verdict_of(r), r.seconds, r.runs, {}, json::object()};
  s.extra["campaign_start"] = r.campaign_start;
  for (size_t i = 0; i < r.failures.size(); ++i) {
    const GateFailure& f = r.failures[i];
    s.failures.push_back({f.source, f.signature, f.verdict, f.known_file, f.failure.detail,
                          files.trace_paths.size() > i ? files.trace_paths[i] : "",
                          files.shrunk_paths.size() > i ? files.shrunk_paths[i] : "", f.seconds, f.budget_needed,
                          f.fingerprint, f.base_detail});
  }
  json sc = json::array();
  for (const ScenarioResult& x : r.scenarios)
    sc.push_back({{"file", x.file}, {"status", x.status}, {"detail", x.detail}});
  s.extra["scenarios"] = sc;
  json fi = json::array();
  for (const FindingResult& f : r.findings) fi.push_back({{"file", f.file}, {"status", f.status}, {"detail", f.detail}});
  s.extra["findings"] = fi;
  return summary_json(s);
}

GateBase read_gate_base(const std::string& path) {
  const json j = read_json(path);
  if (!j.is_object() || j.value("format", "") != "pinsim-gate") throw DecodeError(path + ": $.format: expected \"pinsim-gate\"");
  GateBase base;
  try {
    for (const json& r : j.at("runs"))
      base.runs.push_back({r.at("preset").get<std::string>(), 0, 0, 0, r.at("seeds").get<std::vector<uint64_t>>()});
    for (const json& f : j.at("failures"))
      base.failing.push_back({f.at("source").get<std::string>(), f.at("signature").get<std::string>(),
                              f.value("fingerprint", ""), f.value("detail", "")});
  } catch (const json::exception& e) {
    throw DecodeError(path + ": not a gate summary: " + e.what());
  }
  return base;
}

std::string merge_gate_json(const std::vector<std::string>& paths) {
  json out;
  for (const std::string& path : paths) {
    const json j = read_json(path);
    if (!j.is_object() || j.value("format", "") != "pinsim-gate") throw DecodeError(path + ": $.format: expected \"pinsim-gate\"");
    if (out.is_null()) {
      out = j;
      continue;
    }
    for (const char* list : {"runs", "failures", "scenarios", "findings"})
      for (const json& x : j.at(list)) out[list].push_back(x);
    const std::string v = j.value("verdict", "");
    if (v == "red" || (v == "green" && out["verdict"] == "checked nothing")) out["verdict"] = v;
    out["seconds"] = std::max(out.value("seconds", 0.0), j.value("seconds", 0.0));
  }
  return out.dump(1) + "\n";
}

std::string summary_verdict(const std::string& text) { return json::parse(text).value("verdict", ""); }

}  // namespace pinsim
