// Seeded runs and replays; see campaign.h.
#include "campaign.h"

#include <algorithm>
#include <array>
#include <memory>
#include <set>
#include <string>

#include "crash_report.h"
#include "seed_processes.h"

namespace pinsim {

void draw_seed(RandomChoices& choices, const SeedOptions& options, WorkloadConfig* workload, Config* config) {
  std::array<uint32_t, kOpKindCount> drawn{};  // the weights before the tier's draw
  if (options.swarm || options.preset) {
    draw_swarm(choices, workload, config);
    RandomChoices copy = choices;  // a side stream: the seed's own stream does not move
    RandomChoices side(copy.pick(UINT64_MAX) ^ 0x7365676d656e7473ull);
    draw_segment_churn(side, workload);
    if (side.chance(15)) config->disk_replica = true;  // disk mode (rules disk.*), from the side stream too
    draw_copies(side, workload);
    draw_dynamic_replication(side, workload, config);
    if (side.chance(15)) config->dfs_slots = 1 + static_cast<uint32_t>(side.pick(4));  // DFS (rules dfs.*)
    drawn = workload->weights;
    draw_local_disk(side, workload, config);  // the local-disk tier (rules local.*)
    config->ha_oplog = side.chance(25);       // HA-OpLog mode, drawn after the rest so they are as they were
    if (config->ha_oplog)  // a failover needs the mode's standby
      workload->weights[static_cast<int>(OpKind::Failover)] = 1 + static_cast<uint32_t>(side.pick(2));
    if (config->ha_oplog && options.log_window) config->oplog_lag = side.chance(50);  // the log's window
  }
  if (options.preset) options.preset->shape(choices, *workload, *config);
  if (config->dfs_slots) config->ha_oplog = config->oplog_lag = false;  // Mooncake refuses DFS with its log
  // A preset that adds a mechanism the tier is not combined with yet turns it
  // off again: every weight as it would have been without the tier's draw.
  if (config->local_disk && !config->local_disk_combines()) {
    config->local_disk = false;
    for (OpKind k : kLocalDiskOps) workload->weights[static_cast<int>(k)] = 0;
    for (OpKind k : {OpKind::Snapshot, OpKind::Restore}) {
      const int i = static_cast<int>(k);
      workload->weights[i] = std::max(workload->weights[i], drawn[i]);  // presets only raise weights
    }
  }
  // A failover needs the mode's standby, and is not combined with the local-disk tier yet (docs/interpretations.md).
  if (!config->ha_oplog || config->local_disk) workload->weights[static_cast<int>(OpKind::Failover)] = 0;
  if (options.profile) config->profile = *options.profile;
}

namespace {

// The seed after `seed` in the campaign (the list's next; or its shard's, up to `last`).
std::optional<uint64_t> next_seed_after(const CampaignOptions& o, uint64_t seed) {
  if (!o.seed_list.empty()) {
    auto it = std::find(o.seed_list.begin(), o.seed_list.end(), seed);
    if (it == o.seed_list.end() || ++it == o.seed_list.end()) return std::nullopt;
    return *it;
  }
  while (seed != o.last) {
    ++seed;
    if (seed % o.shard_n == o.shard_k) return seed;
  }
  return std::nullopt;
}

// The campaign's first seed: the list's, or the first of its shard from `first`.
std::optional<uint64_t> first_seed(const CampaignOptions& o) {
  if (!o.seed_list.empty()) return o.seed_list.front();
  if (o.first % o.shard_n == o.shard_k) return o.first;
  return o.first == o.last ? std::nullopt : next_seed_after(o, o.first);
}

// Goes on past a failure that matches one of `known` marked goes_on.
GoesOn going_on_past(std::vector<KnownFinding> known) {
  std::erase_if(known, [](const KnownFinding& k) { return !k.goes_on; });
  if (known.empty()) return {};
  auto shared = std::make_shared<const std::vector<KnownFinding>>(std::move(known));
  return [shared](const Failure& f, const Trace& t, std::string_view variant) -> std::optional<WentOnPast> {
    const std::string sig = failure_signature(f, t);
    const KnownFinding* k =
        match_known(*shared, sig, std::string(variant), ops_used(t, f.step), conditions_met(t, f.step));
    if (!k) return std::nullopt;
    return WentOnPast{f.step, k->file, sig, k->needs, k->when};
  };
}

// The findings a replayed trace went on past, as findings of the replay's
// tree: each its recorded signature, with the op kinds and conditions it needs.
std::vector<KnownFinding> as_findings(const std::vector<WentOnPast>& recorded, const std::string& variant) {
  std::vector<KnownFinding> known;
  for (const WentOnPast& w : recorded) known.push_back({w.finding, variant, {w.signature}, w.needs, {}, w.when, true});
  return known;
}

}  // namespace

RunResult run_seed(uint64_t seed, const SeedOptions& options, TargetFactory factory,
                   const TargetOptions& target_options, const Checks& checks) {
  RunResult result;
  RandomChoices choices(seed);
  WorkloadConfig workload;
  Config config;
  draw_seed(choices, options, &workload, &config);
  result.trace.seed = seed;
  result.trace.config = config;
  result.trace.description = "seed " + std::to_string(seed) +
                             (options.preset ? " (preset " + std::string(options.preset->name) + ")"
                              : options.swarm ? " (swarm)" : "");
  auto target = factory(config, target_options, &result.error);
  if (!target) return result;
  result.variant = std::string(target->variant());
  // A tree without object checksums: Ends declare none (rather than most
  // Ends being redrawn as other ops).
  if (!target->supports(Op{.kind = OpKind::PutEnd, .checksum = 1})) workload.checksums = 0;
  Lockstep lockstep(config, *target, checks);
  Workload generator(workload, config);
  const crash_report::Scope crash_scope(result.trace.description, &result.trace);
  result.trace.steps.reserve(std::min<uint64_t>(options.steps, 4096));  // no regrowth in a usual run
  for (uint64_t i = 0; i < options.steps && !result.failure; ++i) {
    Op op = generator.next(choices, lockstep.model(), lockstep.now());
    for (int tries = 0; tries < 64 && !target->supports(op); ++tries)
      op = generator.next(choices, lockstep.model(), lockstep.now());
    if (!target->supports(op)) op = Op{.kind = OpKind::Advance, .advance_ms = 1};
    crash_report::applying(op, lockstep.now());
    if (i + 1 == options.steps) lockstep.view_whole_next();
    result.failure = lockstep.step(op, std::nullopt, &result.trace);
  }
  result.trace.went_on = lockstep.went_on();
  result.comparisons = lockstep.comparisons();
  result.hits = lockstep.model().hits();
  result.steps = result.trace.steps.size();
  return result;
}

CampaignSummary run_campaign(const CampaignOptions& o, TargetFactory factory, const TargetOptions& target_options,
                             const Checks& checks, const SeedCallback& on_seed) {
  CampaignSummary sum;
  Checks with_known = checks;
  if (!with_known.goes_on) with_known.goes_on = going_on_past(o.known);
  SeedProcesses processes({o.jobs,
                           [&](uint64_t seed) {
                             if (o.seed_runner) return o.seed_runner(seed);
                             return run_seed(seed, o.seed, factory, target_options, with_known);
                           },
                           [&o](uint64_t seed) { return next_seed_after(o, seed); }, o.passing_traces});
  for (std::optional<uint64_t> seed = first_seed(o); seed; seed = next_seed_after(o, *seed)) {
    if (o.more && !o.more(sum)) break;
    RunResult r = processes.result(*seed);
    if (!r.error.empty()) {
      ++sum.refused;
      continue;
    }
    ++sum.seeds;
    sum.steps += r.steps;
    sum.comparisons += r.comparisons;
    sum.hits.merge(r.hits);
    sum.schedules += r.schedules, sum.decisions += r.decisions, sum.preemptions += r.preemptions;
    sum.lock_edges = std::max(sum.lock_edges, r.lock_edges);
    for (int i = 0; i < kRuleCount; ++i) sum.seeds_hitting.count[i] += r.hits.count[i] != 0;
    const KnownFinding* k = known_failure(o.known, r);
    std::set<std::string> met;  // each known finding the seed met, once
    for (const WentOnPast& w : r.trace.went_on) met.insert(w.finding);
    if (k) met.insert(k->file);
    for (const std::string& file : met) ++sum.known[file];
    if (!k && r.failure) ++sum.failures;
    if (on_seed && !on_seed(*seed, r, k)) break;
  }
  return sum;
}

std::optional<std::pair<uint64_t, RunResult>> first_failure(const CampaignOptions& options, TargetFactory factory,
                                                            const TargetOptions& target_options, const Checks& checks,
                                                            uint64_t* refused) {
  std::optional<std::pair<uint64_t, RunResult>> found;
  const CampaignSummary s = run_campaign(options, factory, target_options, checks,
                                         [&found](uint64_t seed, RunResult& r, const KnownFinding*) {
                                           if (r.failure) found.emplace(seed, std::move(r));
                                           return !found;
                                         });
  if (refused) *refused = s.refused;
  return found;
}

RunResult replay(const Trace& trace, TargetFactory factory, const TargetOptions& target_options,
                 const Checks& checks) {
  RunResult result;
  result.trace.description = trace.description;
  result.trace.rule = trace.rule;
  result.trace.seed = trace.seed;
  result.trace.run = trace.run;
  result.trace.config = trace.config;
  if (auto reason = validate(trace.config)) {
    result.error = *reason;
    return result;
  }
  auto target = factory(trace.config, target_options, &result.error);
  if (!target) return result;
  result.variant = std::string(target->variant());
  Checks as_recorded = checks;
  if (!as_recorded.goes_on) as_recorded.goes_on = going_on_past(as_findings(trace.went_on, result.variant));
  Lockstep lockstep(trace.config, *target, as_recorded);
  const std::string what = trace.description.empty() ? "a trace" : "'" + trace.description + "'";
  const crash_report::Scope crash_scope("the replay of " + what, &result.trace);
  for (const TraceStep& step : trace.steps) {
    crash_report::applying(step.op, step.t);
    if (&step == &trace.steps.back()) lockstep.view_whole_next();
    result.failure = lockstep.step(step.op, step.expect, &result.trace,
                                   step.expect_state ? &*step.expect_state : nullptr);
    // The written trace keeps the trace's own expectations.
    if (step.expect) result.trace.steps.back().expect = step.expect;
    result.trace.steps.back().expect_state = step.expect_state;
    if (result.failure) break;
  }
  result.trace.went_on = lockstep.went_on();
  result.comparisons = lockstep.comparisons();
  result.hits = lockstep.model().hits();
  result.steps = result.trace.steps.size();
  result.unchecked_expectations = lockstep.unchecked_expectations();
  return result;
}

const KnownFinding* known_failure(const std::vector<KnownFinding>& known, const RunResult& r) {
  if (!r.failure || known.empty()) return nullptr;
  return match_known(known, failure_signature(*r.failure, r.trace), r.variant, ops_used(r.trace, r.failure->step),
                     conditions_met(r.trace, r.failure->step));
}

}  // namespace pinsim
