// Helpers shared by the pinsim commands: strict parsing of seeds, shards and
// targets, the target and check options every command declares the same way,
// and writing files and failures. See cli.h.
#include "cli.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <iostream>
#include <cstdlib>
#include <regex>
#include <sstream>

#include "property.h"
#include "text_file.h"
#include "targets.h"

namespace pinsim::cli {

void write_file(const std::string& path, const std::string& text) {
  if (!write_text(path, text)) throw UsageError(path + ": cannot write file");
}

namespace {

// The field-level diff as aligned columns: object, field, and one column per side.
void print_diff(const Failure& f) {
  std::vector<std::array<std::string, 4>> rows{{"object", "field", f.left, f.right}};
  for (const FieldDiff& d : f.diff)
    rows.push_back(
        {d.object.empty() ? "-" : printable(d.object), printable(d.field), printable(d.left), printable(d.right)});
  std::array<size_t, 4> width{};
  for (const auto& row : rows)
    for (size_t i = 0; i < 4; ++i) width[i] = std::max(width[i], row[i].size());
  for (const auto& row : rows) {
    std::string line = "   ";
    for (size_t i = 0; i < 4; ++i) line += " " + row[i] + std::string(i < 3 ? width[i] - row[i].size() + 1 : 0, ' ');
    std::cout << line << "\n";
  }
}

}  // namespace

void print_failure(const Failure& f, const std::string& trace_path) {
  std::cout << "FAILED at step " << f.step << " (" << f.what << "): " << f.detail << "\n";
  if (!f.diff.empty()) print_diff(f);
  // The one-line forms below the table, for tools and for fields the table
  // does not name (a property's whole View).
  const char* suffix = f.what == "view" || f.what == "property" ? " view:" : ":";
  const std::string left = (f.left.empty() ? "expected" : f.left) + suffix;
  const std::string right = (f.right.empty() ? "actual" : f.right) + suffix;
  const size_t w = std::max(left.size(), right.size()) + 1;
  if (!f.expected.empty()) std::cout << "  " << left << std::string(w - left.size(), ' ') << f.expected << "\n";
  std::cout << "  " << right << std::string(w - right.size(), ' ') << f.actual << "\n";
  if (trace_path.empty()) return;
  std::cout << "  trace:     " << trace_path << "\n"
            << "  reproduce: pinsim replay " << trace_path << "\n"
            << "  picture:   pinsim show " << trace_path << " -o pinsim-report.html\n";
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

namespace {

// The target's options as the command line names them: each --fault is an
// option `fault` (a trace records them as its faults). Their meaning is the
// target's; the command line only carries them.
TargetOptions target_options_of(const RunFlags& flags) {
  TargetOptions options;
  for (const std::string& f : flags.faults) options.emplace_back("fault", f);
  return options;
}

// `place` names where the names came from: "--property" or "<trace>: $.run.properties".
Checks checks_of(const RunFlags& flags, const std::string& place) {
  Checks c;
  c.properties = all_properties();
  if (!flags.properties.empty()) {
    c.properties.clear();
    for (const std::string& id : flags.properties) {
      const StepCheck* p = property_by_id(id);
      if (!p) throw UsageError(place + ": unknown property '" + printable(id) + "' (P1..P14)");
      c.properties.push_back(p);
    }
  }
  c.compare_with_model = flags.compare;
  return c;
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// The properties a run checks, as a sorted list of ids ("all" spelled out).
std::vector<std::string> checked_ids(const std::vector<std::string>& properties) {
  if (!properties.empty()) return sorted(properties);
  std::vector<std::string> all;
  for (const StepCheck* p : all_properties()) all.emplace_back(p->id());
  return sorted(all);
}

std::string joined(const std::vector<std::string>& v, const char* none) {
  std::string out;
  for (const std::string& x : v) {
    if (!out.empty()) out += ',';
    out += printable(x);
  }
  return out.empty() ? none : out;
}

// Refuses a command-line flag that contradicts the trace's record.
void check_agrees(const po::variables_map& vm, const RunFlags& rec, const std::string& path) {
  auto refuse = [&](const std::string& flag, const std::string& recorded) {
    throw UsageError(path + ": " + flag + " contradicts the trace's recorded " + recorded +
                     " (drop the flag, or give --ignore-recorded)");
  };
  const RunFlags cli = run_flags_of(vm);
  if (!vm["target"].defaulted() && cli.target != rec.target)
    refuse("--target " + printable(cli.target), "target " + printable(rec.target));
  if (vm.count("fault") && sorted(cli.faults) != sorted(rec.faults))
    refuse("--fault " + joined(cli.faults, ""), "faults " + joined(rec.faults, "(none)"));
  if (vm.count("property") && checked_ids(cli.properties) != checked_ids(rec.properties))
    refuse("--property " + joined(cli.properties, ""), "properties " + joined(rec.properties, "(all)"));
  if (!cli.compare && rec.compare) refuse("--no-compare", "comparison with the model");
}

}  // namespace

TargetOptions target_options_of(const po::variables_map& vm) { return target_options_of(run_flags_of(vm)); }

void check_options_taken(TargetFactory factory, const std::string& target, const TargetOptions& options,
                         const Config& config) {
  if (options.empty()) return;
  std::string error;
  if (!factory(config, options, &error)) throw UsageError("--target " + printable(target) + ": " + error);
}

Checks checks_of(const po::variables_map& vm) { return checks_of(run_flags_of(vm), "--property"); }

RunFlags run_flags_of(const po::variables_map& vm, const std::string& tree) {
  RunFlags f;
  f.target = vm["target"].as<std::string>();
  f.tree = tree;
  if (vm.count("fault")) f.faults = vm["fault"].as<std::vector<std::string>>();
  if (vm.count("property")) f.properties = vm["property"].as<std::vector<std::string>>();
  if (vm.count("no-compare")) f.compare = !vm["no-compare"].as<bool>();
  return f;
}

TraceRun trace_run_of(const po::variables_map& vm, const Trace& trace, const std::string& path) {
  TraceRun run;
  const bool recorded = trace.run && !vm["ignore-recorded"].as<bool>();
  if (recorded) check_agrees(vm, *trace.run, path);
  run.flags = recorded ? *trace.run : run_flags_of(vm);
  run.factory = target_or_throw(run.flags.target);
  run.options = target_options_of(run.flags);
  check_options_taken(run.factory, run.flags.target, run.options, trace.config);
  run.checks = checks_of(run.flags, recorded ? path + ": $.run.properties" : "--property");
  if (!run.flags.tree.empty()) {  // a trace of one Mooncake tree replayed on a build of another
    std::string error;
    const auto target = run.factory(trace.config, run.options, &error);
    if (target && target->variant() != run.flags.tree)
      throw UsageError(path + ": recorded on " + run.flags.target + " tree " + printable(run.flags.tree) +
                       ", this build's is " + std::string(target->variant()) +
                       " (--ignore-recorded to replay it here)");
  }
  return run;
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

void add_trace_run_options(po::options_description& desc) {
  add_target_and_check_options(desc);
  desc.add_options()("ignore-recorded", po::bool_switch(),
                     "run with the command line's target, faults, properties and compare mode, not the trace's");
}

void check_writable(const std::string& path) {
  if (!can_write(path)) throw UsageError(path + ": cannot write file");
}

void add_summary_options(po::options_description& desc) {
  desc.add_options()
      ("format", po::value<std::string>()->default_value("text"),
       "text, or json: the summary as JSON on stdout (docs/summary-format.md)")
      ("junit", po::value<std::string>(), "also write the summary as JUnit XML here");
}

bool json_output(const po::variables_map& vm) {
  const std::string format = vm["format"].as<std::string>();
  if (format != "text" && format != "json")
    throw UsageError("--format: expected text or json, got '" + printable(format) + "'");
  if (vm.count("junit")) check_writable(vm["junit"].as<std::string>());
  return format == "json";
}

void write_summary(const po::variables_map& vm, const Summary& summary, const std::vector<JUnitCase>& cases) {
  if (json_output(vm)) std::cout << summary_json(summary);
  if (vm.count("junit")) write_file(vm["junit"].as<std::string>(), junit_xml("pinsim-" + summary.command, cases));
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

unsigned jobs_of(const po::variables_map& vm) {
  const auto jobs = static_cast<unsigned>(count_of(vm, "jobs", 64));
  if (jobs == 0) throw UsageError("--jobs: 0 workers would run nothing");
  return jobs;
}

namespace {

// Examples that exist, per command, for --help.
std::string examples(const std::string& caption) {
  static const std::pair<const char*, const char*> kExamples[] = {
      {"pinsim run", "  pinsim run --target embedded --seeds 1..1000 --swarm\n"
                     "  pinsim run --seed 7 --trace seed7.json\n"
                     "  pinsim run --target embedded --preset pins --seeds 1..200 --coverage\n"
                     "  pinsim run --target embedded --fault F2 --no-compare --property P3\n"
                     "  pinsim run --target embedded --seeds 1..1000 --swarm --format json --junit run.xml\n"
                     "  pinsim run --target embedded --actors 3 --background evict,cleanup --seeds 1..100\n"
                     "  pinsim run --target embedded --fault F20 --actors 2 --background cleanup --schedule pct\n"},
      {"pinsim replay", "  pinsim replay scenarios/rfc/rule7-preserve-drops-expired.json --target embedded\n"
                        "  pinsim replay pinsim-failure.json            (the target and checks its run recorded)\n"
                        "  pinsim replay pinsim-failure.json --ignore-recorded --target model\n"},
      {"pinsim shrink", "  pinsim shrink pinsim-failure.json --out minimal.json\n"},
      {"pinsim explore", "  pinsim explore --depth 4 --keys 2 --actors 2\n"
                         "  pinsim explore --target embedded --fault F4 --depth 3 --keys 1 --actors 1\n"
                         "  pinsim explore --target embedded --fault F2 --seconds 60   (the ladder: small universes "
                         "first)\n"
                         "  pinsim explore --seconds 60 --keys 2                       (one universe: no ladder)\n"},
      {"pinsim show", "  pinsim show scenarios/upsert/failed-size-change-keeps-pin.json -o report.html\n"
                      "  pinsim show pinsim-failure.json -o report.html\n"},
      {"pinsim list", "  pinsim list faults\n  pinsim list rules\n"},
      {"pinsim mutants", "  pinsim mutants --seeds 2000\n  pinsim mutants --fault F16\n"
                         "  pinsim mutants --format json --junit mutants.xml\n"},
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
                << (caption == "pinsim show"
                        ? "\nExit codes: 0 the report is written (it says whether the trace passes), 2 bad usage or "
                          "input.\n"
                        : "\nExit codes: 0 passed, 1 a failure, 2 bad usage or input, 3 checked nothing.\n");
      throw HelpShown{};
    }
  po::positional_options_description pos;
  if (positional) pos.add(positional, 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).positional(pos).run(), vm);
  po::notify(vm);
  return vm;
}

bool finish_replay(const po::variables_map& vm, const TraceRun& run, RunResult* r) {
  r->trace.run = run.flags;
  r->trace.run->tree = r->variant;
  if (vm.count("record")) write_file(vm["record"].as<std::string>(), write_trace(r->trace));
  for (const WentOnPast& w : r->trace.went_on)
    std::cout << "went on past known finding " << w.finding << " at step " << w.step << " (" << w.signature << ")\n";
  if (r->failure) print_failure(*r->failure, "");
  return r->failure.has_value();
}

}  // namespace pinsim::cli
