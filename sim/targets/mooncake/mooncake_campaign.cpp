// A restricted campaign against the Mooncake target: the same seeds, workload
// and lockstep as `pinsim run`, except that an op the attached tree cannot
// perform (mooncake_target_supports() is false: tenants other than 0, NoF,
// retain_groups on main) is redrawn instead of applied, and a configuration
// the adapter refuses is skipped and counted instead of ending the campaign.
//
//   mooncake_campaign FIRST LAST STEPS [--swarm] [--out DIR] [--quiet] [--without OP]... [--overhead]
//                     [--retention]
//
// --retention is the group-retention campaign for trees with PR 2835: writes
// never Enable a soft pin (those trees predate PR 2909, whose pin semantics
// the P1 finding already covers), at least two groups, RetainGroups ten
// times more often, no invalid requests.
// Every step is compared with the model and checked with P1-P13 on both
// sides. --without OP sets the weight of an op kind to 0 (e.g. to look past a
// known divergence). --overhead measures the harness's cost: after each seed
// the same ops are applied to a fresh MasterService alone (no model, no
// Views, no properties), and the two times (construction excluded) are
// summed and compared.
//
// Writes the trace of each failing seed to DIR/seed-<n>.json (replayable
// with `pinsim replay --target mooncake`). Exit status 1 when a seed failed.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "mooncake_target.h"
#include "property.h"
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
  bool swarm = false, quiet = false, overhead = false, retention = false;
  std::string out;
  std::vector<OpKind> without;
  for (int i = 4; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--swarm")) swarm = true;
    else if (!std::strcmp(argv[i], "--quiet")) quiet = true;
    else if (!std::strcmp(argv[i], "--overhead")) overhead = true;
    else if (!std::strcmp(argv[i], "--retention")) retention = true;
    else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else if (!std::strcmp(argv[i], "--without") && i + 1 < argc) {
      auto kind = parse_op_kind(argv[++i]);
      if (!kind) {
        std::fprintf(stderr, "unknown op %s\n", argv[i]);
        return 2;
      }
      without.push_back(*kind);
    } else {
      std::fprintf(stderr, "mooncake_campaign: unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }
  const Profile profile = *parse_profile(mooncake_target_profile());
  std::printf("%s\n", std::string(mooncake_target_description()).c_str());
  uint64_t seeds = 0, refused = 0, failures = 0, applied = 0, redrawn = 0;
  using Clock = std::chrono::steady_clock;
  Clock::duration checked_time{}, bare_time{};
  std::array<Clock::duration, kOpKindCount> checked_by_kind{}, bare_by_kind{};
  const auto start = Clock::now();
  for (uint64_t seed = first; seed <= last; ++seed) {
    RandomChoices choices(seed);
    WorkloadConfig workload;
    Config config;
    if (swarm) draw_swarm(choices, &workload, &config);
    if (retention) {
      workload.soft_pin_enable = false;
      workload.invalid_request_pct = 0;
      workload.groups = std::max<uint32_t>(workload.groups, 2);
      workload.weights[static_cast<int>(OpKind::RetainGroups)] = 10 * (1 + workload.weights[static_cast<int>(OpKind::RetainGroups)]);
    }
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
    Lockstep lockstep(config, *target, Checks{all_properties(), true});
    Workload generator(workload, config);
    std::optional<Failure> failure;
    for (uint64_t i = 0; i < steps && !failure; ++i) {
      const auto step_start = Clock::now();
      Op op = generator.next(choices, lockstep.model(), lockstep.now());
      int tries = 0;
      while (!mooncake_target_supports(op) && tries++ < 1000) {
        ++redrawn;
        op = generator.next(choices, lockstep.model(), lockstep.now());
      }
      if (!mooncake_target_supports(op)) break;
      ++applied;
      failure = lockstep.step(op, std::nullopt, &trace);
      const auto spent = Clock::now() - step_start;  // drawing the op, both sides, Views, P1-P13
      checked_time += spent;
      checked_by_kind[static_cast<int>(op.kind)] += spent;
    }
    if (overhead) {  // the same ops against a fresh MasterService alone
      target.reset();
      auto bare = make_mooncake_target(config, {}, &error);
      for (const TraceStep& s : trace.steps) {
        const auto op_start = Clock::now();
        bare->apply(s.op, s.t);
        const auto spent = Clock::now() - op_start;
        bare_time += spent;
        bare_by_kind[static_cast<int>(s.op.kind)] += spent;
      }
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
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("mooncake_campaign seeds %llu..%llu%s: %llu run, %llu refused, %llu failures, %llu steps applied, "
              "%llu ops redrawn, %.1f s, %.0f steps/s\n",
              static_cast<unsigned long long>(first), static_cast<unsigned long long>(last), swarm ? " (swarm)" : "",
              static_cast<unsigned long long>(seeds), static_cast<unsigned long long>(refused),
              static_cast<unsigned long long>(failures), static_cast<unsigned long long>(applied),
              static_cast<unsigned long long>(redrawn), secs, secs > 0 ? applied / secs : 0.0);
  if (overhead) {
    const double checked = std::chrono::duration<double>(checked_time).count();
    const double bare = std::chrono::duration<double>(bare_time).count();
    std::printf("overhead: %.3f s with the model, Views and P1-P13, %.3f s MasterService alone (construction "
                "excluded): the harness adds %.2fx MasterService's own time\n",
                checked, bare, bare > 0 ? (checked - bare) / bare : 0.0);
    for (int k = 0; k < kOpKindCount; ++k) {
      const double c = std::chrono::duration<double>(checked_by_kind[k]).count();
      const double b = std::chrono::duration<double>(bare_by_kind[k]).count();
      if (c > 0) std::printf("  %-14s %9.3f s checked %9.3f s alone  +%.2fx\n",
                             std::string(to_string(static_cast<OpKind>(k))).c_str(), c, b, b > 0 ? (c - b) / b : 0.0);
    }
  }
  return failures ? 1 : 0;
}
