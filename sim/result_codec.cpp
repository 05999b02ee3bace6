// RunResult to bytes and back; see result_codec.h.
#include "result_codec.h"

#include <algorithm>
#include <charconv>

#include <nlohmann/json.hpp>

#include "json_codec.h"

namespace pinsim {

namespace {

using nlohmann::json;

json encode_failure(const Failure& f) {
  json diff = json::array();
  for (const FieldDiff& d : f.diff) diff.push_back({d.object, d.field, d.left, d.right});
  return {{"step", f.step}, {"what", f.what},         {"detail", f.detail},     {"expected", f.expected},
          {"actual", f.actual}, {"field", f.field}, {"on_model", f.on_model}, {"diff", diff},
          {"left", f.left},     {"right", f.right}};
}

Failure decode_failure(const json& j) {
  Failure f{j.at("step").get<size_t>(), j.at("what").get<std::string>(), j.at("detail").get<std::string>(),
            j.at("expected").get<std::string>(), j.at("actual").get<std::string>(), j.at("field").get<std::string>(),
            j.at("on_model").get<bool>(), {}, j.at("left").get<std::string>(), j.at("right").get<std::string>()};
  for (const json& d : j.at("diff"))
    f.diff.push_back({d.at(0).get<std::string>(), d.at(1).get<std::string>(), d.at(2).get<std::string>(),
                      d.at(3).get<std::string>()});
  return f;
}

}  // namespace

// The bytes: the trace's length in decimal and a newline, the trace's text,
// then the rest as JSON. The trace is not a string inside the JSON: escaping
// and unescaping it was most of a --jobs campaign's work in its first process.
std::string encode_run_result(const RunResult& r, bool with_trace) {
  std::string trace;
  if (with_trace || r.failure) {
    trace = write_trace(r.trace);
  } else {  // the trace without its steps, which are not copied
    const Trace& t = r.trace;
    trace = write_trace(Trace{t.description, t.rule, t.seed, t.finding, t.run, t.config, {}, t.concurrent, t.went_on});
  }
  json j;
  if (r.failure) j["failure"] = encode_failure(*r.failure);
  j["comparisons"] = r.comparisons;
  j["hits"] = r.hits.count;
  j["error"] = r.error;
  j["unchecked_expectations"] = r.unchecked_expectations;
  j["variant"] = r.variant;
  j["steps"] = r.steps;
  return std::to_string(trace.size()) + "\n" + trace + j.dump();
}

RunResult decode_run_result(const std::string& bytes) {
  try {
    const size_t newline = bytes.find('\n');
    size_t length = 0;
    const auto [end, ec] = std::from_chars(bytes.data(), bytes.data() + std::min(newline, bytes.size()), length);
    if (newline == std::string::npos || ec != std::errc() || end != bytes.data() + newline ||
        length > bytes.size() - newline - 1)
      throw DecodeError("a worker's result: no trace length");
    const json j = json::parse(bytes.begin() + static_cast<std::ptrdiff_t>(newline + 1 + length), bytes.end());
    RunResult r;
    r.trace = read_trace(bytes.substr(newline + 1, length), "a worker's result");
    if (j.contains("failure")) r.failure = decode_failure(j.at("failure"));
    r.comparisons = j.at("comparisons").get<uint64_t>();
    r.hits.count = j.at("hits").get<decltype(r.hits.count)>();
    r.error = j.at("error").get<std::string>();
    r.unchecked_expectations = j.at("unchecked_expectations").get<uint64_t>();
    r.variant = j.at("variant").get<std::string>();
    r.steps = j.at("steps").get<uint64_t>();
    return r;
  } catch (const json::exception& e) {
    throw DecodeError(std::string("a worker's result: ") + e.what());
  }
}

}  // namespace pinsim
