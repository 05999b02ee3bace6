// Trace reading and writing with strict validation: every rejection names the
// source, the JSON path and the reason.
#include "trace.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "json_codec.h"
#include "known_findings.h"

namespace pinsim {

using nlohmann::json;

std::string write_trace(const Trace& trace) {
  json j;
  j["format"] = "pinsim-trace";
  j["version"] = kTraceVersion;
  j["description"] = trace.description;
  if (!trace.rule.empty()) j["rule"] = trace.rule;
  if (trace.seed) j["seed"] = *trace.seed;
  if (trace.finding) {
    j["finding"] = {{"tree", trace.finding->tree}, {"signatures", trace.finding->signatures}};
    for (OpKind k : trace.finding->needs) j["finding"]["needs"].push_back(std::string(to_string(k)));
    for (const std::string& t : trace.finding->also_on) j["finding"]["also_on"].push_back(t);
    for (const std::string& c : trace.finding->when) j["finding"]["when"].push_back(c);
    if (trace.finding->goes_on) j["finding"]["goes_on"] = true;
  }
  for (const WentOnPast& w : trace.went_on) {
    json e = {{"step", w.step}, {"finding", w.finding}, {"signature", w.signature}};
    for (OpKind k : w.needs) e["needs"].push_back(std::string(to_string(k)));
    for (const std::string& c : w.when) e["when"].push_back(c);
    j["went_on"].push_back(std::move(e));
  }
  if (trace.run) {
    json run = {{"target", trace.run->target}, {"faults", trace.run->faults}, {"compare", trace.run->compare}};
    if (!trace.run->tree.empty()) run["tree"] = trace.run->tree;
    if (!trace.run->properties.empty()) run["properties"] = trace.run->properties;
    j["run"] = std::move(run);
  }
  j["config"] = encode_config(trace.config);
  json steps = json::array();
  for (const TraceStep& s : trace.steps) {
    json step = encode_op(s.op);
    step["t"] = s.t;
    step["actor"] = s.op.client;
    if (s.expect) step["expect"] = encode_outcome(*s.expect);
    if (s.expect_state) step["expect"]["state"] = encode_state_expectation(*s.expect_state);
    steps.push_back(std::move(step));
  }
  j["steps"] = std::move(steps);
  if (trace.concurrent) j["concurrent"] = encode_concurrent(*trace.concurrent);
  // One step per line keeps diffs of scenarios readable.
  std::string out = "{\n";
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!first) out += ",\n";
    first = false;
    out += "  " + json(it.key()).dump() + ": ";
    if (it.key() == "steps") {
      out += "[";
      for (size_t i = 0; i < it->size(); ++i) out += (i ? ",\n    " : "\n    ") + (*it)[i].dump();
      out += it->empty() ? "]" : "\n  ]";
    } else if (it.key() == "concurrent") {  // a round per line
      out += "{\"rounds\": [";
      const json& rounds = (*it)["rounds"];
      for (size_t i = 0; i < rounds.size(); ++i) out += (i ? ",\n    " : "\n    ") + rounds[i].dump();
      out += std::string(rounds.empty() ? "]" : "\n  ]") + ", \"settings\": " + (*it)["settings"].dump() + "}";
    } else {
      out += it->dump();
    }
  }
  return out + "\n}\n";
}

namespace {

// `needs` of a finding (or of a finding gone past): op names, optional.
std::vector<OpKind> decode_needs(const json& f, const std::string& path) {
  std::vector<OpKind> out;
  if (!f.contains("needs")) return out;
  const json& needs = f["needs"];
  if (!needs.is_array()) throw DecodeError(path + ".needs: expected an array of op names");
  for (size_t i = 0; i < needs.size(); ++i) {
    const auto kind = needs[i].is_string() ? parse_op_kind(needs[i].get<std::string>()) : std::nullopt;
    if (!kind) throw DecodeError(path + ".needs[" + std::to_string(i) + "]: expected an op name");
    out.push_back(*kind);
  }
  return out;
}

// `when` of a finding (or of a finding gone past): conditions of kFindingConditions, optional.
std::vector<std::string> decode_when(const json& f, const std::string& path) {
  std::vector<std::string> out;
  if (!f.contains("when")) return out;
  const json& when = f["when"];
  for (size_t i = 0; i < (when.is_array() ? when.size() : 1); ++i) {
    const std::string c = when.is_array() && when[i].is_string() ? when[i].get<std::string>() : "";
    if (std::find(std::begin(kFindingConditions), std::end(kFindingConditions), c) == std::end(kFindingConditions)) {
      std::string names;
      for (std::string_view n : kFindingConditions) names += (names.empty() ? "" : ", ") + std::string(n);
      throw DecodeError(path + ".when: expected an array of conditions (" + names + ")");
    }
    out.push_back(c);
  }
  return out;
}

FindingInfo decode_finding(const json& f) {
  if (!f.is_object()) throw DecodeError("$.finding: expected an object");
  for (auto it = f.begin(); it != f.end(); ++it)
    if (it.key() != "tree" && it.key() != "signatures" && it.key() != "needs" && it.key() != "also_on" &&
        it.key() != "when" && it.key() != "goes_on")
      throw DecodeError("$.finding." + it.key() + ": unknown field");
  FindingInfo info;
  if (!f.contains("tree") || !f["tree"].is_string() || f["tree"].get<std::string>().empty())
    throw DecodeError("$.finding.tree: expected the tree's name (main, pre-2909, pr-2835)");
  info.tree = f["tree"].get<std::string>();
  if (!f.contains("signatures") || !f["signatures"].is_array() || f["signatures"].empty())
    throw DecodeError("$.finding.signatures: expected a non-empty array of what/op/field strings");
  for (size_t i = 0; i < f["signatures"].size(); ++i) {
    const json& s = f["signatures"][i];
    const std::string text = s.is_string() ? s.get<std::string>() : "";
    if (std::count(text.begin(), text.end(), '/') != 2)
      throw DecodeError("$.finding.signatures[" + std::to_string(i) + "]: expected \"what/op/field\"");
    info.signatures.push_back(text);
  }
  info.needs = decode_needs(f, "$.finding");
  const json none = json::array();
  const json& also = f.contains("also_on") ? f["also_on"] : none;
  for (size_t i = 0; i < (also.is_array() ? also.size() : 1); ++i) {
    if (!also.is_array() || !also[i].is_string() || also[i].get<std::string>().empty())
      throw DecodeError("$.finding.also_on: expected an array of tree names");
    info.also_on.push_back(also[i].get<std::string>());
  }
  info.when = decode_when(f, "$.finding");
  if (f.contains("goes_on")) {
    if (!f["goes_on"].is_boolean()) throw DecodeError("$.finding.goes_on: expected true or false");
    info.goes_on = f["goes_on"].get<bool>();
    for (const std::string& sig : info.signatures) {
      if (!info.goes_on || offset_field(sig.substr(sig.rfind('/') + 1))) continue;
      std::string fields;
      for (const OffsetField& row : kOffsetFields) fields += (fields.empty() ? "" : ", ") + std::string(row.field);
      throw DecodeError("$.finding.goes_on: a run goes on only past a standing offset of a metric (a "
                        "signature's field among: " + fields + "), not past " + printable(sig));
    }
  }
  return info;
}

// "went_on": [{"step", "finding", "signature"}, ...], each field required.
std::vector<WentOnPast> decode_went_on(const json& w) {
  if (!w.is_array()) throw DecodeError("$.went_on: expected an array");
  std::vector<WentOnPast> out;
  for (size_t i = 0; i < w.size(); ++i) {
    const std::string path = "$.went_on[" + std::to_string(i) + "]";
    const json& e = w[i];
    if (!e.is_object() || !e.contains("step") || !e.contains("finding") || !e.contains("signature"))
      throw DecodeError(path + ": expected {\"step\", \"finding\", \"signature\"} (\"needs\", \"when\" optional)");
    for (auto it = e.begin(); it != e.end(); ++it)
      if (it.key() != "step" && it.key() != "finding" && it.key() != "signature" && it.key() != "needs" &&
          it.key() != "when")
        throw DecodeError(path + "." + printable(it.key()) + ": unknown field");
    if (!e["step"].is_number_unsigned()) throw DecodeError(path + ".step: expected a non-negative integer");
    if (!e["finding"].is_string() || e["finding"].get<std::string>().empty())
      throw DecodeError(path + ".finding: expected the finding's file");
    const std::string sig = e["signature"].is_string() ? e["signature"].get<std::string>() : "";
    if (std::count(sig.begin(), sig.end(), '/') != 2)
      throw DecodeError(path + ".signature: expected \"what/op/field\"");
    out.push_back({e["step"].get<uint64_t>(), e["finding"].get<std::string>(), sig, decode_needs(e, path),
                   decode_when(e, path)});
  }
  return out;
}

std::vector<std::string> decode_names(const json& run, const char* key) {
  std::vector<std::string> names;
  if (!run.contains(key)) return names;
  const std::string path = std::string("$.run.") + key;
  if (!run[key].is_array()) throw DecodeError(path + ": expected an array of names");
  for (size_t i = 0; i < run[key].size(); ++i) {
    const json& n = run[key][i];
    if (!n.is_string() || n.get<std::string>().empty())
      throw DecodeError(path + "[" + std::to_string(i) + "]: expected a name");
    names.push_back(n.get<std::string>());
  }
  return names;
}

RunFlags decode_run(const json& r) {
  if (!r.is_object()) throw DecodeError("$.run: expected an object");
  for (auto it = r.begin(); it != r.end(); ++it) {
    static const char* known[] = {"target", "tree", "faults", "properties", "compare"};
    if (std::find(std::begin(known), std::end(known), it.key()) == std::end(known))
      throw DecodeError("$.run." + printable(it.key()) + ": unknown field");
  }
  RunFlags run;
  if (!r.contains("target") || !r["target"].is_string() || r["target"].get<std::string>().empty())
    throw DecodeError("$.run.target: expected the target's name");
  run.target = r["target"].get<std::string>();
  if (r.contains("tree")) {
    if (!r["tree"].is_string()) throw DecodeError("$.run.tree: expected a string");
    run.tree = r["tree"].get<std::string>();
  }
  run.faults = decode_names(r, "faults");
  run.properties = decode_names(r, "properties");
  if (r.contains("compare")) {
    if (!r["compare"].is_boolean()) throw DecodeError("$.run.compare: expected true or false");
    run.compare = r["compare"].get<bool>();
  }
  return run;
}

}  // namespace

// Printable form of text from a trace for a message: control characters and
// bytes outside ASCII are shown as \xNN, so nothing reaches the terminal raw.
std::string printable(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

namespace {

// Parses strictly: a key given twice in one object is an error (JSON parsers
// keep the last one silently, which let a second "steps": [] empty a trace).
json parse_strict(const std::string& text) {
  std::vector<std::set<std::string>> keys;  // one set per open object
  std::string duplicate;
  json::parser_callback_t cb = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    else if (event == json::parse_event_t::object_end) keys.pop_back();
    else if (event == json::parse_event_t::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second &&
             duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  json j = json::parse(text, cb);
  if (!duplicate.empty()) throw DecodeError("the key \"" + printable(duplicate) + "\" appears twice in one object");
  return j;
}

// Everything but the config and the steps: format, version, description,
// rule, seed, finding, run; unknown top-level fields are refused here.
Trace decode_header(const json& j) {
  if (!j.is_object()) throw DecodeError("$: expected a JSON object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    static const char* known[] = {"format", "version", "description", "rule",  "seed",      "finding",
                                  "run",    "config",  "steps",       "concurrent", "went_on"};
    if (std::find(std::begin(known), std::end(known), it.key()) == std::end(known))
      throw DecodeError("$." + printable(it.key()) + ": unknown field");
  }
  if (!j.contains("format") || j["format"] != "pinsim-trace")
    throw DecodeError("$.format: expected \"pinsim-trace\"");
  if (!j.contains("version") || !j["version"].is_number_integer())
    throw DecodeError("$.version: missing or not an integer");
  if (j["version"].get<int64_t>() != kTraceVersion)
    throw DecodeError("$.version: unknown version " + j["version"].dump() + " (this pinsim reads " +
                      std::to_string(kTraceVersion) + ")");
  Trace trace;
  if (j.contains("description")) {
    if (!j["description"].is_string()) throw DecodeError("$.description: expected a string");
    trace.description = j["description"].get<std::string>();
  }
  if (j.contains("rule")) {
    if (!j["rule"].is_string()) throw DecodeError("$.rule: expected a string");
    trace.rule = j["rule"].get<std::string>();
  }
  if (j.contains("seed")) {
    if (!j["seed"].is_number_unsigned()) throw DecodeError("$.seed: expected a non-negative integer");
    trace.seed = j["seed"].get<uint64_t>();
  }
  if (j.contains("finding")) trace.finding = decode_finding(j["finding"]);
  if (j.contains("run")) trace.run = decode_run(j["run"]);
  if (j.contains("went_on")) trace.went_on = decode_went_on(j["went_on"]);
  return trace;
}

}  // namespace

Trace read_trace(const std::string& text, const std::string& source) {
  json j;
  if (text.find('\0') != std::string::npos)
    throw DecodeError(source + ": a NUL byte at byte " + std::to_string(text.find('\0')) + " (a trace is JSON text)");
  try {
    j = parse_strict(text);
  } catch (const json::parse_error& e) {
    throw DecodeError(source + ": invalid JSON at byte " + std::to_string(e.byte) + ": " +
                      std::string(e.what()).substr(std::string(e.what()).find(':') + 2));
  } catch (const DecodeError& e) {
    throw DecodeError(source + ": " + e.what());
  } catch (const json::exception& e) {  // e.g. out_of_range.406, a number too large
    throw DecodeError(source + ": invalid JSON: " + std::string(e.what()).substr(std::string(e.what()).find(']') + 2));
  }
  try {
    Trace trace = decode_header(j);
    if (!j.contains("config")) throw DecodeError("$: missing field 'config'");
    trace.config = decode_config(j["config"], "$.config");
    if (!j.contains("steps") || !j["steps"].is_array()) throw DecodeError("$.steps: missing or not an array");
    Time clock = 0;
    const json& steps = j["steps"];
    for (size_t i = 0; i < steps.size(); ++i) {
      const std::string path = "$.steps[" + std::to_string(i) + "]";
      const json& s = steps[i];
      if (!s.is_object()) throw DecodeError(path + ": expected an object");
      json op_part = s;
      for (const char* extra : {"t", "actor", "expect"}) op_part.erase(extra);
      TraceStep step;
      step.op = decode_op(op_part, path);
      if (!s.contains("t") || !s["t"].is_number_integer()) throw DecodeError(path + ".t: missing or not an integer");
      step.t = s["t"].get<Time>();
      if (step.t < 0) throw DecodeError(path + ".t: negative time");
      clock = time_after(clock, step.op);
      if (step.t < clock) throw DecodeError(path + ".t: time goes backwards (" + std::to_string(step.t) + " < " + std::to_string(clock) + ")");
      if (step.t != clock)
        throw DecodeError(path + ".t: " + std::to_string(step.t) + " does not match the clock " +
                          std::to_string(clock) + " (time moves only through advance steps)");
      if (s.contains("actor")) {
        if (!s["actor"].is_number_unsigned() || s["actor"].get<uint64_t>() > UINT32_MAX)
          throw DecodeError(path + ".actor: expected a client id");
        step.op.client = s["actor"].get<ClientId>();
      }
      if (s.contains("expect")) {
        json outcome = s["expect"];
        if (outcome.is_object() && outcome.contains("state")) {
          step.expect_state = decode_state_expectation(outcome["state"], path + ".expect.state");
          outcome.erase("state");
        }
        step.expect = decode_outcome(outcome, path + ".expect");
      }
      trace.steps.push_back(std::move(step));
    }
    if (j.contains("concurrent")) trace.concurrent = decode_concurrent(j["concurrent"], clock);
    return trace;
  } catch (const DecodeError& e) {
    throw DecodeError(source + ": " + e.what());
  } catch (const json::exception& e) {
    throw DecodeError(source + ": " + e.what());
  }
}

Trace load_trace(const std::string& path, uint64_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DecodeError(path + ": cannot open file");
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > max_bytes)
      throw DecodeError(path + ": larger than " + std::to_string(max_bytes >> 20) + " MiB (raise the limit with --max-trace-mb)");
  }
  return read_trace(text, path);
}

}  // namespace pinsim
