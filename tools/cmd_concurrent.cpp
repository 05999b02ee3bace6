// The concurrent lane's flags, replay and shrink; see cmd_concurrent.h.
#include "cmd_concurrent.h"

#include <cstdio>

#include "concurrent_lane.h"
#include "schedule_shrink.h"
#include "wall_clock.h"

namespace pinsim::cli {

void add_concurrent_options(po::options_description& desc) {
  desc.add_options()
      ("actors", po::value<std::string>(), "concurrent lane: N client actors at once under the deterministic scheduler")
      ("background", po::value<std::string>(), "concurrent lane: background actors, a comma list of evict, cleanup")
      ("ops", po::value<std::string>()->default_value("20"), "concurrent lane: ops per actor")
      ("ops-per-round", po::value<std::string>()->default_value("4"),
       "concurrent lane: ops per actor between two quiescent points (where the checks run)")
      ("schedule", po::value<std::string>()->default_value("random"), "concurrent lane: random, pct or odometer")
      ("preempt-pct", po::value<std::string>()->default_value("100"),
       "random schedule: percent of decisions where the running actor may be preempted")
      ("pct-depth", po::value<std::string>()->default_value("3"), "pct schedule: depth d (d-1 priority change points)")
      ("preempt-bound", po::value<std::string>()->default_value("2"),
       "odometer schedule: every schedule of a round with at most K preemptions");
}

bool concurrent_requested(const po::variables_map& vm) { return vm.count("actors") > 0; }

namespace {

std::vector<std::string> background_of(const po::variables_map& vm) {
  std::vector<std::string> out;
  if (!vm.count("background")) return out;
  const std::string list = vm["background"].as<std::string>();
  for (size_t i = 0; i <= list.size();) {
    const size_t comma = std::min(list.find(',', i), list.size());
    const std::string name = list.substr(i, comma - i);
    if (name != "evict" && name != "cleanup")
      throw UsageError("--background: unknown actor '" + name + "' (evict, cleanup)");
    out.push_back(name);
    i = comma + 1;
  }
  return out;
}

ConcurrentSettings settings_of(const po::variables_map& vm) {
  ConcurrentSettings s;
  s.clients = static_cast<uint32_t>(count_of(vm, "actors", 64));
  if (s.clients == 0) throw UsageError("--actors: at least 1 client actor");
  s.background = background_of(vm);
  if (s.clients + s.background.size() < 2)
    throw UsageError("--actors: the lane needs at least two actors in all (add one, or --background)");
  const uint64_t ops = count_of(vm, "ops", 100000);
  s.ops_per_round = static_cast<uint32_t>(count_of(vm, "ops-per-round", 1000));
  if (ops == 0 || s.ops_per_round == 0) throw UsageError("--ops, --ops-per-round: at least 1");
  s.rounds = static_cast<uint32_t>((ops + s.ops_per_round - 1) / s.ops_per_round);
  s.schedule = vm["schedule"].as<std::string>();
  if (s.schedule != "random" && s.schedule != "pct" && s.schedule != "odometer")
    throw UsageError("--schedule: expected random, pct or odometer, got '" + s.schedule + "'");
  s.preempt_pct = static_cast<uint32_t>(count_of(vm, "preempt-pct", 100));
  s.pct_depth = static_cast<uint32_t>(count_of(vm, "pct-depth", 64));
  if (s.pct_depth == 0) throw UsageError("--pct-depth: at least 1");
  s.preempt_bound = static_cast<uint32_t>(count_of(vm, "preempt-bound", 64));
  return s;
}

}  // namespace

void setup_concurrent(const po::variables_map& vm, CampaignOptions* o, TargetFactory factory,
                      const TargetOptions& options, const Checks& checks) {
  if (!concurrent_requested(vm)) {
    for (const char* flag : {"background", "ops", "ops-per-round", "schedule", "preempt-pct", "pct-depth",
                             "preempt-bound"})
      if (vm.count(flag) && !vm[flag].defaulted())
        throw UsageError(std::string("--") + flag + ": a flag of the concurrent lane, which needs --actors N");
    return;
  }
  const ConcurrentSettings settings = settings_of(vm);
  if (o->jobs != 1) throw UsageError("--jobs: the concurrent lane runs in one process (its actors are threads)");
  if (!checks.compare_with_model) throw UsageError("--no-compare: the concurrent lane always checks linearizability");
  Config config;
  std::string error;
  if (auto target = factory(config, options, &error)) {
    if (std::string why = sched::lane_refusal(*target); !why.empty()) throw UsageError("--actors: " + why);
  }
  const SeedOptions seed = o->seed;
  // A target the lane cannot run is known only once a seed's configuration
  // builds it (the default configuration may be refused): a usage error then.
  o->seed_runner = [=](uint64_t s) {
    RunResult r = sched::run_concurrent_seed(s, seed, settings, factory, options, checks);
    if (sched::is_lane_refusal(r.error)) throw UsageError("--actors: " + r.error);
    return r;
  };
}

void print_concurrent_figures(const CampaignSummary& s, double secs) {
  std::printf("concurrent: %llu schedules (%.0f/s), %llu decisions, %llu preemptions, at most %llu lock-graph edges "
              "in one round\n",
              static_cast<unsigned long long>(s.schedules), secs > 0 ? s.schedules / secs : 0.0,
              static_cast<unsigned long long>(s.decisions), static_cast<unsigned long long>(s.preemptions),
              static_cast<unsigned long long>(s.lock_edges));
}

int replay_concurrent_trace(const po::variables_map& vm, const Trace& trace, const TraceRun& run,
                            const std::string& path) {
  RunResult r = sched::replay_concurrent(trace, run.factory, run.options, run.checks);
  if (!r.error.empty()) throw UsageError(path + ": " + r.error);
  if (finish_replay(vm, run, &r)) return 1;
  std::printf("%s: %zu steps and %zu rounds (%llu calls, %llu preemptions) replayed against %s under their "
              "schedules, all checked\n",
              path.c_str(), trace.steps.size(), trace.concurrent->rounds.size(),
              static_cast<unsigned long long>(r.calls), static_cast<unsigned long long>(r.preemptions),
              run.flags.target.c_str());
  return 0;
}

int shrink_concurrent_trace(const po::variables_map& vm, const Trace& trace, const TraceRun& run,
                            const std::string& path) {
  const WallClock clock;
  const auto r = sched::shrink_schedule(trace, run.factory, run.options, run.checks);
  if (!r) throw UsageError(path + ": the trace does not fail against " + run.flags.target + ", nothing to shrink");
  const double secs = clock.seconds();
  Trace minimal = r->trace;
  describe_shrunk(&minimal, path, r->failure);
  const std::string what = r->not_shrunk.empty()
                               ? "minimal concurrent trace (" + sched::describe_size(r->size) + ") shrunk from "
                               : "concurrent trace as run, not shrunk (" + r->not_shrunk + "), from ";
  minimal.description = what + path + ": it fails with " + r->failure.what + " " + r->failure.field;
  minimal.run = run.flags;
  const std::string out = vm["out"].as<std::string>();
  write_file(out, write_trace(minimal));
  if (!r->not_shrunk.empty())
    std::printf("%s: not shrunk: %s; written as run to %s\n", path.c_str(), r->not_shrunk.c_str(), out.c_str());
  else
    std::printf("%s: %s -> %s (%zu replays, %.3f s), written to %s\n", path.c_str(),
                sched::describe_size(r->original).c_str(), sched::describe_size(r->size).c_str(), r->replays,
                secs, out.c_str());
  print_failure(r->failure, out);
  return 1;
}

}  // namespace pinsim::cli
