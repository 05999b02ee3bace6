// Expiry cost as the object count grows (RFC 3028 "Expiration cleanup"): with
// N pinned objects of which 10 are due, one expiry cycle through the deadline
// index against one full-scan cycle, for N in {1e3, 1e4, 1e5, 1e6}. The RFC
// promises a cost that follows the due entries, not N; the table after the
// run shows both times and their ratio per N. Between timed cycles the 10 due
// objects are re-pinned (same-size Upsert, Enable ttl 1 ms) with the timer
// paused.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <memory>

#include "embedded_master.h"

using namespace pinsim;

namespace {

constexpr KeyId kDue = 10;
constexpr uint64_t kFarTtl = 24ull * 3600 * 1000;

Op write(OpKind kind, KeyId key, uint64_t ttl) {
  Op op;
  op.kind = kind;
  op.client = 1;
  op.object = {0, key};
  if (kind == OpKind::PutStart || kind == OpKind::UpsertStart) {
    op.size = 1;
    op.memory_replicas = 1;
    op.soft_pin = {static_cast<uint8_t>(SoftPinAction::Enable), ttl};
  }
  return op;
}

struct Fixture {
  std::unique_ptr<embedded::EmbeddedMaster> master;
  Time now = 0;
};

// One master per N, shared by both variants (each leaves it re-armed).
Fixture& fixture(KeyId n) {
  static std::map<KeyId, Fixture> fixtures;
  Fixture& f = fixtures[n];
  if (f.master) return f;
  Config config;
  config.segments = {{ReplicaKind::Memory, uint64_t{1} << 40}};
  f.master = std::make_unique<embedded::EmbeddedMaster>(config, embedded::Faults{});
  for (KeyId k = 0; k < n; ++k) {
    f.master->apply(write(OpKind::PutStart, k, k < kDue ? 1 : kFarTtl), 0);
    f.master->apply(write(OpKind::PutEnd, k, 0), 0);
  }
  f.now = 1;  // the 10 due objects expire at 1
  return f;
}

void rearm(Fixture& f) {
  for (KeyId k = 0; k < kDue; ++k) {
    f.master->apply(write(OpKind::UpsertStart, k, 1), f.now);
    f.master->apply(write(OpKind::UpsertEnd, k, 0), f.now);
  }
  ++f.now;
}

template <bool kScan>
void BM_ExpiryCycle(benchmark::State& state) {
  Fixture& f = fixture(static_cast<KeyId>(state.range(0)));
  for (auto _ : state) {
    const int64_t cleared = kScan ? f.master->run_scan_cycle(f.now) : f.master->run_expiry_cycle(f.now);
    state.PauseTiming();
    if (cleared != kDue) state.SkipWithError("a cycle did not clear exactly the 10 due pins");
    rearm(f);
    state.ResumeTiming();
  }
  state.counters["heap"] = static_cast<double>(f.master->heap_size());
}

void BM_IndexCycle(benchmark::State& state) { BM_ExpiryCycle<false>(state); }
void BM_ScanCycle(benchmark::State& state) { BM_ExpiryCycle<true>(state); }
BENCHMARK(BM_IndexCycle)->RangeMultiplier(10)->Range(1000, 1'000'000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ScanCycle)->RangeMultiplier(10)->Range(1000, 1'000'000)->Unit(benchmark::kMicrosecond);

// Records each run's time per N so the ratio table can be printed.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.error_occurred || r.run_type != Run::RT_Iteration) continue;
      const std::string name = r.benchmark_name();
      const auto slash = name.find('/');
      const long n = std::stol(name.substr(slash + 1));
      (name.rfind("BM_Scan", 0) == 0 ? scan_ : index_)[n] = r.GetAdjustedRealTime();
    }
  }
  void print_table() const {
    std::printf("\n%10s %14s %14s %10s\n", "N", "index (us)", "scan (us)", "scan/index");
    for (const auto& [n, t] : index_) {
      auto s = scan_.find(n);
      if (s == scan_.end()) continue;
      std::printf("%10ld %14.2f %14.2f %10.1f\n", n, t, s->second, s->second / t);
    }
  }

 private:
  std::map<long, double> index_, scan_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.print_table();
  benchmark::Shutdown();
  return 0;
}
