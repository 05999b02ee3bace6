// mooncake_concurrency: a campaign of the Mooncake concurrency lane
// (concurrency_lane.h). Seed s runs scenario s under the schedule of seed s,
// with every preemption considered (--preempt 100) or few (lower values, as
// PCT favours), and prints what the campaign saw: schedules per second,
// decisions, switches and preemptions per schedule, the lock-graph edges by lock kind,
// edges against MasterService's lock order, cycles, deadlocks and
// linearizability failures (each with its seed, signature and history).
// With --known DIR, a failure whose signature matches a finding of this tree
// there (scenarios/findings/concurrency/) is reported as known and the
// campaign goes on. Exit 1 when any schedule failed a check that is not a
// known finding, 2 on bad input. With --out FILE, the first failure that is
// not known is shrunk (fewer ops, actors, preemptions: schedule_shrink.h)
// and written there as a trace with its schedule; --replay FILE runs such a
// trace again and says whether it still fails, and how; with --html it also
// draws the interleaving (sched/history_html.h), with --record it writes the
// trace as run (its schedule as taken: a trace written by hand gets one).
// --seeds N --record FILE writes one seed's run as a trace, passing or not
// (how a trace of the lane's corpus, scenarios/lane/, is taken from a seed).
//   mooncake_concurrency --seeds 1..200 [--clients 3] [--preempt 100 | --schedule pct [--pct-depth 3]]
//                        [--background evict,cleanup]
//                        [--known DIR] [--out FILE]
//   mooncake_concurrency --replay FILE [--html PICTURE.html] [--record FILE]
//   mooncake_concurrency --seeds N --record FILE [the campaign's other flags]
#include <charconv>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "concurrency_lane.h"
#include "serial_form.h"
#include "json_codec.h"
#include "history_html.h"
#include "known_findings.h"
#include "mooncake_target.h"
#include "schedule_shrink.h"
#include "text_file.h"
#include "trace.h"
#include "wall_clock.h"

namespace {

using namespace pinsim::mooncake_lane;

struct Args {
  uint64_t first = 1, last = 100;
  uint32_t clients = 3, preempt = 100;
  bool pct = false, pct_depth_given = false;  // --schedule pct (else random with --preempt), --pct-depth
  uint32_t pct_depth = 3;
  Background background;
  std::vector<pinsim::KnownFinding> known;
  std::vector<pinsim::KnownFinding> known_sequential;  // --known-sequential DIR: scenarios/findings
  std::string out, replay, html, record;  // --out FILE, --replay FILE, --html FILE, --record FILE
  bool campaign_flags = false;  // any flag that shapes a campaign (contradicts --replay)
};

// "" when `path` can be written (an existing file is left as it was).
std::string writable(std::string_view flag, const std::string& path) {
  return pinsim::can_write(path) ? "" : std::string(flag) + " " + path + ": cannot write file";
}

// "evict,cleanup", "evict", "cleanup" or "none".
std::optional<Background> background(std::string_view v) {
  if (v == "none") return Background{.evict = false, .cleanup = false};
  Background b{.evict = false, .cleanup = false};
  while (!v.empty()) {
    const size_t comma = v.find(',');
    const std::string_view name = v.substr(0, comma);
    if (name == "evict" && !b.evict) b.evict = true;
    else if (name == "cleanup" && !b.cleanup) b.cleanup = true;
    else return std::nullopt;
    v = comma == v.npos ? std::string_view() : v.substr(comma + 1);
    if (comma != std::string_view::npos && v.empty()) return std::nullopt;
  }
  if (!b.evict && !b.cleanup) return std::nullopt;
  return b;
}

std::optional<uint64_t> number(std::string_view s) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

constexpr const char* kUsage =
    "usage: mooncake_concurrency --seeds A..B [--clients N] [--preempt P | --schedule pct [--pct-depth D]]\n"
    "                            [--background evict,cleanup|evict|cleanup|none] [--known DIR]\n"
    "                            [--known-sequential DIR] [--out FILE]\n"
    "       mooncake_concurrency --replay FILE [--html PICTURE.html] [--record FILE]\n"
    "       mooncake_concurrency --seeds N --record FILE [the flags above]\n"
    "Runs Mooncake's MasterService under the deterministic scheduler: client actors, BatchEvict and the\n"
    "task-cleanup cycle, each schedule checked for linearizability against the model and for its lock order.\n"
    "--known: finding traces recognised by signature; --out: the first other failure, shrunk, as a trace\n"
    "(and, when MasterService alone gives its calls' outcomes one after another in some order, that order as\n"
    "the sequential trace FILE.sequential.json, run and named);\n"
    "--known-sequential DIR: a failure no lane finding names is shrunk, and known when such an order fails in\n"
    "the sequential lane as a finding of DIR (scenarios/findings);\n"
    "--replay: run such a trace again; --html: draw it; --record: write it as run, with the schedule taken\n"
    "(with --seeds N, one seed: its run as a trace, passing or not).\n"
    "See sim/targets/mooncake/README.md.\n"
    "Exit codes: 0 every schedule passed, 1 a failure that is not a known finding, 2 bad usage or input.\n";

// One line naming the argument and the reason, or "".
std::string parse(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) return std::string(flag) + ": a value is missing";
    const std::string_view value = argv[++i];
    a->campaign_flags |= flag != "--replay" && flag != "--html" && flag != "--record";
    if (flag == "--seeds") {
      const size_t dots = value.find("..");
      auto lo = number(value.substr(0, dots)), hi = dots == value.npos ? lo : number(value.substr(dots + 2));
      if (!lo || !hi || *lo > *hi) return "--seeds " + std::string(value) + ": expected A..B with A <= B";
      a->first = *lo, a->last = *hi;
    } else if (flag == "--clients" || flag == "--preempt") {
      auto v = number(value);
      if (!v || *v == 0 || *v > 100) return std::string(flag) + " " + std::string(value) + ": expected 1..100";
      (flag == "--clients" ? a->clients : a->preempt) = static_cast<uint32_t>(*v);
    } else if (flag == "--background") {
      auto b = background(value);
      if (!b) return "--background " + std::string(value) + ": expected evict,cleanup, evict, cleanup or none";
      a->background = *b;
    } else if (flag == "--known") {
      try {
        a->known = pinsim::load_known_findings(std::string(value));
      } catch (const pinsim::DecodeError& e) {
        return "--known " + std::string(e.what());
      }
    } else if (flag == "--known-sequential") {
      try {
        a->known_sequential = pinsim::load_known_findings(std::string(value));
      } catch (const pinsim::DecodeError& e) {
        return "--known-sequential " + std::string(e.what());
      }
    } else if (flag == "--schedule") {
      if (value != "random" && value != "pct") return "--schedule " + std::string(value) + ": expected random or pct";
      a->pct = value == "pct";
    } else if (flag == "--pct-depth") {
      auto v = number(value);
      if (!v || *v == 0 || *v > 10) return "--pct-depth " + std::string(value) + ": expected 1..10";
      a->pct_depth = static_cast<uint32_t>(*v);
      a->pct_depth_given = true;
    } else if (flag == "--out") {
      a->out = value;
      if (std::string why = writable(flag, a->out); !why.empty()) return why;
    } else if (flag == "--replay") {
      a->replay = value;
    } else if (flag == "--html" || flag == "--record") {
      std::string& file = flag == "--html" ? a->html : a->record;
      file = value;
      if (std::string why = writable(flag, file); !why.empty()) return why;
    } else {
      return std::string(flag) +
             ": unknown argument (--seeds, --clients, --preempt, --schedule, --pct-depth, --background, --known, "
                                  "--known-sequential, "
                                  "--out, --replay, --html, --record)";
    }
  }
  if (a->pct_depth_given && !a->pct) return "--pct-depth: goes with --schedule pct";
  if (!a->html.empty() && a->replay.empty())
    return "--html " + a->html + ": draws a replayed trace; give --replay FILE";
  if (!a->record.empty() && a->replay.empty() && a->first != a->last)
    return "--record " + a->record + ": writes one run; give --replay FILE or --seeds N (one seed)";
  if (!a->replay.empty() && a->campaign_flags)
    return "--replay " + a->replay + ": runs the trace as recorded; it takes no other flag";
  return "";
}

struct Totals {
  uint64_t runs = 0, refused = 0, decisions = 0, switches = 0, preemptions = 0, max_decisions = 0, deadlocks = 0,
           cycles = 0, violations = 0, known = 0, against_order = 0, inline_threads = 0;
  std::map<Edge, uint64_t> kinds;  // edge by lock kind -> schedules that showed it
  std::map<std::string, uint64_t> answers;  // "<op>:<code>" -> calls that answered so (what the lane reached)
  // The last seed's failure as --known-sequential shrank it, for --out.
  std::optional<pinsim::sched::ScheduleShrinkResult> shrunk;
};

// A failing run as a trace, described by its seed and signature.
pinsim::Trace failing_trace(const Scenario& scenario, const Result& r, uint64_t seed, const Args& a) {
  pinsim::Trace failing = to_trace(scenario, r, seed, a.preempt, a.pct ? a.pct_depth : 0);
  failing.description = "mooncake_concurrency seed " + std::to_string(seed) + " (" + r.signature + ")";
  return failing;
}

// Counts `r` into `t` and prints its failures; true when one is not a known
// finding. With the scenario, a failure no lane finding names may be named by
// a sequential one (known_sequentially).
bool add(const Result& r, uint64_t seed, const Args& a, Totals& t, const Scenario* scenario = nullptr) {
  ++t.runs;
  t.shrunk.reset();  // this seed's alone
  t.decisions += r.history.run.decisions;
  t.max_decisions = std::max(t.max_decisions, r.history.run.decisions);
  t.switches += r.switches;
  t.preemptions += r.history.run.preemptions;
  t.inline_threads += r.inline_threads;
  t.deadlocks += r.history.run.deadlock;
  for (const pinsim::sched::Call& call : r.history.calls)
    ++t.answers[std::string(pinsim::to_string(call.op.kind)) + ":" + std::string(pinsim::to_string(call.outcome.code))];
  std::map<Edge, bool> kinds;
  for (const Edge& e : r.edges) {
    kinds[{lock_kind(e.from), lock_kind(e.to)}] = true;
    if (!against_lock_order(e)) continue;
    if (const pinsim::KnownFinding* k = match_edge(a.known, r, e)) {  // a tree's own, named by its signature
      ++t.known;
      std::printf("seed %llu: known finding %s (%s)\n", static_cast<unsigned long long>(seed), k->file.c_str(),
                  edge_signature(e).c_str());
      continue;
    }
    ++t.against_order;
    std::printf("seed %llu: edge against the lock order: %s -> %s\n", static_cast<unsigned long long>(seed),
                e.from.c_str(), e.to.c_str());
  }
  for (const auto& [e, _] : kinds) ++t.kinds[e];
  if (!r.cycle.empty()) {
    ++t.cycles;
    std::string names;
    for (const auto& n : r.cycle) names += " " + n;
    std::printf("seed %llu: lock cycle:%s\n", static_cast<unsigned long long>(seed), names.c_str());
  }
  bool unknown = r.history.run.deadlock || !r.cycle.empty();
  if (r.violation) {
    std::string matched;  // the signature the finding names: the first, or an alternative
    const pinsim::KnownFinding* k = match_result(a.known, r, &matched);
    std::string how;  // what a failure a sequential finding names shrank to
    if (!k && !unknown && scenario && !a.known_sequential.empty())
      k = known_sequentially(failing_trace(*scenario, r, seed, a), a.known_sequential, &how, &t.shrunk);
    if (!how.empty()) matched = r.signature + ", " + how;
    ++(k ? t.known : t.violations);
    unknown |= !k;
    if (k)
      std::printf("seed %llu: known finding %s (%s)\n", static_cast<unsigned long long>(seed), k->file.c_str(),
                  matched.c_str());
    else {
      std::string also;  // the other calls that explain (Result::alternatives), and the conditions met
      for (const std::string& s : r.alternatives) also += (also.empty() ? "; also " : ", ") + s;
      for (const std::string& c : r.conditions) also += "; when " + c;
      if (!how.empty()) also += "; " + how;
      std::printf("seed %llu: %s (%s%s): %s\n", static_cast<unsigned long long>(seed),
                  r.history.thrown ? "an op threw" : "not linearizable", r.signature.c_str(), also.c_str(),
                  r.violation->c_str());
    }
  }
  return unknown;
}

void report(const Args& a, const Totals& t, double seconds) {
  const double n = t.runs ? static_cast<double>(t.runs) : 1.0;
  const char* background = a.background.evict ? (a.background.cleanup ? " + evict + cleanup" : " + evict")
                                              : (a.background.cleanup ? " + cleanup" : "");
  const std::string policy = a.pct ? "pct depth " + std::to_string(a.pct_depth)
                                   : "preempt " + std::to_string(a.preempt) + "%";
  std::printf("schedules %llu (seeds %llu..%llu, %u clients%s, %s), refused %llu\n",
              static_cast<unsigned long long>(t.runs), static_cast<unsigned long long>(a.first),
              static_cast<unsigned long long>(a.last), a.clients, background, policy.c_str(),
              static_cast<unsigned long long>(t.refused));
  std::printf("schedules/s %.1f; decisions per schedule %.0f (max %llu); switches per schedule %.1f, "
              "of them preemptions %.1f; inline threads per schedule %.1f\n",
              seconds > 0 ? t.runs / seconds : 0.0, t.decisions / n, static_cast<unsigned long long>(t.max_decisions),
              t.switches / n, t.preemptions / n, t.inline_threads / n);
  std::printf("deadlocks %llu; lock cycles %llu; edges against the lock order %llu; not linearizable %llu "
              "(and %llu known findings)\n",
              static_cast<unsigned long long>(t.deadlocks), static_cast<unsigned long long>(t.cycles),
              static_cast<unsigned long long>(t.against_order), static_cast<unsigned long long>(t.violations),
              static_cast<unsigned long long>(t.known));
  std::printf("calls by op and answer:");
  for (const auto& [answer, count] : t.answers)
    std::printf(" %s %llu", answer.c_str(), static_cast<unsigned long long>(count));
  std::printf("\n");
  std::printf("lock-graph edges by kind (schedules that showed each):\n");
  for (const auto& [e, count] : t.kinds)
    std::printf("  %s -> %s: %llu\n", e.from.c_str(), e.to.c_str(), static_cast<unsigned long long>(count));
}

}  // namespace

// Writes `text` to the file of `flag`; false (and one line) when it cannot.
bool save(const char* flag, const std::string& path, const std::string& text) {
  if (pinsim::write_text(path, text)) return true;
  std::fprintf(stderr, "mooncake_concurrency: %s %s: cannot write file\n", flag, path.c_str());
  return false;
}

// A shrunk failure's calls one after another (serial_form.h): when no order
// gives what the concurrent run gave, its calls overlap; otherwise that order, as the
// sequential lane runs it, written to `path`, replayed there (the model
// beside MasterService, every property), and how it fails said in one line,
// so the sequential findings (scenarios/findings/) can be searched for it.
bool write_sequential(const pinsim::Trace& lane, const std::string& path) {
  const pinsim::mooncake_lane::SerialForm serial = pinsim::mooncake_lane::serial_form(lane);
  if (!serial.trace) {
    if (serial.why.empty())
      std::printf("  none of the %zu orders of its whole calls one after another gives its outcomes and View: "
                  "its calls overlap (a race, or a divergence between one call's steps)\n",
                  serial.orders);
    else
      std::printf("  one after another: undecided: %s\n", serial.why.c_str());
    return true;
  }
  const pinsim::RunResult run = replay_sequential(*serial.trace);
  if (!save("--out", path, pinsim::write_trace(*serial.trace))) return false;
  std::printf("  MasterService alone gives the same outcomes and View with the calls one after another, so "
              "this is a sequential divergence, not a race\n");
  if (!run.error.empty())
    std::printf("  one after another (%s): not run: %s\n", path.c_str(), run.error.c_str());
  else if (!run.failure)
    std::printf("  one after another (%s): passes, so the lane's check and the sequential lane's differ\n",
                path.c_str());
  else
    std::printf("  one after another it fails as %s at step %zu (pinsim replay %s)\n",
                pinsim::failure_signature(*run.failure, run.trace).c_str(), run.failure->step, path.c_str());
  return true;
}

// Shrinks the failing run of `seed` (schedule_shrink.h), unless
// --known-sequential already did (`shrunk`), and writes it to --out.
bool write_shrunk(const Scenario& scenario, const Result& r, uint64_t seed, const Args& a,
                  std::optional<pinsim::sched::ScheduleShrinkResult> shrunk) {
  const pinsim::Trace failing = failing_trace(scenario, r, seed, a);
  if (!shrunk) shrunk = pinsim::sched::shrink_schedule(failing, pinsim::sched::ConcurrentReplayer(replay_trace));
  if (!shrunk) {
    std::printf("seed %llu: the failure did not come back on replay; written as run to %s\n",
                static_cast<unsigned long long>(seed), a.out.c_str());
    return save("--out", a.out, pinsim::write_trace(failing));
  }
  if (!shrunk->not_shrunk.empty()) {
    std::printf("seed %llu: written as run to %s, not shrunk: %s\n  replay: mooncake_concurrency --replay %s\n",
                static_cast<unsigned long long>(seed), a.out.c_str(), shrunk->not_shrunk.c_str(), a.out.c_str());
    return save("--out", a.out, pinsim::write_trace(failing));
  }
  std::printf("seed %llu: shrunk from %s to %s (%zu replays); written to %s\n  replay: mooncake_concurrency "
              "--replay %s\n",
              static_cast<unsigned long long>(seed), pinsim::sched::describe_size(shrunk->original).c_str(),
              pinsim::sched::describe_size(shrunk->size).c_str(), shrunk->replays, a.out.c_str(), a.out.c_str());
  if (!save("--out", a.out, pinsim::write_trace(shrunk->trace))) return false;
  return write_sequential(shrunk->trace, a.out + ".sequential.json");
}

// The picture of a replayed trace (--html), with the verdict in one line.
bool draw(const std::string& path, const std::string& html, const Scenario& scenario, const Result& r, bool diverged) {
  pinsim::sched::ShownHistory shown;
  shown.title = path;
  for (size_t i = 0; i < scenario.roles.size(); ++i)
    shown.actors.push_back(scenario.roles[i] == "client" ? "client " + std::to_string(i) : scenario.roles[i]);
  shown.prefix = scenario.prefix;
  shown.history = &r.history;
  shown.verdict = r.history.run.deadlock ? "deadlock"
                  : !r.cycle.empty()     ? "a cycle in the lock graph"
                  : r.history.thrown     ? "an op threw: " + r.signature
                  : r.violation          ? "no order of the calls explains them: " + r.signature
                                         : "passes: an order of the calls explains every outcome and the View";
  if (diverged) shown.verdict += " (the run did not follow the recorded schedule)";
  shown.detail = r.violation.value_or("");
  return save("--html", html, pinsim::sched::render_history_html(shown));
}

// --replay FILE: 0 when the trace passes, 1 when it fails (how, and whether
// its own `finding` names that failure), 2 when it cannot be run.
int replay_file(const std::string& path, const std::string& html, const std::string& record) {
  pinsim::Trace trace;
  try {
    trace = pinsim::load_trace(path);
  } catch (const pinsim::DecodeError& e) {
    std::fprintf(stderr, "mooncake_concurrency: %s\n", e.what());
    return 2;
  }
  if (trace.run && trace.run->target != "mooncake") {
    std::fprintf(stderr, "mooncake_concurrency: %s: $.run.target: \"%s\", but this lane replays the Mooncake target\n",
                 path.c_str(), pinsim::printable(trace.run->target).c_str());
    return 2;
  }
  std::string why;
  const std::optional<Replayed> replayed = replay_recorded(trace, &why);
  if (!replayed) {
    std::fprintf(stderr, "mooncake_concurrency: %s: %s\n", path.c_str(), why.c_str());
    return 2;
  }
  const Result& r = replayed->result;
  const char* followed = replayed->diverged
                             ? "the run did NOT follow the recorded schedule (another tree, or MasterService changed)"
                             : "the recorded schedule was followed";
  std::printf("%s: %llu decisions, %llu preemptions, on %s; %s\n", path.c_str(),
              static_cast<unsigned long long>(r.history.run.decisions),
              static_cast<unsigned long long>(r.history.run.preemptions), r.variant.c_str(), followed);
  if (!html.empty() && !draw(path, html, replayed->scenario, r, replayed->diverged)) return 2;
  if (!record.empty() && !save("--record", record, pinsim::write_trace(replayed->as_run))) return 2;
  Args a;
  if (trace.finding) a.known.push_back({path, trace.finding->tree, trace.finding->signatures});
  Totals t;
  add(r, trace.seed.value_or(0), a, t);
  const bool failed = t.violations || t.known || t.deadlocks || t.cycles || t.against_order;
  if (!failed) std::printf("%s: passes: a linearization explains every outcome and the View\n", path.c_str());
  return failed || replayed->diverged ? 1 : 0;
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
  Args a;
  if (std::string why = parse(argc, argv, &a); !why.empty()) {
    std::fprintf(stderr, "mooncake_concurrency: %s\n", why.c_str());
    return 2;
  }
  if (!a.replay.empty()) return replay_file(a.replay, a.html, a.record);
  const Background tree = tree_actors();
  if (a.background.evict && !tree.evict) {
    std::fprintf(stderr, "mooncake_concurrency: --background: %s\n", kEvictNotSeedable);
    return 2;
  }
  if (a.background.cleanup && !tree.cleanup) {
    std::fprintf(stderr, "mooncake_concurrency: --background: this tree has no cleanup (no CleanupExpiredSoftPins, "
                         "no retention prune); use --background evict\n");
    return 2;
  }
  Totals t;
  bool written = false;
  const pinsim::WallClock clock;  // for schedules/s only, never an outcome
  for (uint64_t seed = a.first; seed <= a.last; ++seed) {
    const Scenario scenario = make_scenario(seed, a.clients, a.background);
    const Result r = a.pct ? run_pct(scenario, seed, a.pct_depth, a.known) : run(scenario, seed, a.preempt, a.known);
    if (!r.error.empty()) {
      ++t.refused;
      std::printf("seed %llu: %s\n", static_cast<unsigned long long>(seed), r.error.c_str());
      continue;
    }
    if (!a.record.empty() && !save("--record", a.record, pinsim::write_trace(to_trace(
                                  scenario, r, seed, a.preempt, a.pct ? a.pct_depth : 0))))
      return 2;
    if (add(r, seed, a, t, &scenario) && !a.out.empty() && !written) {
      if (!write_shrunk(scenario, r, seed, a, std::move(t.shrunk))) return 2;
      written = true;
    }
  }
  const double seconds = clock.seconds();
  report(a, t, seconds);
  return t.violations || t.deadlocks || t.cycles || t.against_order || t.refused ? 1 : 0;
}
