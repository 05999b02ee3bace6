// The pinsim command line: run (seeded campaigns) and replay (a trace).
// Exit codes: 0 all passed, 1 a comparison or expectation failed, 2 bad usage
// or bad input (one line naming the place and the reason).
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <regex>

#include "campaign.h"
#include "cli.h"
#include "cmd_concurrent.h"
#include "coverage.h"
#include "crash_report.h"
#include "explore_ladder.h"
#include "explorer.h"
#include "json_codec.h"
#include "known_findings.h"
#include <map>
#ifdef PINSIM_HAVE_EMBEDDED
#include "faults.h"
#include "mutants.h"
#endif
#include "property.h"
#include "shrink.h"
#include "summary.h"
#include "targets.h"
#include "trace.h"
#include "wall_clock.h"

namespace po = boost::program_options;
using namespace pinsim;
using namespace pinsim::cli;

namespace pinsim::cli {
int cmd_gate(const std::vector<std::string>& args);  // cmd_gate.cpp
int cmd_run(const std::vector<std::string>& args);   // cmd_run.cpp
int cmd_list(const std::vector<std::string>& args);  // cmd_list.cpp
int cmd_show(const std::vector<std::string>& args);  // cmd_show.cpp
}

namespace {

const char* kUsage = R"(usage: pinsim <command> [options]

Commands:
  run      a seeded campaign in lockstep against a target
             pinsim run --seeds 1..1000 --steps 200 --swarm
             pinsim run --seed 7 --trace seed7.json      (record one seed)
           or, with --actors, actors at once under the deterministic scheduler
             pinsim run --target embedded --actors 3 --background evict,cleanup --seeds 1..100
  replay   replay a trace (a scenario, a recorded seed, a CI finding)
             pinsim replay scenarios/rfc/rule7-preserve-drops-expired.json --target model
  explore  every op sequence up to a depth over a small universe, breadth first;
           with --seconds and no universe flag, a ladder of universes, small ones first
             pinsim explore --depth 4 --keys 2 --actors 2 --tenants 1 --groups 1
             pinsim explore --target embedded --fault F2 --seconds 60
  mutants  the mutation score: the campaign against each seeded fault of the
           embedded target, seeds and time to kill, shrunk counterexample length
             pinsim mutants --seeds 2000
  gate     the regression gate on a target build: scenarios, known findings, a
           campaign over the aimed presets, shrunk new failures; exit 0 green, 1 red,
           3 checked nothing
             pinsim gate --target mooncake --budget 120s --junit gate.xml
  shrink   minimise a failing trace; it fails the same way, in fewer steps (exit 1:
           the minimal trace still fails; exit 2: the input does not fail)
             pinsim shrink pinsim-failure.json --out minimal.json

  show     draw a trace as one self-contained HTML file (lanes per object over the steps)
             pinsim show pinsim-failure.json -o report.html
  list     what this build knows: pinsim list faults|properties|rules|targets|ops|presets

A trace records the target, faults, properties and compare mode of the run that
wrote it; replay, shrink and show use them (a contradicting flag is refused).
Every command takes --help. pinsim --version prints the version.
Exit codes: 0 passed, 1 a difference or failed expectation, 2 bad usage or input,
3 the run checked nothing (no seed ran, an explore stopped by a limit, a coverage
requirement not met).
)";


// --profile on replay: the trace's own profile unless given; a trace that
// records its run keeps its profile (a contradiction is refused).
void apply_profile(const po::variables_map& vm, Trace* trace, const std::string& path) {
  if (!vm.count("profile")) return;
  const std::string name = vm["profile"].as<std::string>();
  const auto profile = parse_profile(name);
  if (!profile) throw UsageError("--profile: unknown profile '" + name + "' (rfc, mooncake-main)");
  if (trace->run && !vm["ignore-recorded"].as<bool>() && *profile != trace->config.profile)
    throw UsageError(path + ": --profile " + name + " contradicts the trace's recorded profile " +
                     std::string(to_string(trace->config.profile)) + " (drop the flag, or give --ignore-recorded)");
  trace->config.profile = *profile;
}

int cmd_replay(const std::vector<std::string>& args) {
  po::options_description desc("pinsim replay");
  desc.add_options()
      ("trace", po::value<std::string>(), "trace file")
      ("record", po::value<std::string>(), "write the replayed trace here")
      ("require-rule", po::bool_switch(), "fail unless the model applied the trace's own rule")
      ("profile", po::value<std::string>(), "replay under this profile instead of the trace's: rfc or mooncake-main")
      ("max-trace-mb", po::value<std::string>()->default_value("64"), "refuse a trace file larger than this");
  add_trace_run_options(desc);
  const po::variables_map vm = parse(args, desc, "trace");
  if (!vm.count("trace")) throw UsageError("replay: missing trace file");
  const std::string path = vm["trace"].as<std::string>();
  Trace trace = load_trace(path, count_of(vm, "max-trace-mb", 1u << 20) << 20);
  apply_profile(vm, &trace, path);
  const TraceRun run = trace_run_of(vm, trace, path);
  if (trace.concurrent) return replay_concurrent_trace(vm, trace, run, path);
  RunResult r = replay(trace, run.factory, run.options, run.checks);
  if (!r.error.empty()) throw UsageError(path + ": $.config: " + r.error);
  if (finish_replay(vm, run, &r)) return 1;
  if (vm["require-rule"].as<bool>()) {
    const auto rule = parse_rule(trace.rule);
    if (!rule) throw UsageError(path + ": $.rule: unknown rule '" + trace.rule + "'");
    if (r.hits[*rule] == 0) {
      std::printf("%s: the model never applied rule %s during the replay\n", path.c_str(), trace.rule.c_str());
      return 1;
    }
  }
  const size_t gone_past = r.trace.went_on.size();
  std::printf("%s: %zu steps replayed against %s, all matched%s\n", path.c_str(), trace.steps.size(),
              run.flags.target.c_str(),
              gone_past ? (" but " + std::to_string(gone_past) + " known finding(s) gone past").c_str() : "");
  if (r.unchecked_expectations)
    std::printf("%s: %llu expected state fields were not compared on %s (it cannot show them)\n", path.c_str(),
                static_cast<unsigned long long>(r.unchecked_expectations), run.flags.target.c_str());
  return 0;
}

// A comma-separated list of numbers for an explore flag ("1,500,600001").
std::vector<uint64_t> parse_list(const std::string& flag, const std::string& text) {
  static const std::regex list(R"(\d{1,19}(,\d{1,19})*)");
  if (!std::regex_match(text, list)) throw UsageError("--" + flag + ": expected numbers separated by commas, got '" + text + "'");
  std::vector<uint64_t> out;
  for (size_t i = 0; i < text.size();) {
    const size_t comma = std::min(text.find(',', i), text.size());
    try {
      out.push_back(std::stoull(text.substr(i, comma - i)));
    } catch (const std::out_of_range&) {
      throw UsageError("--" + flag + ": number out of range in '" + text + "'");
    }
    i = comma + 1;
  }
  return out;
}

// --ops: weight 1 for each op kind of a comma-separated list, 0 for the rest.
std::array<uint32_t, kOpKindCount> weights_of_ops(const std::string& list) {
  std::string unknown;
  if (auto weights = op_weights(list, &unknown)) return *weights;
  throw UsageError("--ops: unknown op '" + unknown + "'");
}

// What an explore ran: one universe, or the rungs of the ladder it climbed
// (`rungs` empty for one universe; the counterexample, if any, is the last
// rung's). `total` sums the rungs' states and transitions; its depth is the
// last rung's.
struct ExploreRun {
  ExploreResult total;
  uint32_t max_depth = 0;
  std::vector<RungResult> rungs;
  std::vector<double> rung_seconds;
  std::string stopped_by;  // the limit that cut the explore (or a rung) short, "" if none
};

std::string rung_label(const RungResult& r) {
  const LadderRung& rung = explore_ladder()[r.index];
  return "rung " + std::to_string(r.index + 1) + "/" + std::to_string(explore_ladder().size()) + " (" +
         std::string(rung.name) + ")";
}

std::string stop_reason(const ExploreResult& r) {
  return r.capped ? "the memory cap" : r.stopped ? "the time limit" : "";
}

// The ladder's part of the JSON summary: each rung run, and the one that found the counterexample.
void add_rungs(const ExploreRun& run, nlohmann::json* extra) {
  nlohmann::json rows = nlohmann::json::array();
  for (size_t i = 0; i < run.rungs.size(); ++i) {
    const RungResult& r = run.rungs[i];
    const LadderRung& rung = explore_ladder()[r.index];
    rows.push_back({{"rung", r.index + 1}, {"name", rung.name}, {"universe", describe(rung)},
                    {"max_depth", r.max_depth}, {"depth", r.result.depth}, {"states", r.result.states},
                    {"expanded", r.result.expanded}, {"transitions", r.result.transitions},
                    {"seconds", run.rung_seconds[i]}, {"stopped_by", stop_reason(r.result)},
                    {"refused", r.result.refused}, {"found", r.result.counterexample.has_value()}});
  }
  const bool found = !run.rungs.empty() && run.rungs.back().result.counterexample;
  (*extra)["ladder"] = !run.rungs.empty();
  (*extra)["rungs"] = rows;
  (*extra)["rung"] = found ? run.rungs.back().index + 1 : 0;
  (*extra)["rung_name"] = found ? std::string(explore_ladder()[run.rungs.back().index].name) : "";
}

// The explore's outcome: text (a line, and the counterexample), or the JSON
// summary; JUnit with one case. Exit 0 full pass, 1 a counterexample, 3 a
// limit stopped it (not a full pass).
int report_explore(const po::variables_map& vm, const ExploreRun& run, double secs) {
  const bool text = !json_output(vm);
  const ExploreResult& r = run.total;
  const std::string found = run.rungs.empty() || !r.counterexample ? "" : ", found by " + rung_label(run.rungs.back());
  if (text)
    std::printf("explored depth %u%s: %llu distinct states (%llu expanded), %llu transitions, %.2f s, "
                "%.0f states/s, %.0f transitions/s%s\n",
                r.depth, run.stopped_by.empty() ? "" : (" (stopped by " + run.stopped_by + ")").c_str(),
                static_cast<unsigned long long>(r.states), static_cast<unsigned long long>(r.expanded),
                static_cast<unsigned long long>(r.transitions), secs, secs > 0 ? r.states / secs : 0.0,
                secs > 0 ? r.transitions / secs : 0.0, found.c_str());
  if (text)
    for (const auto& [file, n] : r.known)
      std::printf("known finding %s: %llu transitions\n", file.c_str(), static_cast<unsigned long long>(n));
  const std::string target = vm["target"].as<std::string>();
  const int code = r.counterexample ? 1 : run.stopped_by.empty() ? 0 : 3;
  Summary sum{"explore", target, r.counterexample ? r.counterexample->variant : "",
              code == 1 ? "red" : code == 3 ? "checked nothing" : "green", secs, {}, {}, nlohmann::json::object()};
  sum.extra = {{"depth", r.depth}, {"max_depth", run.max_depth}, {"states", r.states}, {"expanded", r.expanded},
               {"transitions", r.transitions}, {"stopped_by", run.stopped_by}, {"exit_code", code},
               {"known", r.known}};
  add_rungs(run, &sum.extra);
  const std::string what = run.rungs.empty() ? " depth " + std::to_string(run.max_depth) : " ladder";
  JUnitCase c{"explore", target + what, {}, run.stopped_by.empty() ? "" : "stopped by " + run.stopped_by, ""};
  if (r.counterexample) {
    const std::string out = vm["out"].as<std::string>();
    Trace trace = r.counterexample->trace;
    if (!run.rungs.empty()) trace.description += ", " + rung_label(run.rungs.back());
    trace.run = run_flags_of(vm, r.counterexample->variant);
    write_file(out, write_trace(trace));
    const Failure& f = *r.counterexample->failure;
    if (text) print_failure(f, out);
    const std::string source = "explore depth " + std::to_string(trace.steps.size());
    sum.failures.push_back({source, failure_signature(f, trace), "new", "", f.detail, out, ""});
    c.failures.emplace_back(sum.failures.back().signature, f.detail);
  }
  write_summary(vm, sum, {c});
  return code;
}

// The shared target options: `model` explores the model alone, so a fault or
// --no-compare (nothing to compare) is refused there; --property narrows the
// properties checked on every transition either way.
void explore_target(const po::variables_map& vm, ExploreOptions& o) {
  const std::string target = vm["target"].as<std::string>();
  o.target_options = target_options_of(vm);
  o.checks = checks_of(vm);
  if (target == "model") {
    if (vm.count("fault")) throw UsageError("--fault: needs --target (the model has no faults)");
    if (!o.checks.compare_with_model)
      throw UsageError("--no-compare: needs --target (the model alone compares nothing)");
    return;
  }
  o.target = target_or_throw(target);
  check_options_taken(o.target, target, o.target_options, o.config);
}

void add_explore_options(po::options_description& desc) {
  desc.add_options()
      ("depth", po::value<std::string>()->default_value("4"), "maximum number of ops")
      ("keys", po::value<std::string>()->default_value("2"), "keys in the universe")
      ("actors", po::value<std::string>()->default_value("2"), "actors (clients)")
      ("tenants", po::value<std::string>()->default_value("1"), "tenants")
      ("groups", po::value<std::string>()->default_value("1"), "groups")
      ("replicas", po::value<std::string>()->default_value("1"), "writes ask for 0..N memory replicas")
      ("nof", po::value<std::string>()->default_value("1"), "writes ask for 0..N NoF replicas (0: memory only)")
      ("ttls", po::value<std::string>()->default_value("500"), "soft-pin TTLs an Enable may name (ms, comma list)")
      ("retention-ttls", po::value<std::string>()->default_value("500,5000"), "RetainGroups TTLs (ms, comma list)")
      ("steps", po::value<std::string>()->default_value("1,1000,600001"), "time steps of advance (ms, comma list); advances aimed at deadlines come on top")
      ("evict", po::value<std::string>()->default_value("100"), "eviction targets (percent, comma list)")
      ("retain-max", po::value<std::string>()->default_value("1"), "RetainGroups names 0..N groups")
      ("invalid", po::bool_switch(), "also generate requests that break a request rule")
      ("hard-pin", po::bool_switch(), "writes may also ask for a hard pin (doubles the writes' fan-out)")
      ("ops", po::value<std::string>(), "only these op kinds (comma list of names, e.g. put_start,put_end,get,advance)")
      ("profile", po::value<std::string>()->default_value("rfc"), "rfc or mooncake-main")
      ("memory-mb", po::value<std::string>()->default_value("1024"), "stop cleanly when the visited set would exceed this")
      ("seconds", po::value<std::string>(),
       "stop cleanly after this much time; without a universe flag, climb the ladder of universes (docs/explorer.md)")
      ("out", po::value<std::string>()->default_value("pinsim-explore-failure.json"), "where to write a counterexample")
      ("known", po::value<std::string>(),
       "DIR of finding traces: a transition failing as one is counted as known, its state not expanded")
      ("jobs", po::value<std::string>()->default_value("1"),
       "replay each level's transitions in N worker processes (--target mooncake; same result as 1)");
  add_target_and_check_options(desc);  // --target model (the default): the model alone, no lockstep
  add_summary_options(desc);
}

// The flags given on the command line (not those left at their defaults).
std::vector<std::string> named_flags(const po::variables_map& vm) {
  std::vector<std::string> named;
  for (const auto& [name, value] : vm)
    if (!value.defaulted()) named.push_back(name);
  return named;
}

// The universe the flags name (the default universe when none is named).
void explore_universe(const po::variables_map& vm, ExploreOptions& o) {
  WorkloadConfig& w = o.workload;
  o.max_depth = static_cast<uint32_t>(count_of(vm, "depth", 64));
  w.keys = static_cast<uint32_t>(count_of(vm, "keys", 64));
  w.actors = static_cast<uint32_t>(count_of(vm, "actors", 16));
  w.tenants = static_cast<uint32_t>(count_of(vm, "tenants", 16));
  w.groups = static_cast<uint32_t>(count_of(vm, "groups", 64));
  if (!w.keys || !w.actors || !w.tenants) throw UsageError("explore: keys, actors and tenants must be at least 1");
  w.max_memory_replicas = static_cast<uint32_t>(count_of(vm, "replicas", 8));
  w.max_nof_replicas = static_cast<uint32_t>(count_of(vm, "nof", 8));
  w.max_retain_groups = static_cast<uint32_t>(count_of(vm, "retain-max", 8));
  w.sizes = {32};
  w.soft_pin_ttls = parse_list("ttls", vm["ttls"].as<std::string>());
  w.retention_ttls = parse_list("retention-ttls", vm["retention-ttls"].as<std::string>());
  w.advance_steps = parse_list("steps", vm["steps"].as<std::string>());
  w.evict_target_pcts.clear();
  for (uint64_t pct : parse_list("evict", vm["evict"].as<std::string>())) {
    if (pct == 0 || pct > 100) throw UsageError("--evict: a target must be 1..100 percent, got " + std::to_string(pct));
    w.evict_target_pcts.push_back(static_cast<uint32_t>(pct));
  }
  const bool invalid = vm["invalid"].as<bool>();
  w.invalid_request_pct = invalid ? 4 : 0;
  w.invalid_retain_pct = invalid ? 5 : 0;
  w.regroup_pct = invalid ? 5 : 0;
  w.hard_pin_pct = vm["hard-pin"].as<bool>() ? 8 : 0;
  w.group_shape_pct = invalid ? 6 : 0;
  if (vm.count("ops")) w.weights = weights_of_ops(vm["ops"].as<std::string>());
}

// How one rung ended, for its progress line.
std::string rung_outcome(const ExploreResult& r) {
  const std::string depth = std::to_string(r.depth);
  if (!r.refused.empty()) return "refused (" + r.refused + "), skipped";
  if (r.counterexample) return "counterexample at depth " + std::to_string(r.counterexample->trace.steps.size());
  if (!stop_reason(r).empty()) return "stopped by " + stop_reason(r) + " after depth " + depth;
  return "no counterexample to depth " + depth;
}

// The ladder (docs/explorer.md): each rung ends by its share of the budget,
// a line per rung as it ends. Every rung refused is bad usage. `start` is
// the budget's start, in wall_seconds().
ExploreRun climb(const po::variables_map& vm, const ExploreOptions& o, double start, double seconds) {
  ExploreRun run;
  LadderOptions l{o, std::nullopt, nullptr, nullptr};
  if (!vm["depth"].defaulted()) l.max_depth = o.max_depth;
  l.budget = [start, seconds](uint32_t pct) {
    const double until = start + seconds * pct / 100;
    return std::function<bool()>([until] { return wall_seconds() > until; });
  };
  double rung_start = start;
  const bool text = !json_output(vm);
  l.on_rung = [&](const RungResult& r) {
    const double now = wall_seconds();
    run.rung_seconds.push_back(now - rung_start);
    rung_start = now;
    if (!text) return;
    std::printf("%s, depth <= %u: %s; %llu states, %llu transitions, %.2f s\n", rung_label(r).c_str(),
                r.max_depth, rung_outcome(r.result).c_str(),
                static_cast<unsigned long long>(r.result.states), static_cast<unsigned long long>(r.result.transitions),
                run.rung_seconds.back());
    std::fflush(stdout);
  };
  LadderResult climbed = climb_ladder(l);
  if (!climbed.refused.empty())
    throw UsageError("explore --target " + vm["target"].as<std::string>() + ": " + climbed.refused);
  run.rungs = std::move(climbed.rungs);
  for (RungResult& r : run.rungs) {
    run.total.states += r.result.states;
    run.total.expanded += r.result.expanded;
    run.total.transitions += r.result.transitions;
    for (const auto& [file, n] : r.result.known) run.total.known[file] += n;
    if (!stop_reason(r.result).empty()) run.stopped_by = stop_reason(r.result);
  }
  run.total.depth = run.rungs.back().result.depth;
  run.max_depth = run.rungs.back().max_depth;
  run.total.counterexample = std::move(run.rungs.back().result.counterexample);
  return run;
}

// `pinsim explore`: one universe, or with --seconds and no universe flag the
// ladder of universes, small ones first (docs/explorer.md).
int cmd_explore(const std::vector<std::string>& args) {
  po::options_description desc("pinsim explore");
  add_explore_options(desc);
  const po::variables_map vm = parse(args, desc);
  json_output(vm);  // a bad --format or an unwritable --junit is refused before the explore
  check_writable(vm["out"].as<std::string>());
  ExploreOptions o;
  explore_universe(vm, o);
  auto profile = parse_profile(vm["profile"].as<std::string>());
  if (!profile) throw UsageError("--profile: unknown profile '" + vm["profile"].as<std::string>() + "'");
  o.config.profile = *profile;
  o.max_memory_bytes = count_of(vm, "memory-mb", 1u << 20) << 20;  // at most 1 TiB
  explore_target(vm, o);
  o.jobs = jobs_of(vm);
  if (vm.count("known")) o.known = load_known_findings(vm["known"].as<std::string>());
  const double start = wall_seconds();
  const double seconds = vm.count("seconds") ? static_cast<double>(count_of(vm, "seconds", 7 * 24 * 3600)) : 0;
  ExploreRun run;
  if (climbs_ladder(vm.count("seconds") > 0, named_flags(vm))) {
    run = climb(vm, o, start, seconds);
  } else {
    if (vm.count("seconds")) {
      o.should_stop = [start, seconds] { return wall_seconds() - start > seconds; };
    }
    run.total = explore(o);
    if (!run.total.refused.empty())
      throw UsageError("explore --target " + vm["target"].as<std::string>() + ": " + run.total.refused);
    run.max_depth = o.max_depth;
    run.stopped_by = stop_reason(run.total);
  }
  const double secs = wall_seconds() - start;
  return report_explore(vm, run, secs);
}

#ifdef PINSIM_HAVE_EMBEDDED
// The mutants' JSON summary and JUnit: one case per fault, a failure when it survived.
void write_mutants_summary(const po::variables_map& vm, const std::vector<MutantResult>& results, uint64_t seeds) {
  size_t killed = 0;
  double secs = 0;
  nlohmann::json rows = nlohmann::json::array();
  std::vector<JUnitCase> cases;
  for (const MutantResult& m : results) {
    killed += m.killed;
    secs += m.seconds;
    rows.push_back({{"fault", m.fault}, {"killed", m.killed}, {"seeds", m.seeds}, {"steps", m.steps},
                    {"seconds", m.seconds}, {"shrunk_steps", m.shrunk_steps}, {"caught_by", m.caught_by},
                    {"lane", m.interleaving ? "interleaving" : "sequential"}, {"shrunk_schedule", m.shrunk_schedule}});
    JUnitCase c{"mutant", m.fault, {}, "", m.killed ? "killed by " + m.caught_by : ""};
    if (!m.killed) c.failures.emplace_back("survived", m.fault + " survived " + std::to_string(m.seeds) + " seeds");
    cases.push_back(std::move(c));
  }
  const bool all = killed == results.size();
  Summary sum{"mutants", "embedded", "", all ? "green" : "red", secs, {}, {}, nlohmann::json::object()};
  sum.extra = {{"mutants", rows}, {"killed", killed}, {"total", results.size()}, {"seed_budget", seeds},
               {"exit_code", all ? 0 : 1}};
  write_summary(vm, sum, cases);
}
#endif

int cmd_mutants(const std::vector<std::string>& args) {
  po::options_description desc("pinsim mutants");
  desc.add_options()
      ("seeds", po::value<std::string>()->default_value("2000"), "seed budget per fault")
      ("steps", po::value<std::string>()->default_value("200"), "steps per seed")
      ("fault", po::value<std::vector<std::string>>()->composing(), "only these faults");
  add_summary_options(desc);
  const po::variables_map vm = parse(args, desc);
#ifdef PINSIM_HAVE_EMBEDDED
  const bool text = !json_output(vm);
  const auto only = vm.count("fault") ? vm["fault"].as<std::vector<std::string>>() : std::vector<std::string>{};
  embedded::Faults check;
  std::string error;
  if (!embedded::parse_faults(only, &check, &error)) throw UsageError("--fault: " + error);
  const uint64_t seeds = count_of(vm, "seeds", 10'000'000), steps = count_of(vm, "steps", 1'000'000);
  if (seeds == 0 || steps == 0) throw UsageError("mutants: --seeds and --steps must be at least 1");
  if (text) print_mutants_header(stdout);
  const auto results = run_mutants(seeds, steps, only, [text](const MutantResult& m) {
    if (text) print_mutant(stdout, m);
  });
  if (text) print_mutation_score(stdout, results);
  write_mutants_summary(vm, results, seeds);
  return std::all_of(results.begin(), results.end(), [](const MutantResult& m) { return m.killed; }) ? 0 : 1;
#else
  throw UsageError("mutants: this build has no embedded target");
#endif
}

int cmd_shrink(const std::vector<std::string>& args) {
  po::options_description desc("pinsim shrink");
  desc.add_options()
      ("trace", po::value<std::string>(), "failing trace file")
      ("out", po::value<std::string>()->default_value("pinsim-shrunk.json"), "where to write the minimal trace")
      ("max-trace-mb", po::value<std::string>()->default_value("64"), "refuse a trace file larger than this");
  add_trace_run_options(desc);
  const po::variables_map vm = parse(args, desc, "trace");
  if (!vm.count("trace")) throw UsageError("shrink: missing trace file");
  const std::string path = vm["trace"].as<std::string>();
  const Trace trace = load_trace(path, count_of(vm, "max-trace-mb", 1u << 20) << 20);
  if (auto reason = validate(trace.config)) throw UsageError(path + ": $.config: " + *reason);
  const TraceRun run = trace_run_of(vm, trace, path);
  if (trace.concurrent) return shrink_concurrent_trace(vm, trace, run, path);
  const WallClock clock;
  const auto r = shrink(trace, run.factory, run.options, run.checks);
  if (!r) throw UsageError(path + ": the trace does not fail against " + run.flags.target + ", nothing to shrink");
  const double secs = clock.seconds();
  Trace minimal = r->trace;
  describe_shrunk(&minimal, path, r->failure);
  minimal.run = run.flags;
  const std::string out = vm["out"].as<std::string>();
  write_file(out, write_trace(minimal));
  std::printf("%s: %zu steps -> %zu steps (%zu replays, %.3f s), written to %s\n", path.c_str(), trace.steps.size(),
              r->trace.steps.size(), r->replays, secs, out.c_str());
  print_failure(r->failure, out);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::cout << "pinsim " PINSIM_VERSION "\n";
    return 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  crash_report::install("pinsim-crash.json");
  try {
    if (command == "run") return cmd_run(args);
    if (command == "replay") return cmd_replay(args);
    if (command == "shrink") return cmd_shrink(args);
    if (command == "mutants") return cmd_mutants(args);
    if (command == "explore") return cmd_explore(args);
    if (command == "gate") return cmd_gate(args);
    if (command == "list") return cmd_list(args);
    if (command == "show") return cmd_show(args);
    throw UsageError("unknown command '" + command + "' (try pinsim --help)");
  } catch (const HelpShown&) {
    return 0;
  } catch (const UsageError& e) {
    std::cerr << "pinsim: " << e.what() << "\n";
  } catch (const DecodeError& e) {
    std::cerr << "pinsim: " << e.what() << "\n";
  } catch (const po::error& e) {
    std::cerr << "pinsim " << command << ": " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "pinsim " << command << ": " << e.what() << "\n";
  }
  return 2;
}
