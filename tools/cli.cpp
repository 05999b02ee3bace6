// Helpers shared by the pinsim commands: strict parsing of seeds, shards and
// targets, the target and check options every command declares the same way,
// and writing files and failures. See cli.h.
#include "cli.h"

#include <fstream>
#include <iostream>
#include <cerrno>
#include <cstdlib>
#include <regex>
#include <sstream>

#include "property.h"
#include "targets.h"

namespace pinsim::cli {

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !(out << text)) throw UsageError(path + ": cannot write file");
}

void print_failure(const Failure& f, const std::string& trace_path) {
  std::cout << "FAILED at step " << f.step << " (" << f.what << "): " << f.detail << "\n"
            << "  expected: " << f.expected << "\n"
            << "  actual:   " << f.actual << "\n";
  if (!trace_path.empty()) std::cout << "  trace: " << trace_path << "\n";
}

std::pair<uint64_t, uint64_t> parse_seeds(const std::string& s) {
  static const std::regex range(R"((\d{1,19})\.\.(\d{1,19}))");
  std::smatch m;
  if (!std::regex_match(s, m, range)) throw UsageError("--seeds: expected A..B, got '" + s + "'");
  const uint64_t a = std::stoull(m[1]), b = std::stoull(m[2]);
  if (a > b) throw UsageError("--seeds: first seed " + m[1].str() + " is after last seed " + m[2].str());
  return {a, b};
}

uint64_t parse_count(const std::string& flag, const std::string& text, uint64_t max) {
  static const std::regex number(R"(\d{1,20})");
  if (!std::regex_match(text, number)) throw UsageError(flag + ": expected a non-negative whole number, got '" + text + "'");
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE || v > max) throw UsageError(flag + ": " + text + " is out of range (at most " + std::to_string(max) + ")");
  return v;
}

std::pair<uint64_t, uint64_t> parse_shard(const std::string& s) {
  static const std::regex shard(R"((\d{1,9})/(\d{1,9}))");
  std::smatch m;
  if (!std::regex_match(s, m, shard)) throw UsageError("--shard: expected K/N, got '" + s + "'");
  const uint64_t k = std::stoull(m[1]), n = std::stoull(m[2]);
  if (n == 0 || k >= n) throw UsageError("--shard: need 0 <= K < N, got '" + s + "'");
  return {k, n};
}

TargetFactory target_or_throw(const std::string& name) {
  TargetFactory f = find_target(name);
  if (!f) {
    std::string known;
    for (const auto& n : target_names()) known += (known.empty() ? "" : ", ") + n;
    throw UsageError("--target: unknown target '" + name + "' (this build has: " + known + ")");
  }
  return f;
}

TargetOptions target_options_of(const po::variables_map& vm) {
  TargetOptions o;
  if (vm.count("fault")) o.faults = vm["fault"].as<std::vector<std::string>>();
  return o;
}

Checks checks_of(const po::variables_map& vm) {
  Checks c;
  c.properties = all_properties();
  if (vm.count("property")) {
    c.properties.clear();
    for (const std::string& id : vm["property"].as<std::vector<std::string>>()) {
      const StepCheck* p = property_by_id(id);
      if (!p) throw UsageError("--property: unknown property '" + id + "' (P1..P14)");
      c.properties.push_back(p);
    }
  }
  if (vm.count("no-compare")) c.compare_with_model = !vm["no-compare"].as<bool>();
  return c;
}

// Options shared by run, replay and shrink: which target, its faults, and
// what is checked. Declared once here so the commands cannot drift apart.
void add_target_and_check_options(po::options_description& desc) {
  desc.add_options()
      ("target", po::value<std::string>()->default_value("model"), "target to check against the model")
      ("fault", po::value<std::vector<std::string>>()->composing(), "switch on a seeded fault of the target (repeatable)")
      ("property", po::value<std::vector<std::string>>()->composing(), "check only these properties (P1..P14; default all)")
      ("no-compare", po::bool_switch(), "check properties on the target alone, without comparing it with the model");
}

void describe_shrunk(Trace* shrunk, const std::string& from, const Failure& failure) {
  shrunk->description = "minimal trace (" + std::to_string(shrunk->steps.size()) + " steps) shrunk from " + from +
                        ": it fails with " + failure.what + " " + failure.field + " at step " +
                        std::to_string(failure.step);
  shrunk->rule.clear();
  shrunk->seed.reset();
}

uint64_t count_of(const po::variables_map& vm, const char* name, uint64_t max) {
  return parse_count(std::string("--") + name, vm[name].as<std::string>(), max);
}

namespace {

// Examples that exist, per command, for --help.
std::string examples(const std::string& caption) {
  static const std::pair<const char*, const char*> kExamples[] = {
      {"pinsim run", "  pinsim run --target embedded --seeds 1..1000 --swarm\n"
                     "  pinsim run --seed 7 --trace seed7.json\n"
                     "  pinsim run --target embedded --preset pins --seeds 1..200 --coverage\n"
                     "  pinsim run --target embedded --fault F2 --no-compare --property P3\n"},
      {"pinsim replay", "  pinsim replay scenarios/rfc/rule7-preserve-drops-expired.json --target embedded\n"
                        "  pinsim replay pinsim-failure.json --target embedded --fault F2\n"},
      {"pinsim shrink", "  pinsim shrink pinsim-failure.json --target embedded --fault F2 --out minimal.json\n"},
      {"pinsim explore", "  pinsim explore --depth 4 --keys 2 --actors 2\n"
                         "  pinsim explore --target embedded --fault F4 --depth 3 --keys 1 --actors 1\n"},
      {"pinsim show", "  pinsim show scenarios/upsert/failed-size-change-keeps-pin.json -o report.html\n"
                      "  pinsim show pinsim-failure.json --target embedded --fault F16 -o report.html\n"},
      {"pinsim mutants", "  pinsim mutants --seeds 2000\n  pinsim mutants --fault F16\n"},
      {"pinsim gate", "  pinsim gate --target embedded --budget 30s\n"
                      "  pinsim gate --target mooncake --budget 120s --junit gate.xml --json gate.json\n"
                      "  pinsim gate --merge shard0.json shard1.json --json gate.json\n"
                      "  pinsim gate --table main=main/gate.json pre2909=pre2909/gate.json\n"},
  };
  for (const auto& [name, text] : kExamples)
    if (caption == name) return std::string("\nExamples:\n") + text;
  return "";
}

}  // namespace

po::variables_map parse(const std::vector<std::string>& args, const po::options_description& desc,
                        const char* positional) {
  for (const std::string& a : args)
    if (a == "--help" || a == "-h") {
      std::ostringstream text;
      text << desc;
      const std::string caption = text.str().substr(0, text.str().find(':'));  // "pinsim run"
      std::cout << text.str() << examples(caption)
                << "\nExit codes: 0 passed, 1 a failure, 2 bad usage or input, 3 checked nothing.\n";
      throw HelpShown{};
    }
  po::positional_options_description pos;
  if (positional) pos.add(positional, 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).positional(pos).run(), vm);
  po::notify(vm);
  return vm;
}

}  // namespace pinsim::cli
