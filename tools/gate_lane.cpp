// The Mooncake concurrency lane as the gate's lane; see gate_lane.h. Each
// seed runs as `mooncake_concurrency --seeds N --preempt 20 --background
// evict,cleanup` runs it (cleanup alone where BatchEvict cannot be seeded),
// with the same known findings, so a gate's lane failure replays there.
#include "gate_lane.h"

#ifdef PINSIM_HAVE_MOONCAKE
#include <algorithm>
#include <filesystem>
#include <functional>

#include "concurrency_lane.h"
#include "mooncake_target.h"
#include "schedule_shrink.h"
#include "serial_form.h"
#endif

namespace pinsim::cli {

#ifndef PINSIM_HAVE_MOONCAKE

std::optional<GateLane> mooncake_gate_lane(const std::string&, const std::vector<KnownFinding>&) {
  return std::nullopt;
}

#else

namespace {

using namespace mooncake_lane;

constexpr uint32_t kClients = 3;
constexpr uint32_t kPreemptPct = 20;

// A run of the lane sorted: passed, or failed with its signature, its trace
// (`as_trace`, made only for a failure) and, when a finding names it (a lane
// finding, or a sequential one its calls one after another fail as), that
// finding; its trace says where it came from.
LaneSeed sort_run(const Result& r, uint64_t calls, const std::function<Trace()>& as_trace, const std::string& source,
                  const std::vector<KnownFinding>& known, const std::vector<KnownFinding>& sequential) {
  LaneSeed out;
  out.calls = calls;
  out.failure = failure_of(r);
  const KnownFinding* k = nullptr;
  if (!out.failure) {
    // The first edge against the order that no finding names, else the first one.
    auto e = std::find_if(r.edges.begin(), r.edges.end(),
                          [&](const Edge& x) { return against_lock_order(x) && !match_edge(known, r, x); });
    if (e == r.edges.end()) e = std::find_if(r.edges.begin(), r.edges.end(), against_lock_order);
    if (e == r.edges.end()) return out;
    out.failure = Failure{.what = "lock-order", .detail = "edge against the lock order: " + e->from + " -> " + e->to,
                          .field = lock_kind(e->from) + "->" + lock_kind(e->to)};
    out.signature = edge_signature(*e);
    k = match_edge(known, r, *e);
  } else {
    out.signature = out.failure->what == "not-linearizable" || out.failure->what == "exception"
                        ? r.signature
                        : out.failure->what + "/" + out.failure->field;
  }
  out.trace = as_trace();
  out.trace.description = "pinsim gate " + source + " (" + out.signature + ")";
  if (!k) k = match_result(known, r);
  std::string how;
  if (!k && r.violation && !sequential.empty()) k = known_sequentially(out.trace, sequential, &how);
  if (k) out.known_file = k->file;
  return out;
}

LaneSeed run_seed(uint64_t seed, const Background& background, const std::vector<KnownFinding>& known,
                  const std::vector<KnownFinding>& sequential) {
  const Scenario scenario = make_scenario(seed, kClients, background);
  const Result r = run(scenario, seed, kPreemptPct, known);
  if (!r.error.empty()) return {.refused = true};
  return sort_run(r, scenario.prefix.size() + r.history.calls.size(),
                  [&] { return to_trace(scenario, r, seed, kPreemptPct); }, "lane seed " + std::to_string(seed), known,
                  sequential);
}

// A trace of the corpus, under its recorded schedule as far as the run follows it.
LaneSeed replay_scenario(const Trace& trace, const std::vector<KnownFinding>& known,
                         const std::vector<KnownFinding>& sequential) {
  std::string why;
  std::optional<Replayed> replayed = replay_recorded(trace, &why);
  if (!replayed) return {.refused = true, .refusal = why};
  const Result& r = replayed->result;
  LaneSeed out = sort_run(r, replayed->scenario.prefix.size() + r.history.calls.size(),
                          [&] { return std::move(replayed->as_run); }, "lane scenario", known, sequential);
  out.diverged = replayed->diverged;
  return out;
}

}  // namespace

std::optional<GateLane> mooncake_gate_lane(const std::string& findings, const std::vector<KnownFinding>& sequential) {
  std::vector<KnownFinding> known;
  std::error_code ec;
  if (std::filesystem::is_directory(findings + "/concurrency", ec))
    known = load_known_findings(findings + "/concurrency");
  const Background background = tree_actors();
  GateLane lane;
  lane.replay_command = "mooncake_concurrency --replay";
  lane.run = [=](uint64_t seed) { return run_seed(seed, background, known, sequential); };
  lane.replay = [=](const Trace& trace) { return replay_scenario(trace, known, sequential); };
  lane.shrink = [](const Trace& failing) -> std::optional<std::pair<Trace, Failure>> {
    auto s = sched::shrink_schedule(failing, sched::ConcurrentReplayer(replay_trace));
    if (!s || !s->not_shrunk.empty()) return std::nullopt;
    return std::make_pair(std::move(s->trace), std::move(s->failure));
  };
  return lane;
}

#endif

}  // namespace pinsim::cli
