// `pinsim run`: a seeded campaign through the one seed loop (run_campaign).
// Prints a summary line, the first failure with the command that reproduces
// it, known findings by file, and optionally rule coverage and the harness's
// overhead. Exit codes: 0 passed, 1 a failure, 2 bad usage or input, 3 the
// run checked nothing (no seed ran, or every seed had 0 steps).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli.h"
#include "cmd_concurrent.h"
#include "crash_report.h"
#include "coverage.h"
#include "overhead.h"
#include "presets.h"
#include "summary.h"
#include "targets.h"
#include "trace.h"
#include "wall_clock.h"

namespace pinsim::cli {

namespace {

CampaignOptions campaign_options(const po::variables_map& vm, const std::string& target) {
  CampaignOptions o;
  o.first = 1, o.last = 1000;
  if (vm.count("seed") && vm.count("seeds")) throw UsageError("--seed and --seeds: give one of them");
  if (vm.count("seed")) o.first = o.last = parse_count("--seed", vm["seed"].as<std::string>(), UINT64_MAX - 1);
  if (vm.count("seeds")) std::tie(o.first, o.last) = parse_seeds(vm["seeds"].as<std::string>());
  if (vm.count("shard")) std::tie(o.shard_k, o.shard_n) = parse_shard(vm["shard"].as<std::string>());
  o.seed.steps = parse_count("--steps", vm["steps"].as<std::string>(), 1'000'000);
  if (o.seed.steps == 0) throw UsageError("--steps: 0 steps would check nothing");
  o.seed.swarm = vm["swarm"].as<bool>();
  o.seed.log_window = target != "embedded";  // the embedded master keeps no operation log that could lag
  if (vm.count("preset")) {
    o.seed.preset = find_preset(vm["preset"].as<std::string>());
    if (!o.seed.preset) throw UsageError("--preset: unknown preset '" + vm["preset"].as<std::string>() + "'");
  }
  if (vm.count("profile")) {
    o.seed.profile = parse_profile(vm["profile"].as<std::string>());
    if (!o.seed.profile) throw UsageError("--profile: unknown profile '" + vm["profile"].as<std::string>() + "' (rfc, mooncake-main)");
  } else if ((o.seed.profile = default_profile(target))) {
    std::fprintf(stderr, "pinsim: target %s is checked against profile %s\n", target.c_str(),
                 std::string(to_string(*o.seed.profile)).c_str());
  }
  if (vm.count("known")) o.known = load_known_findings(vm["known"].as<std::string>());
  o.jobs = jobs_of(vm);
  o.passing_traces = vm.count("trace") || vm["overhead"].as<bool>();
  return o;
}

// Progress: a rewritten line on a terminal, a line every `every` (10 s) in a
// CI log.
class Progress {
 public:
  Progress(uint64_t total, std::chrono::seconds every)
      : total_(total), every_(static_cast<double>(every.count())), tty_(isatty(STDERR_FILENO)) {}
  void update(const CampaignSummary& s) {
    const double secs = clock_.seconds();
    if (secs - last_ < (tty_ ? 0.5 : every_)) return;
    last_ = secs;
    const uint64_t done = s.seeds + s.refused;
    const double eta = done ? secs * static_cast<double>(total_ - std::min(done, total_)) / static_cast<double>(done) : 0;
    std::fprintf(stderr, tty_ ? "\r%llu/%llu seeds, %.0f steps/s, %llu failures, ETA %.0f s " :
                                "%llu/%llu seeds, %.0f steps/s, %llu failures, ETA %.0f s\n",
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_),
                 secs > 0 ? s.steps / secs : 0.0,
                 static_cast<unsigned long long>(s.failures), eta);
  }
  void done() const {
    if (tty_) std::fprintf(stderr, "\r%70s\r", "");
  }
  double seconds() const { return clock_.seconds(); }

 private:
  uint64_t total_;
  double every_;  // seconds between lines in a CI log
  bool tty_;
  WallClock clock_;
  double last_ = 0;  // clock_'s seconds at the last line
};

void print_summary(const po::variables_map& vm, const CampaignOptions& o, const CampaignSummary& s, size_t properties,
                   double secs) {
  std::printf("target %s, seeds %llu..%llu%s%s: %llu seeds, %llu steps, %zu properties, %llu checks, %llu failures, "
              "%.1f s, %.0f steps/s\n", vm["target"].as<std::string>().c_str(), static_cast<unsigned long long>(o.first),
              static_cast<unsigned long long>(o.last),
              o.seed.preset ? (" (preset " + std::string(o.seed.preset->name) + ")").c_str() : o.seed.swarm ? " (swarm)" : "",
              o.shard_n > 1 ? (" shard " + std::to_string(o.shard_k) + "/" + std::to_string(o.shard_n)).c_str() : "",
              static_cast<unsigned long long>(s.seeds), static_cast<unsigned long long>(s.steps), properties,
              static_cast<unsigned long long>(s.comparisons), static_cast<unsigned long long>(s.failures), secs,
              secs > 0 ? s.steps / secs : 0.0);
  if (s.refused) std::printf("%llu swarm configurations refused by the target (not run)\n", static_cast<unsigned long long>(s.refused));
  for (const auto& [file, n] : s.known) std::printf("known finding %s: %llu seeds\n", file.c_str(), static_cast<unsigned long long>(n));
}

}  // namespace

// --out-dir, created and checked writable before any seed runs ("" if absent).
std::string prepared_out_dir(const po::variables_map& vm) {
  const std::string dir = vm.count("out-dir") ? vm["out-dir"].as<std::string>() : "";
  if (dir.empty()) return dir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  check_writable(dir + "/.pinsim-probe");
  return dir;
}

namespace {

// "a swarm draw aimed at one area (swarm, groups, ...)": the preset table's names.
std::string preset_help() {
  std::string names;
  for (const Preset& p : presets()) names += (names.empty() ? "" : ", ") + std::string(p.name);
  return "a swarm draw aimed at one area (" + names + ")";
}

po::options_description run_options() {
  static const std::string presets_help = preset_help();
  po::options_description desc("pinsim run");
  desc.add_options()
      ("seed", po::value<std::string>(), "run one seed")
      ("seeds", po::value<std::string>(), "run seeds A..B (inclusive; default 1..1000)")
      ("steps", po::value<std::string>()->default_value("200"), "steps per seed (1..1000000)")
      ("swarm", po::bool_switch(), "draw the op mix and master configuration per seed")
      ("preset", po::value<std::string>(), presets_help.c_str())
      ("profile", po::value<std::string>(), "rfc or mooncake-main (default: rfc, or the Mooncake tree's)")
      ("shard", po::value<std::string>(), "K/N: run only seeds with seed % N == K")
      ("out", po::value<std::string>()->default_value("pinsim-failure.json"), "where to write the first failing trace")
      ("trace", po::value<std::string>(), "write the trace of the (single) seed run here")
      ("coverage", po::bool_switch(), "print the rule-coverage report after the summary")
      ("known", po::value<std::string>(), "DIR of finding traces: failures matching one are reported as known, not red")
      ("overhead", po::bool_switch(), "also time each seed's ops in lockstep and against the target alone")
      ("require-rules", po::value<std::string>(), "'all': exit 3 unless every rule of the model was applied (implies --coverage)")
      ("out-dir", po::value<std::string>(), "write every failing seed's trace here (seed-N.json), not only the first")
      ("max-failures", po::value<std::string>(), "stop after this many failing seeds")
      ("stop-on-failure", po::bool_switch(), "stop at the first failing seed (--max-failures 1)")
      ("jobs", po::value<std::string>()->default_value("1"), "run seeds in N worker processes (same output as 1)")
      ("progress-every", po::value<std::string>()->default_value("10"),
       "seconds between progress lines when stderr is not a terminal (0: before every seed)");
  add_target_and_check_options(desc);
  add_concurrent_options(desc);
  add_summary_options(desc);
  return desc;
}

uint64_t max_failures_of(const po::variables_map& vm) {
  if (vm.count("max-failures") && vm["stop-on-failure"].as<bool>())
    throw UsageError("--max-failures and --stop-on-failure: give one of them");
  const uint64_t max =
      vm["stop-on-failure"].as<bool>() ? 1
      : vm.count("max-failures")       ? parse_count("--max-failures", vm["max-failures"].as<std::string>(), UINT64_MAX)
                                       : UINT64_MAX;
  if (max == 0) throw UsageError("--max-failures: 0 would stop before the first seed");
  return max;
}

std::vector<std::string> rules_never_hit(const RuleHits& hits) {
  std::vector<std::string> names;
  for (const RuleInfo& info : rule_catalogue())
    if (hits[info.rule] == 0) names.emplace_back(info.name);
  return names;
}

// The run as the JSON summary and JUnit see it: one run entry, the failing
// seeds (known ones included), and the run's own figures.
void write_run_summary(const po::variables_map& vm, const CampaignOptions& o, const CampaignSummary& s,
                       const std::vector<SummaryFailure>& failures, const std::string& tree, double secs, int code,
                       bool coverage) {
  const std::string mode = o.seed.preset ? std::string(o.seed.preset->name) : o.seed.swarm ? "swarm" : "fixed";
  Summary sum{"run", vm["target"].as<std::string>(), tree, code == 1 ? "red" : code == 3 ? "checked nothing" : "green",
              secs, {{mode, s.seeds, s.refused, s.steps, {}}}, failures, nlohmann::json::object()};
  sum.extra["seeds"] = {{"first", o.first}, {"last", o.last}};
  sum.extra["shard"] = o.shard_n > 1 ? std::to_string(o.shard_k) + "/" + std::to_string(o.shard_n) : "";
  sum.extra["checks"] = s.comparisons;
  sum.extra["known"] = s.known;
  sum.extra["exit_code"] = code;
  if (coverage) sum.extra["rules_never_hit"] = rules_never_hit(s.hits);
  const std::string name =
      sum.target + " seeds " + std::to_string(o.first) + ".." + std::to_string(o.last) + " (" + mode + ")";
  JUnitCase c{"run", name, {}, code == 3 ? "checked nothing" : "", ""};
  for (const SummaryFailure& f : failures) {
    if (f.verdict == "new") c.failures.emplace_back(f.signature, f.source + ": " + f.detail);
    else c.system_out += f.source + ": known finding " + f.known + "\n";
  }
  write_summary(vm, sum, {c});
}

}  // namespace

int cmd_run(const std::vector<std::string>& args) {
  const po::variables_map vm = parse(args, run_options());
  const bool text = !json_output(vm);
  const std::string target = vm["target"].as<std::string>();
  const TargetFactory factory = target_or_throw(target);
  CampaignOptions o = campaign_options(vm, target);
  const RunFlags crash_flags = run_flags_of(vm);
  crash_report::install("pinsim-crash.json", &crash_flags);
  if (vm.count("trace") && o.first != o.last) throw UsageError("--trace: records one seed; use --seed");
  const std::string out = vm["out"].as<std::string>();
  check_writable(out);
  if (vm.count("require-rules") && vm["require-rules"].as<std::string>() != "all")
    throw UsageError("--require-rules: only 'all' is known, got '" + vm["require-rules"].as<std::string>() + "'");
  const uint64_t max_failures = max_failures_of(vm);
  const std::string out_dir = prepared_out_dir(vm);
  const TargetOptions target_options = target_options_of(vm);
  const Checks checks = checks_of(vm);
  Config fixed;  // the configuration of a run without --swarm or --preset
  if (o.seed.profile) fixed.profile = *o.seed.profile;
  check_options_taken(factory, target, target_options, fixed);
  if (!o.seed.swarm && !o.seed.preset) {  // one fixed configuration: refused means bad usage
    std::string error;
    if (!factory(fixed, target_options, &error)) throw UsageError("--target " + target + ": " + error);
  }
  setup_concurrent(vm, &o, factory, target_options, checks);  // the concurrent lane, with --actors
  Progress progress(o.last - o.first + 1, std::chrono::seconds(count_of(vm, "progress-every", 86400)));
  o.more = [&progress](const CampaignSummary& s) { progress.update(s); return true; };
  OverheadTable overhead;
  uint64_t failing = 0;
  std::vector<SummaryFailure> failures;
  std::string tree;
  const CampaignSummary s = run_campaign(o, factory, target_options, checks, [&](uint64_t seed, RunResult& r, const KnownFinding* k) {
    r.trace.run = run_flags_of(vm, tree = r.variant);  // replay, shrink and show read them back
    if (vm.count("trace")) write_file(vm["trace"].as<std::string>(), write_trace(r.trace));
    if (vm["overhead"].as<bool>()) overhead.add(r.trace, factory, target_options, checks);
    if (!r.failure) return true;
    const std::string source = "seed " + std::to_string(seed), signature = failure_signature(*r.failure, r.trace);
    if (k) {
      failures.push_back({source, signature, "known", k->file, r.failure->detail, "", ""});
      return true;
    }
    const std::string path = out_dir.empty() ? "" : out_dir + "/seed-" + std::to_string(seed) + ".json";
    if (!path.empty()) write_file(path, write_trace(r.trace));
    if (++failing == 1) {
      write_file(out, write_trace(r.trace));
      if (text) std::cout << "seed " << seed << ": ";
      if (text) print_failure(*r.failure, out);
    }
    failures.push_back({source, signature, "new", "", r.failure->detail, path.empty() ? out : path, ""});
    return failing < max_failures;
  });
  progress.done();
  const bool require_all = vm.count("require-rules") > 0, coverage = vm["coverage"].as<bool>() || require_all;
  if (text) print_summary(vm, o, s, checks.properties.size(), progress.seconds());
  if (text && concurrent_requested(vm)) print_concurrent_figures(s, progress.seconds());
  const size_t never_hit = !coverage ? 0 : text ? print_coverage(s.hits, stdout, &s.seeds_hitting, s.seeds)
                                                : rules_never_hit(s.hits).size();
  if (vm["overhead"].as<bool>()) overhead.print(text ? stdout : stderr);
  const bool nothing = s.seeds == 0 || s.steps == 0;
  const int code = s.failures ? 1 : nothing || (require_all && never_hit) ? 3 : 0;
  if (text && code == 3 && nothing) std::printf("checked nothing: no seed of the range ran (shard or refusals)\n");
  else if (text && code == 3) std::printf("--require-rules all: %zu rules never applied\n", never_hit);
  write_run_summary(vm, o, s, failures, tree, progress.seconds(), code, coverage);
  return code;
}

}  // namespace pinsim::cli
