// Tests of the local-disk tier in the Mooncake target (README.md, "The
// local-disk tier"): a tree without it refuses the configuration; on one with
// it an offload goes End -> take -> report, the object outlives eviction on
// the holder's disk, a read queues its promotion and the holder settles it;
// a kept master's next run has nothing of the last run's in the holder's
// mailboxes.
#include <gtest/gtest.h>

#include "mooncake_target.h"

namespace pinsim {
namespace {

bool tree_has_local_disk() {
  return mooncake_target_description().find("local-disk tier") == std::string_view::npos;
}

Config local_config() {
  Config c;
  c.profile = *parse_profile(mooncake_target_profile());
  c.segments = {{ReplicaKind::Memory, 4096}};
  c.local_disk = true;
  return c;
}

Op on_key(OpKind kind, KeyId k, bool fail = false) {
  Op op;
  op.kind = kind;
  op.client = 1;
  op.object = {0, k};
  op.fail = fail;
  if (kind == OpKind::PutStart) {
    op.size = 64;
    op.memory_replicas = 1;
  }
  return op;
}

const ObjectView* find(const View& v, KeyId k) {
  for (const ObjectView& o : v.objects)
    if (o.id.key == k) return &o;
  return nullptr;
}

// A local-disk master with key k written and ended (its offload queued).
std::unique_ptr<Target> with_key_written(KeyId k) {
  std::string error;
  auto t = make_mooncake_target(local_config(), {}, &error);
  EXPECT_TRUE(t) << error;
  if (!t) return t;
  EXPECT_EQ(t->apply(on_key(OpKind::PutStart, k), 0).code, ErrorCode::OK);
  EXPECT_EQ(t->apply(on_key(OpKind::PutEnd, k), 0).code, ErrorCode::OK);
  return t;
}

TEST(MooncakeLocalDisk, RefusedWithoutTheTierAndNoSnapshots) {
  std::string error;
  auto t = make_mooncake_target(local_config(), {}, &error);
  EXPECT_EQ(static_cast<bool>(t), tree_has_local_disk()) << error;
  EXPECT_FALSE(mooncake_target_supports(on_key(OpKind::Snapshot, 0), local_config()));
  EXPECT_FALSE(mooncake_target_supports(on_key(OpKind::Restore, 0), local_config()));
  Config plain = local_config();
  plain.local_disk = false;
  EXPECT_FALSE(mooncake_target_supports(on_key(OpKind::OffloadTake, 0), plain));
}

TEST(MooncakeLocalDisk, OffloadRoundTripThenPromotion) {
  if (!tree_has_local_disk()) GTEST_SKIP() << "no local-disk tier in this tree";
  auto t = with_key_written(1);
  ASSERT_TRUE(t);
  ASSERT_TRUE(find(t->view(0), 1) && find(t->view(0), 1)->offloading);
  EXPECT_EQ(t->apply(on_key(OpKind::OffloadEnd, 1), 0).code, ErrorCode::OBJECT_NOT_FOUND);  // not taken yet
  EXPECT_EQ(t->apply(on_key(OpKind::OffloadTake, 0), 0).code, ErrorCode::OK);
  EXPECT_EQ(t->apply(on_key(OpKind::OffloadEnd, 1), 0).code, ErrorCode::OK);
  View v = t->view(0);
  ASSERT_TRUE(find(v, 1));
  EXPECT_EQ(find(v, 1)->complete_local, 1u);
  EXPECT_EQ(find(v, 1)->complete_memory, 1u);
  EXPECT_FALSE(find(v, 1)->offloading);
  Op evict = on_key(OpKind::Evict, 0);
  evict.evict_target_pct = evict.evict_lowerbound_pct = 100;
  t->apply(evict, 60'000);
  v = t->view(60'000);
  ASSERT_TRUE(find(v, 1)) << "the disk replica keeps the object";
  EXPECT_EQ(find(v, 1)->complete_memory, 0u);
  EXPECT_EQ(t->apply(on_key(OpKind::Get, 1), 60'000).code, ErrorCode::OK);
  EXPECT_TRUE(find(t->view(60'000), 1)->promoting);
  EXPECT_EQ(t->apply(on_key(OpKind::PromotionStart, 1), 60'000).code, ErrorCode::OK);
  EXPECT_EQ(find(t->view(60'000), 1)->processing, 1u);
  EXPECT_EQ(t->apply(on_key(OpKind::PromotionEnd, 1), 60'000).code, ErrorCode::OK);
  v = t->view(60'000);
  EXPECT_EQ(find(v, 1)->complete_memory, 1u);
  EXPECT_EQ(find(v, 1)->processing, 0u);
  EXPECT_FALSE(find(v, 1)->promoting);
}

// An offload queued and never taken in one run is not in the next run's
// mailbox: that run's take hands out its own offloads only.
TEST(MooncakeLocalDisk, AKeptMasterStartsWithEmptyMailboxes) {
  if (!tree_has_local_disk()) GTEST_SKIP() << "no local-disk tier in this tree";
  ASSERT_TRUE(with_key_written(1));  // its offload stays queued when the run ends
  auto t = with_key_written(2);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->apply(on_key(OpKind::OffloadTake, 0), 0).code, ErrorCode::OK);
  EXPECT_EQ(t->apply(on_key(OpKind::OffloadEnd, 1), 0).code, ErrorCode::OBJECT_NOT_FOUND);
  EXPECT_EQ(t->apply(on_key(OpKind::OffloadEnd, 2), 0).code, ErrorCode::OK);
  EXPECT_EQ(t->view(0).objects.size(), 1u);
}

}  // namespace
}  // namespace pinsim
