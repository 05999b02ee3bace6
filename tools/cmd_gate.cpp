// `pinsim gate`: the regression gate on a target build within a time budget
// (sim/gate.h), with its reports. Exit codes: 0 green, 1 red (a new failure),
// 2 bad usage or input, 3 the gate checked nothing (no seed ran, no scenario
// applied), which must never pass for a green.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <regex>

#include "cli.h"
#include "crash_report.h"
#include "gate.h"
#include "gate_lane.h"
#include "gate_report.h"
#include "gate_table.h"
#include "targets.h"
#include "trace.h"
#include "wall_clock.h"

namespace pinsim::cli {

namespace {

// "120s", "10m" or "120": seconds, a positive finite number.
double parse_budget(const std::string& s) {
  static const std::regex form(R"((\d{1,7})(s|m)?)");
  std::smatch m;
  if (!std::regex_match(s, m, form)) throw UsageError("--budget: expected seconds like 120s or 10m, got '" + s + "'");
  const double n = std::stod(m[1]);
  if (n <= 0) throw UsageError("--budget: must be positive, got '" + s + "'");
  return m[2] == "m" ? n * 60 : n;
}

// The corpus's traces: those a sequential lane replays, or (`lane`) those of
// scenarios/lane/, which a concurrency lane replays. Findings are not among them.
std::vector<std::string> scenario_files(const std::string& dir, bool lane) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw UsageError("--scenarios: " + dir + ": not a directory");
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
    const std::string rel = fs::relative(e.path(), dir).generic_string();
    if (e.path().extension() == ".json" && rel.rfind("findings/", 0) != 0 && rel != "trace.schema.json" &&
        (rel.rfind("lane/", 0) == 0) == lane)
      files.push_back(e.path().generic_string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Writes each failure's trace (and its shrunk form) under `dir`, each with
// the gate's target and checks recorded (`run`), so replay needs no flags.
GateFiles write_failures(const GateResult& r, const std::string& dir, const RunFlags& run) {
  GateFiles files;
  std::filesystem::create_directories(dir);
  for (size_t i = 0; i < r.failures.size(); ++i) {
    const GateFailure& f = r.failures[i];
    const std::string base = dir + "/" + f.verdict + "-" + std::to_string(i + 1);
    files.trace_paths.push_back(base + ".json");
    Trace trace = f.trace;
    trace.run = run;
    write_file(files.trace_paths.back(), write_trace(trace));
    files.shrunk_paths.push_back(f.shrunk ? base + ".min.json" : "");
    if (f.shrunk) {
      Trace minimal = *f.shrunk;
      describe_shrunk(&minimal, f.source, f.failure);
      minimal.run = run;
      write_file(files.shrunk_paths.back(), write_trace(minimal));
    }
  }
  return files;
}

int merge(const po::variables_map& vm) {
  const std::string merged = merge_gate_json(vm["merge"].as<std::vector<std::string>>());
  if (vm.count("json")) write_file(vm["json"].as<std::string>(), merged);
  else std::cout << merged;
  const std::string v = summary_verdict(merged);
  return v == "green" ? 0 : v == "red" ? 1 : 3;
}

// `--table main=a.json pre2909=b.json`: one row per tree, printed or written
// to --markdown; the exit code follows the worst tree (red 1, checked nothing 3).
int table(const po::variables_map& vm) {
  std::vector<std::pair<std::string, std::string>> trees;
  for (const std::string& arg : vm["table"].as<std::vector<std::string>>()) {
    const size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
      throw UsageError("--table: expected NAME=FILE (a tree's name and its gate JSON summary), got '" + arg + "'");
    for (const auto& t : trees)
      if (t.first == arg.substr(0, eq)) throw UsageError("--table: tree names must differ, '" + t.first + "' twice");
    trees.emplace_back(arg.substr(0, eq), arg.substr(eq + 1));
  }
  const GateTable t = gate_table(trees);
  if (vm.count("markdown")) write_file(vm["markdown"].as<std::string>(), t.markdown);
  else std::cout << t.markdown;
  return t.verdict == "green" ? 0 : t.verdict == "red" ? 1 : 3;
}

GateOptions options_of(const po::variables_map& vm, const std::string& target) {
  GateOptions o;
  o.budget_seconds = parse_budget(vm["budget"].as<std::string>());
  o.steps = count_of(vm, "steps", 1'000'000);
  o.jobs = jobs_of(vm);
  if (o.steps == 0) throw UsageError("--steps: must be at least 1");
  o.profile = default_profile(target);
  o.log_window = target != "embedded";  // the embedded master keeps no operation log that could lag
  const std::string scenarios = vm["scenarios"].as<std::string>();
  o.scenario_files = scenario_files(scenarios, false);
  const std::string findings = vm.count("known") ? vm["known"].as<std::string>() : scenarios + "/findings";
  o.known = load_known_findings(findings);
  if (target == "mooncake") o.lane = mooncake_gate_lane(findings, o.known);
  if (o.lane) o.lane_scenario_files = scenario_files(scenarios, true);
  if (vm.count("base")) o.base = read_gate_base(vm["base"].as<std::string>());
  if (vm.count("shard")) std::tie(o.shard_k, o.shard_n) = parse_shard(vm["shard"].as<std::string>());
  o.stop_on_new = vm["stop-on-new"].as<bool>();
  if (o.base && vm.count("shard")) throw UsageError("--base and --shard: a differential run takes the base's seeds; give one");
  return o;
}

}  // namespace

int cmd_gate(const std::vector<std::string>& args) {
  po::options_description desc("pinsim gate");
  desc.add_options()
      ("budget", po::value<std::string>()->default_value("120s"), "time budget: 120s, 10m")
      ("steps", po::value<std::string>()->default_value("200"), "steps per seed (1..1000000)")
      ("scenarios", po::value<std::string>()->default_value(PINSIM_SCENARIOS_DIR), "the scenario corpus")
      ("known", po::value<std::string>(), "finding traces (default: <scenarios>/findings)")
      ("base", po::value<std::string>(), "the base tree's JSON summary: run its seeds, mark its failures pre-existing")
      ("shard", po::value<std::string>(), "K/N: run only seeds with seed % N == K")
      ("out", po::value<std::string>()->default_value("pinsim-gate"), "directory for failure traces")
      ("markdown", po::value<std::string>(), "write the Markdown report here (default: print it)")
      ("junit", po::value<std::string>(), "write JUnit XML here")
      ("json", po::value<std::string>(), "write the JSON summary here")
      ("merge", po::value<std::vector<std::string>>()->multitoken(), "combine shard summaries instead of running")
      ("table", po::value<std::vector<std::string>>()->multitoken(),
       "NAME=FILE...: one table over several trees' JSON summaries instead of running")
      ("stop-on-new", po::bool_switch(), "end at the first new failure (a mutation run needs one kill)")
      ("jobs", po::value<std::string>()->default_value("1"), "run the presets' seeds in N worker processes");
  add_target_and_check_options(desc);
  const po::variables_map vm = parse(args, desc);
  if (vm.count("merge")) return merge(vm);
  if (vm.count("table")) return table(vm);
  const std::string target = vm["target"].as<std::string>();
  const TargetFactory factory = target_or_throw(target);
  GateOptions o = options_of(vm, target);
  const std::string out = vm["out"].as<std::string>();
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) throw UsageError("--out: " + out + ": " + ec.message());
  const RunFlags crash_flags = run_flags_of(vm);
  crash_report::install(out + "/crash.json", &crash_flags);
  o.elapsed = [clock = WallClock()] { return clock.seconds(); };  // the budget is real time
  const TargetOptions options = target_options_of(vm);
  Config config;
  if (o.profile) config.profile = *o.profile;
  check_options_taken(factory, target, options, config);
  const GateResult r = run_gate(factory, options, checks_of(vm), o);
  const GateFiles files = write_failures(r, out, run_flags_of(vm, r.variant));
  std::string flags;
  for (const TargetOption& option : options) flags += " --" + option.name + " " + option.value;
  const std::string md = gate_markdown(r, target, flags, files);
  if (vm.count("markdown")) write_file(vm["markdown"].as<std::string>(), md);
  else std::cout << md;
  if (vm.count("junit")) write_file(vm["junit"].as<std::string>(), gate_junit(r));
  if (vm.count("json")) write_file(vm["json"].as<std::string>(), gate_json(r, target, files));
  return r.checked_nothing() ? 3 : r.red() ? 1 : 0;
}

}  // namespace pinsim::cli
