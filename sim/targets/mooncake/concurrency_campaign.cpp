// mooncake_concurrency: a campaign of the Mooncake concurrency lane
// (concurrency_lane.h). Seed s runs scenario s under the schedule of seed s,
// with every preemption considered (--preempt 100) or few (lower values, as
// PCT favours), and prints what the campaign saw: schedules per second,
// decisions and switches per schedule, the lock-graph edges by lock kind,
// edges against MasterService's lock order, cycles, deadlocks and
// linearizability failures (each with its seed and the history). Exit 1 when
// any schedule failed a check, 2 on bad input.
//   mooncake_concurrency --seeds 1..200 [--clients 3] [--preempt 100] [--background evict,cleanup]
#include <charconv>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "concurrency_lane.h"

namespace {

using namespace pinsim::mooncake_lane;

struct Args {
  uint64_t first = 1, last = 100;
  uint32_t clients = 3, preempt = 100;
  Background background;
};

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

// One line naming the argument and the reason, or "".
std::string parse(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) return std::string(flag) + ": a value is missing";
    const std::string_view value = argv[++i];
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
    } else {
      return std::string(flag) + ": unknown argument (--seeds, --clients, --preempt, --background)";
    }
  }
  return "";
}

struct Totals {
  uint64_t runs = 0, refused = 0, decisions = 0, switches = 0, max_decisions = 0, deadlocks = 0, cycles = 0,
           violations = 0, against_order = 0, inline_threads = 0;
  std::map<Edge, uint64_t> kinds;  // edge by lock kind -> schedules that showed it
};

void add(const Result& r, uint64_t seed, Totals& t) {
  ++t.runs;
  t.decisions += r.history.run.decisions;
  t.max_decisions = std::max(t.max_decisions, r.history.run.decisions);
  t.switches += r.switches;
  t.inline_threads += r.inline_threads;
  t.deadlocks += r.history.run.deadlock;
  std::map<Edge, bool> kinds;
  for (const Edge& e : r.edges) {
    kinds[{lock_kind(e.from), lock_kind(e.to)}] = true;
    if (against_lock_order(e)) {
      ++t.against_order;
      std::printf("seed %llu: edge against the lock order: %s -> %s\n", static_cast<unsigned long long>(seed),
                  e.from.c_str(), e.to.c_str());
    }
  }
  for (const auto& [e, _] : kinds) ++t.kinds[e];
  if (!r.cycle.empty()) {
    ++t.cycles;
    std::string names;
    for (const auto& n : r.cycle) names += " " + n;
    std::printf("seed %llu: lock cycle:%s\n", static_cast<unsigned long long>(seed), names.c_str());
  }
  if (r.violation) {
    ++t.violations;
    std::printf("seed %llu: not linearizable: %s\n", static_cast<unsigned long long>(seed), r.violation->c_str());
  }
}

void report(const Args& a, const Totals& t, double seconds) {
  const double n = t.runs ? static_cast<double>(t.runs) : 1.0;
  const char* background = a.background.evict ? (a.background.cleanup ? " + evict + cleanup" : " + evict")
                                              : (a.background.cleanup ? " + cleanup" : "");
  std::printf("schedules %llu (seeds %llu..%llu, %u clients%s, preempt %u%%), refused %llu\n",
              static_cast<unsigned long long>(t.runs), static_cast<unsigned long long>(a.first),
              static_cast<unsigned long long>(a.last), a.clients, background, a.preempt,
              static_cast<unsigned long long>(t.refused));
  std::printf("schedules/s %.1f; decisions per schedule %.0f (max %llu); switches per schedule %.1f; "
              "inline threads per schedule %.1f\n",
              seconds > 0 ? t.runs / seconds : 0.0, t.decisions / n, static_cast<unsigned long long>(t.max_decisions),
              t.switches / n, t.inline_threads / n);
  std::printf("deadlocks %llu; lock cycles %llu; edges against the lock order %llu; not linearizable %llu\n",
              static_cast<unsigned long long>(t.deadlocks), static_cast<unsigned long long>(t.cycles),
              static_cast<unsigned long long>(t.against_order), static_cast<unsigned long long>(t.violations));
  std::printf("lock-graph edges by kind (schedules that showed each):\n");
  for (const auto& [e, count] : t.kinds)
    std::printf("  %s -> %s: %llu\n", e.from.c_str(), e.to.c_str(), static_cast<unsigned long long>(count));
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (std::string why = parse(argc, argv, &a); !why.empty()) {
    std::fprintf(stderr, "mooncake_concurrency: %s\n", why.c_str());
    return 2;
  }
  Totals t;
  const auto start = std::chrono::steady_clock::now();  // for schedules/s only, never an outcome
  for (uint64_t seed = a.first; seed <= a.last; ++seed) {
    const Result r = run(make_scenario(seed, a.clients, a.background), seed, a.preempt);
    if (!r.error.empty()) {
      ++t.refused;
      std::printf("seed %llu: %s\n", static_cast<unsigned long long>(seed), r.error.c_str());
      continue;
    }
    add(r, seed, t);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report(a, t, seconds);
  return t.violations || t.deadlocks || t.cycles || t.against_order || t.refused ? 1 : 0;
}
