// The embedded master's expiry cycle through its public ops: a stale entry
// never clears a re-enabled pin, the gauge and registrations follow stored
// deadlines, and the full-scan cycle clears exactly what the index cycle does.
#include <gtest/gtest.h>

#include "embedded_master.h"

namespace pinsim::embedded {
namespace {

Op start(OpKind kind, KeyId key, uint64_t ttl, uint64_t size = 32) {
  Op op;
  op.kind = kind;
  op.client = 1;
  op.object = {0, key};
  op.size = size;
  op.memory_replicas = 1;
  op.soft_pin = {static_cast<uint8_t>(SoftPinAction::Enable), ttl};
  return op;
}

Op simple(OpKind kind, KeyId key = 0) {
  Op op;
  op.kind = kind;
  op.client = 1;
  op.object = {0, key};
  return op;
}

TEST(ExpiryCycle, StaleEntryNeverClearsAReEnabledPin) {
  EmbeddedMaster m(Config{}, Faults{});
  ASSERT_EQ(m.apply(start(OpKind::PutStart, 0, 1000), 0).code, ErrorCode::OK);
  ASSERT_EQ(m.apply(simple(OpKind::PutEnd), 0).code, ErrorCode::OK);
  ASSERT_EQ(m.apply(start(OpKind::UpsertStart, 0, 20'000), 10).code, ErrorCode::OK);
  ASSERT_EQ(m.apply(simple(OpKind::UpsertEnd), 10).code, ErrorCode::OK);
  EXPECT_EQ(m.heap_size(), 2u);
  EXPECT_EQ(m.registration_count(), 1u);
  ASSERT_EQ(m.apply(simple(OpKind::Cleanup), 1000).code, ErrorCode::OK);
  const View v = m.view(1000);
  ASSERT_EQ(v.objects.size(), 1u);
  EXPECT_EQ(v.objects[0].deadline, 20'010);
  EXPECT_EQ(v.gauge, 1);
  EXPECT_EQ(m.registration_count(), 1u);
  EXPECT_EQ(m.heap_size(), 1u);
}

TEST(ExpiryCycle, ScanCycleClearsWhatTheIndexCycleClears) {
  EmbeddedMaster by_index(Config{}, Faults{});
  EmbeddedMaster by_scan(Config{}, Faults{});
  for (EmbeddedMaster* m : {&by_index, &by_scan}) {
    for (KeyId k = 0; k < 20; ++k) {
      ASSERT_EQ(m->apply(start(OpKind::PutStart, k, 100 * (k + 1)), 0).code, ErrorCode::OK);
      ASSERT_EQ(m->apply(simple(OpKind::PutEnd, k), 0).code, ErrorCode::OK);
    }
  }
  EXPECT_EQ(by_index.run_expiry_cycle(1000), 10);
  EXPECT_EQ(by_scan.run_scan_cycle(1000), 10);
  EXPECT_EQ(by_index.view(1000), by_scan.view(1000));
  for (const EmbeddedMaster* m : {&by_index, &by_scan}) {
    EXPECT_EQ(m->gauge(), 10);
    EXPECT_EQ(m->registration_count(), 10u);
    EXPECT_EQ(m->stored_deadlines(), 10u);
  }
}

}  // namespace
}  // namespace pinsim::embedded
