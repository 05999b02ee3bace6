// A restricted campaign against the Mooncake target: the same seeds, workload
// and lockstep as `pinsim run`, except that an op the attached tree cannot
// perform (mooncake_target_supports() is false: tenants other than 0, NoF,
// retain_groups on main) is redrawn instead of applied, and a configuration
// the adapter refuses is skipped and counted instead of ending the campaign.
//
//   mooncake_campaign FIRST LAST STEPS [--swarm] [--out DIR] [--quiet] [--without OP]...
//
// --without OP sets the weight of an op kind to 0 (e.g. to look past a known
// divergence in snapshot/restore).
//
// Writes the trace of each failing seed to DIR/seed-<n>.json (replayable
// with `pinsim replay --target mooncake`). Exit status 1 when a seed failed.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "mooncake_target.h"
#include "runner.h"
#include "trace.h"
#include "workload.h"

using namespace pinsim;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s FIRST LAST STEPS [--swarm] [--out DIR] [--quiet] [--without OP]...\n", argv[0]);
    return 2;
  }
  const uint64_t first = std::stoull(argv[1]), last = std::stoull(argv[2]), steps = std::stoull(argv[3]);
  bool swarm = false, quiet = false;
  std::string out;
  std::vector<OpKind> without;
  for (int i = 4; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--swarm")) swarm = true;
    else if (!std::strcmp(argv[i], "--quiet")) quiet = true;
    else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else if (!std::strcmp(argv[i], "--without") && i + 1 < argc) {
      auto kind = parse_op_kind(argv[++i]);
      if (!kind) {
        std::fprintf(stderr, "unknown op %s\n", argv[i]);
        return 2;
      }
      without.push_back(*kind);
    }
  }
  const Profile profile = *parse_profile(mooncake_target_profile());
  std::printf("%s\n", std::string(mooncake_target_description()).c_str());
  uint64_t seeds = 0, refused = 0, failures = 0, applied = 0, redrawn = 0;
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t seed = first; seed <= last; ++seed) {
    RandomChoices choices(seed);
    WorkloadConfig workload;
    Config config;
    if (swarm) draw_swarm(choices, &workload, &config);
    for (OpKind k : without) workload.weights[static_cast<int>(k)] = 0;
    config.profile = profile;
    Trace trace;
    trace.seed = seed;
    trace.config = config;
    trace.description = "seed " + std::to_string(seed) + (swarm ? " (swarm)" : "") +
                        ", mooncake_campaign (unsupported ops redrawn)";
    std::string error;
    auto target = make_mooncake_target(config, {}, &error);
    if (!target) {
      ++refused;
      if (!quiet) std::printf("seed %llu: refused: %s\n", static_cast<unsigned long long>(seed), error.c_str());
      continue;
    }
    ++seeds;
    Lockstep lockstep(config, *target);
    Workload generator(workload, config);
    std::optional<Failure> failure;
    for (uint64_t i = 0; i < steps && !failure; ++i) {
      Op op = generator.next(choices, lockstep.model(), lockstep.now());
      int tries = 0;
      while (!mooncake_target_supports(op) && tries++ < 1000) {
        ++redrawn;
        op = generator.next(choices, lockstep.model(), lockstep.now());
      }
      if (!mooncake_target_supports(op)) break;
      ++applied;
      failure = lockstep.step(op, std::nullopt, &trace);
    }
    if (failure) {
      ++failures;
      std::string path;
      if (!out.empty()) {
        path = out + "/seed-" + std::to_string(seed) + ".json";
        std::ofstream(path) << write_trace(trace);
      }
      std::printf("seed %llu: step %zu %s: %s%s%s\n  expected %s\n  actual   %s\n",
                  static_cast<unsigned long long>(seed), failure->step, failure->what.c_str(),
                  failure->detail.c_str(), path.empty() ? "" : " -> ", path.c_str(), failure->expected.c_str(),
                  failure->actual.c_str());
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("mooncake_campaign seeds %llu..%llu%s: %llu run, %llu refused, %llu failures, %llu steps applied, "
              "%llu ops redrawn, %.1f s, %.0f steps/s\n",
              static_cast<unsigned long long>(first), static_cast<unsigned long long>(last), swarm ? " (swarm)" : "",
              static_cast<unsigned long long>(seeds), static_cast<unsigned long long>(refused),
              static_cast<unsigned long long>(failures), static_cast<unsigned long long>(applied),
              static_cast<unsigned long long>(redrawn), secs, secs > 0 ? applied / secs : 0.0);
  return failures ? 1 : 0;
}
