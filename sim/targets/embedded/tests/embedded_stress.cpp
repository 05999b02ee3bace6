// The threaded stress run: several actors on real std::threads drive one
// embedded master with random ops over a small key space, while a shared
// virtual clock moves forward; then the invariants are checked (RFC 3028
// "Metrics" and "Deadline index"): gauge == stored deadlines == index
// registrations, heap >= registrations; in multi-tenant mode (tight quotas,
// hard pins) every tenant's account equals its objects' ledgers. Meant to
// run under ThreadSanitizer.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "embedded_master.h"
#include "prng.h"

using namespace pinsim;

namespace {

constexpr uint64_t kTtls[] = {0, 50, 5'000, 10'000'000};

Op random_op(Prng& rng) {
  Op op;
  op.client = 1 + static_cast<ClientId>(rng.below(3));
  op.object = {static_cast<TenantId>(rng.below(2)), static_cast<KeyId>(rng.below(24))};
  const uint64_t r = rng.below(100);
  if (r < 18) {
    op.kind = rng.below(2) ? OpKind::PutStart : OpKind::UpsertStart;
    op.size = rng.below(2) ? 32 : 64;
    op.memory_replicas = 1 + static_cast<uint32_t>(rng.below(2));
    op.nof_replicas = static_cast<uint32_t>(rng.below(2));
    op.group = static_cast<GroupId>(rng.below(4));
    op.hard_pin = rng.below(8) == 0;
    op.soft_pin.action = static_cast<uint8_t>(rng.below(3));
    if (op.soft_pin.action == static_cast<uint8_t>(SoftPinAction::Enable)) op.soft_pin.ttl_ms = kTtls[rng.below(4)];
  } else if (r < 40) {
    op.kind = rng.below(2) ? OpKind::PutEnd : OpKind::UpsertEnd;
    op.selector = static_cast<ReplicaSelector>(rng.below(3));
  } else if (r < 45) {
    op.kind = OpKind::PutRevoke;
    op.selector = static_cast<ReplicaSelector>(rng.below(3));
  } else if (r < 58) {
    op.kind = rng.below(2) ? OpKind::Get : OpKind::Exist;
  } else if (r < 64) {
    op.kind = OpKind::Remove;
    op.force = rng.below(2);
  } else if (r < 70) {
    op.kind = OpKind::RetainGroups;
    op.groups = {1 + static_cast<GroupId>(rng.below(3))};
    op.ttl_ms = 1 + rng.below(100);
  } else if (r < 76) {
    op.kind = OpKind::Evict;
    op.evict_target_pct = 25;
    op.evict_lowerbound_pct = 10;
  } else if (r < 92) {
    op.kind = OpKind::Cleanup;
  } else if (r < 95) {
    op.kind = rng.below(20) ? OpKind::Snapshot : OpKind::Restore;
    op.fail_first_candidate = rng.below(2);
  } else {
    op.kind = OpKind::Advance;
  }
  return op;
}

// One run of `threads` actors x `ops` ops on a fresh master; true when the
// invariants hold.
bool stress(const Config& config, const char* label, int threads, int ops) {
  embedded::EmbeddedMaster master(config, embedded::Faults{});
  std::atomic<Time> clock{0};
  std::atomic<uint64_t> applied{0};
  std::vector<std::thread> actors;
  for (int t = 0; t < threads; ++t) {
    actors.emplace_back([&, t] {
      Prng rng(1000 + static_cast<uint64_t>(t));
      for (int i = 0; i < ops; ++i) {
        if (rng.below(8) == 0) clock.fetch_add(static_cast<Time>(rng.below(40)));
        master.apply(random_op(rng), clock.load());
        if (i % 512 == 0) (void)master.view(clock.load());
        applied.fetch_add(1);
      }
    });
  }
  for (std::thread& a : actors) a.join();
  const int64_t gauge = master.gauge();
  const size_t stored = master.stored_deadlines();
  const size_t registrations = master.registration_count();
  const size_t heap = master.heap_size();
  std::printf("embedded_stress (%s): %d threads, %llu ops; gauge %lld, stored deadlines %zu, registrations %zu, "
              "heap %zu\n",
              label, threads, static_cast<unsigned long long>(applied.load()), static_cast<long long>(gauge), stored,
              registrations, heap);
  const bool charges = master.ledger_usage() == master.view(clock.load()).usage;
  if (!charges) std::printf("embedded_stress: tenant accounts differ from the object ledgers\n");
  const bool ok =
      gauge == static_cast<int64_t>(stored) && registrations == stored && heap >= registrations && charges;
  if (!ok) std::printf("embedded_stress: INVARIANT VIOLATED\n");
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 4;
  const int ops = argc > 2 ? std::atoi(argv[2]) : 20'000;
  Config config;
  config.max_retained_groups = 2;
  const bool single = stress(config, "single tenant", threads, ops);
  config.multi_tenant = true;  // tight quotas: refusals and quota eviction
  config.tenant_quota_bytes = {{0, 256}, {1, 512}};
  const bool multi = stress(config, "multi-tenant", threads, ops);
  return single && multi ? 0 : 1;
}
