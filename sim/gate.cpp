// The regression gate; see gate.h.
#include "gate.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "digest.h"
#include "shrink.h"

namespace pinsim {

namespace {

bool restores(const Trace& t) {
  return std::any_of(t.steps.begin(), t.steps.end(), [](const TraceStep& s) {
    return s.op.kind == OpKind::Snapshot || s.op.kind == OpKind::Restore || s.op.kind == OpKind::Failover;
  });
}

// Why `t` cannot run on this target as written, or "" when it can. A trace
// of the other profile runs under the target's when it neither snapshots nor
// restores: the profiles differ only there.
std::string inapplicable(Trace& t, TargetFactory factory, const TargetOptions& options,
                         const std::optional<Profile>& profile) {
  if (profile && t.config.profile != *profile) {
    if (restores(t)) return "restores under profile " + std::string(to_string(t.config.profile));
    t.config.profile = *profile;
  }
  std::string error;
  auto target = factory(t.config, options, &error);
  if (!target) return error;
  for (const TraceStep& s : t.steps)
    if (!target->supports(s.op)) return "the target cannot perform " + std::string(to_string(s.op.kind));
  return "";
}

// A preset whose first seeds are all refused is one the target cannot express
// (the Mooncake target and tenant quotas): it is reported, not spun on.
constexpr uint64_t kRefusalsBeforeGivingUp = 50;
// The share of the budget the phases before shrinking may use.
constexpr double kCampaignShare = 0.9;

class Gate {
 public:
  Gate(TargetFactory factory, const TargetOptions& target_options, const Checks& checks, const GateOptions& o)
      : factory_(factory), target_options_(target_options), checks_(checks), o_(o) {
    if (o_.base)  // the first failure of each source (a source fails once per run)
      for (const BaseFailure& b : o_.base->failing) base_by_source_.emplace(b.source, &b);
  }

  GateResult run() {
    result_.variant = variant();
    for (const std::string& file : o_.scenario_files)
      if (!stopped()) result_.scenarios.push_back(scenario(file));
    for (const std::string& file : o_.lane_scenario_files)
      if (!stopped()) result_.scenarios.push_back(lane_scenario(file));
    for (const KnownFinding& k : o_.known)
      if (applies_to(k, result_.variant)) result_.findings.push_back(finding(k));
    campaign();
    shrink_new();
    result_.seconds = o_.elapsed();
    return std::move(result_);
  }

 private:
  std::string variant() const {
    Config config;
    if (o_.profile) config.profile = *o_.profile;
    std::string error;
    auto target = factory_(config, target_options_, &error);
    return target ? std::string(target->variant()) : "";
  }

  bool stopped() const { return o_.stop_on_new && result_.red(); }

  const BaseFailure* base_failure(const std::string& source) const {
    const auto it = base_by_source_.find(source);
    return it == base_by_source_.end() ? nullptr : it->second;
  }

  // Sorts a failure. Without a base: known or new. With one, the base's
  // failure on the same source decides: the same signature and fingerprint
  // keep it known (or pre-existing); a known failure the base shows
  // otherwise, or not at all, is changed, and so is a pre-existing one that
  // fails at another step or with other values; the rest are new.
  void record(GateFailure f) {
    f.seconds = o_.elapsed();
    f.signature = failure_signature(f.failure, f.trace);
    f.fingerprint = failure_fingerprint(f.failure);
    const KnownFinding* k = match_known(o_.known, f.signature, result_.variant, ops_used(f.trace, f.failure.step),
                                        conditions_met(f.trace, f.failure.step));
    const BaseFailure* b = base_failure(f.source);
    const bool same_signature = b && b->signature == f.signature;
    const bool alike = same_signature && (b->fingerprint.empty() || b->fingerprint == f.fingerprint);
    if (k) f.verdict = !o_.base || alike ? "known" : "changed";
    else f.verdict = alike ? "pre-existing" : same_signature ? "changed" : "new";
    if (f.verdict == "changed") f.base_detail = b ? b->signature + ": " + b->detail : "";
    if (k) f.known_file = k->file;
    result_.failures.push_back(std::move(f));
  }

  ScenarioResult scenario(const std::string& file) {
    Trace t = load_trace(file);
    if (std::string why = inapplicable(t, factory_, target_options_, o_.profile); !why.empty())
      return {file, "not applicable", why};
    RunResult r = replay(t, factory_, target_options_, checks_);
    if (!r.failure) return {file, "passed", ""};
    record({.source = "scenario " + file, .failure = *r.failure, .trace = r.trace});
    return {file, "failed", r.failure->detail};
  }

  // A trace of the lane's corpus. A run that could not follow the recorded
  // schedule is checked all the same, and its row says so.
  ScenarioResult lane_scenario(const std::string& file) {
    if (!o_.lane) return {file, "not applicable", "a trace of a concurrency lane, and this target has none"};
    LaneSeed r = o_.lane->replay(load_trace(file));
    if (r.refused) return {file, "not applicable", r.refusal};
    const std::string followed = r.diverged ? "the run did not follow the recorded schedule" : "";
    if (!r.failure) return {file, "passed", followed};
    std::string detail = r.failure->detail + (followed.empty() ? "" : "; " + followed);
    record_lane({.source = "scenario " + file, .signature = r.signature, .known_file = r.known_file,
                 .failure = *r.failure, .trace = std::move(r.trace), .replay_command = o_.lane->replay_command});
    return {file, "failed", std::move(detail)};
  }

  FindingResult finding(const KnownFinding& k) {
    Trace t = load_trace(k.file);
    if (std::string why = inapplicable(t, factory_, target_options_, o_.profile); !why.empty())
      return {k.file, "not applicable", why};
    RunResult r = replay(t, factory_, target_options_, checks_);
    if (!r.failure) return {k.file, "fixed", "the trace no longer fails"};
    const std::string sig = failure_signature(*r.failure, r.trace);
    if (match_known({k}, sig, result_.variant, ops_used(r.trace, r.failure->step),
                    conditions_met(r.trace, r.failure->step)))
      return {k.file, "still failing", sig};
    record({.source = "finding " + k.file, .failure = *r.failure, .trace = r.trace});
    return {k.file, "changed", sig};
  }

  // One preset's seeds through the campaign loop: `seeds` when given, else
  // seeds from 1 of one shard, while `more` allows. Known findings are
  // sorted by record().
  void run_preset(const Preset& p, std::vector<uint64_t> seeds, const std::function<bool()>& more, PresetRun& run) {
    CampaignOptions c;
    c.shard_k = o_.shard_k, c.shard_n = o_.shard_n;
    c.seed_list = std::move(seeds);
    c.jobs = o_.jobs;
    c.seed.steps = o_.steps;
    c.seed.profile = o_.profile;
    c.seed.preset = &p;
    c.seed.log_window = o_.log_window;
    c.known = o_.known;  // a seed goes on past a finding marked goes_on
    c.more = [&](const CampaignSummary& s) {
      run.seeds_run = s.seeds, run.refused = s.refused, run.steps = s.steps;
      // A preset the target cannot express at all is given up.
      return !stopped() && !(s.seeds == 0 && s.refused >= kRefusalsBeforeGivingUp) && (s.seeds + s.refused == 0 || more());
    };
    const CampaignSummary s = run_campaign(c, factory_, target_options_, checks_, [&](uint64_t seed, RunResult& r, const KnownFinding*) {
      run.seeds.push_back(seed);
      if (r.failure) {
        record({.source = "preset " + std::string(p.name) + " seed " + std::to_string(seed), .preset = std::string(p.name),
                .seed = seed, .failure = *r.failure, .trace = std::move(r.trace)});
        result_.failures.back().budget_needed = budget_needed(result_.failures.back().seconds - run.started);
      }
      return true;
    });
    run.seeds_run = s.seeds, run.refused = s.refused, run.steps = s.steps;
  }

  // One lane's seeds from 1 (or the base's) while `more` allows, in this
  // process. The lane sorts a failure known itself; record_lane sorts the rest.
  void run_lane(std::vector<uint64_t> seeds, const std::function<bool()>& more, PresetRun& run) {
    const bool listed = !seeds.empty();
    uint64_t next = 1;  // unlisted: this shard's seeds from 1
    for (size_t i = 0; !stopped() && (listed ? i < seeds.size() : more()); ++i) {
      while (!listed && next % o_.shard_n != o_.shard_k) ++next;
      const uint64_t seed = listed ? seeds[i] : next++;
      LaneSeed r = o_.lane->run(seed);
      run.seeds.push_back(seed);
      ++(r.refused ? run.refused : run.seeds_run);
      run.steps += r.calls;
      if (!r.failure) continue;
      record_lane({.source = run.preset + " seed " + std::to_string(seed), .preset = run.preset, .seed = seed,
                   .signature = r.signature, .known_file = r.known_file, .failure = *r.failure,
                   .trace = std::move(r.trace), .replay_command = o_.lane->replay_command});
      result_.failures.back().budget_needed = budget_needed(result_.failures.back().seconds - run.started);
    }
  }

  // A lane's failure: known when the lane named its finding; with a base,
  // pre-existing when the base failed the seed with the same signature; else
  // new. No fingerprint: a change to the target's locking moves a schedule.
  void record_lane(GateFailure f) {
    f.seconds = o_.elapsed();
    const BaseFailure* b = base_failure(f.source);
    f.verdict = !f.known_file.empty() ? "known" : b && b->signature == f.signature ? "pre-existing" : "new";
    result_.failures.push_back(std::move(f));
  }

  size_t slices() const { return presets().size() + (o_.lane ? 1 : 0); }

  // A failure found `into` seconds after its preset began is found by every
  // budget B whose slice (kCampaignShare B - campaign start) / slices is at
  // least that long.
  double budget_needed(double into) const {
    return (result_.campaign_start + static_cast<double>(slices()) * into) / kCampaignShare;
  }

  std::vector<uint64_t> base_seeds(const std::string& name) const {
    std::vector<uint64_t> seeds;
    for (const PresetRun& b : o_.base->runs)
      if (b.preset == name) seeds.insert(seeds.end(), b.seeds.begin(), b.seeds.end());
    return seeds;
  }

  // The base's seeds when given; otherwise each preset, and the lane after
  // them, gets an equal slice of what the budget leaves after a tenth kept
  // for shrinking.
  void campaign() {
    const auto all = presets();
    const double start = result_.campaign_start = o_.elapsed();
    const double usable = std::max(0.0, o_.budget_seconds * kCampaignShare - start);
    for (size_t i = 0; i < slices(); ++i) {
      PresetRun run{i < all.size() ? std::string(all[i].name) : kGateLane};
      run.started = o_.elapsed();
      const double end = start + usable * static_cast<double>(i + 1) / static_cast<double>(slices());
      const auto more = [&] { return o_.elapsed() < end; };
      std::vector<uint64_t> seeds = o_.base ? base_seeds(run.preset) : std::vector<uint64_t>{};
      if (o_.base && seeds.empty()) {
        // the base ran none of this slice's seeds: nothing to compare with
      } else if (i < all.size()) {
        run_preset(all[i], std::move(seeds), o_.base ? std::function<bool()>([] { return true; }) : more, run);
      } else {
        run_lane(std::move(seeds), more, run);
      }
      result_.runs.push_back(std::move(run));
    }
  }

  void shrink_new() {
    std::set<std::string> done;
    for (GateFailure& f : result_.failures) {
      if (f.verdict != "new" || done.count(f.signature) || o_.elapsed() > o_.budget_seconds) continue;
      done.insert(f.signature);
      if (!f.replay_command.empty()) {  // a lane's
        if (auto s = o_.lane->shrink(f.trace)) f.shrunk = std::move(s->first), f.shrunk_failure = std::move(s->second);
      } else if (auto s = shrink(f.trace, factory_, target_options_, checks_)) {
        f.shrunk = std::move(s->trace);
        f.shrunk_failure = std::move(s->failure);
      }
    }
  }

  TargetFactory factory_;
  const TargetOptions& target_options_;
  const Checks& checks_;
  const GateOptions& o_;
  GateResult result_;
  std::map<std::string, const BaseFailure*> base_by_source_;
};

}  // namespace

std::string failure_fingerprint(const Failure& failure) {
  const std::string parts = std::to_string(failure.step) + "\n" + failure.what + "\n" + failure.field + "\n" +
                            failure.detail + "\n" + failure.expected + "\n" + failure.actual;
  const Digest d = digest_of(parts);
  char hex[33];
  std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(d.a),
                static_cast<unsigned long long>(d.b));
  return hex;
}

bool GateResult::red() const {
  return std::any_of(failures.begin(), failures.end(),
                     [](const GateFailure& f) { return f.verdict == "new" || f.verdict == "changed"; });
}

bool GateResult::checked_nothing() const {
  uint64_t seeds = 0;
  for (const PresetRun& r : runs) seeds += r.seeds_run;
  const bool scenario_ran = std::any_of(scenarios.begin(), scenarios.end(),
                                        [](const ScenarioResult& s) { return s.status != "not applicable"; });
  return seeds == 0 && !scenario_ran;
}

GateResult run_gate(TargetFactory factory, const TargetOptions& target_options, const Checks& checks,
                    const GateOptions& options) {
  return Gate(factory, target_options, checks, options).run();
}

}  // namespace pinsim
