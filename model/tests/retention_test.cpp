// Pins the model's PR 2835 group-retention rules (numbered 1-10 in docs/rules.md):
// one test per numbered rule, plus multi-tenant cases.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <ostream>
#include <vector>

#include "model_fixture.h"

namespace pinsim {

// Readable gtest output for per-group results (internal linkage: no clash
// with another test file).
[[maybe_unused]] static void PrintTo(RetainResult r, std::ostream* os) {
  switch (r) {
    case RetainResult::Accepted: *os << "Accepted"; return;
    case RetainResult::Full: *os << "Full"; return;
    case RetainResult::InvalidParams: *os << "InvalidParams"; return;
  }
  *os << "RetainResult(" << static_cast<int>(r) << ")";
}

namespace test {
namespace {

constexpr RetainResult kA = RetainResult::Accepted;
constexpr RetainResult kFull = RetainResult::Full;
constexpr RetainResult kInv = RetainResult::InvalidParams;
using Results = std::vector<RetainResult>;

class RetentionTest : public ModelTest {
 protected:
  // The live retention deadline of (tenant, group) as the View shows it.
  std::optional<Time> retention(GroupId g, TenantId t = 0) {
    for (const RetentionView& r : m().view(now).retention)
      if (r.tenant == t && r.group == g) return r.deadline;
    return std::nullopt;
  }
  uint64_t live_entries() { return m().view(now).retention.size(); }
  uint64_t stored_entries() { return m().view(now).retention_entries; }
  uint64_t counter() { return m().view(now).retained_group_count; }
  Time lease(KeyId key, TenantId t = 0) {
    auto v = obj(key, t);
    EXPECT_TRUE(v.has_value()) << "key " << key << " tenant " << t;
    return v ? v->lease : -1;
  }
  // Rule 5 invariants, checked after every step of the admission tests:
  // the counter equals the stored entries and live entries never exceed the cap.
  void expect_admission_invariants() {
    const View v = m().view(now);
    EXPECT_EQ(v.retained_group_count, v.retention_entries);
    EXPECT_LE(v.retention.size(), config.max_retained_groups);
    EXPECT_LE(v.retention.size(), v.retention_entries);
    for (const RetentionView& r : v.retention) EXPECT_GT(r.deadline, now);
  }
  // A grouped member written by client 1 (PutStart + PutEnd).
  void put_member(KeyId key, GroupId g, TenantId t = 0, SoftPinRequest sp = {}) {
    ASSERT_EQ(put(key, sp, 64, g, t), ErrorCode::OK);
  }
};

// ---------------------------------------------------------------------------
// Rule 1: per-group results.

TEST_F(RetentionTest, Pr2835Rule1_PerGroupResults) {
  const uint64_t max_ttl = config.max_group_retention_ttl_ms;
  {
    SCOPED_TRACE("accepted, group id 0 invalid per element");
    Outcome o = retain({1}, 1000);
    EXPECT_EQ(o.code, ErrorCode::OK);
    EXPECT_EQ(o.retained, (Results{kA}));
    EXPECT_EQ(retain({0}, 1000).retained, (Results{kInv}));
    EXPECT_EQ(retain({2, 0, 3}, 1000).retained, (Results{kA, kInv, kA}));
    EXPECT_EQ(counter(), 3u);
    EXPECT_EQ(retention(0), std::nullopt);  // the empty id is never stored
  }
  {
    SCOPED_TRACE("empty request -> empty result");
    Outcome o = retain({}, 1000);
    EXPECT_EQ(o.code, ErrorCode::OK);
    EXPECT_TRUE(o.retained.empty());
    EXPECT_TRUE(retain({}, 0).retained.empty());  // empty wins over a bad TTL
  }
  {
    SCOPED_TRACE("TTL 0 or above max: every element INVALID_PARAMS, nothing stored");
    EXPECT_EQ(retain({4, 5, 0}, 0).retained, (Results{kInv, kInv, kInv}));
    EXPECT_EQ(retain({4, 5}, max_ttl + 1).retained, (Results{kInv, kInv}));
    EXPECT_EQ(retain({1}, max_ttl + 1).retained, (Results{kInv}));  // no extension either
    EXPECT_EQ(retain({6}, std::numeric_limits<uint64_t>::max()).retained, (Results{kInv}));
    EXPECT_EQ(retention(4), std::nullopt);
    EXPECT_EQ(retention(1), now + 1000);
    EXPECT_EQ(counter(), 3u);
  }
  {
    SCOPED_TRACE("TTL exactly max accepted");
    EXPECT_EQ(retain({4}, max_ttl).retained, (Results{kA}));
    EXPECT_EQ(retention(4), now + static_cast<Time>(max_ttl));
  }
  {
    SCOPED_TRACE("Full when the admission cap is full");
    config.max_retained_groups = 2;
    reset();
    EXPECT_EQ(retain({1, 2, 3}, 1000).retained, (Results{kA, kA, kFull}));
    EXPECT_EQ(retain({3, 0}, 1000).retained, (Results{kFull, kInv}));
    EXPECT_EQ(retention(3), std::nullopt);
    EXPECT_EQ(counter(), 2u);
  }
  {
    SCOPED_TRACE("cap 0 refuses every group");
    config.max_retained_groups = 0;
    reset();
    // PR 2835 checks the cap of 0 before looking at any element, so even the
    // empty id answers false (Mooncake PR 2835 RetainGroups order: empty, TTL, cap 0).
    EXPECT_EQ(retain({1, 2, 0}, 1000).retained, (Results{kFull, kFull, kFull}));
    EXPECT_EQ(retain({1}, 0).retained, (Results{kInv}));  // TTL is checked before the cap
    EXPECT_EQ(counter(), 0u);
    EXPECT_EQ(stored_entries(), 0u);
  }
}

// ---------------------------------------------------------------------------
// Rule 2: max-deadline.

TEST_F(RetentionTest, Pr2835Rule2_MaxDeadlineNeverShortens) {
  put_member(1, 7);
  put_member(2, 7);
  const Time t0 = now;
  ASSERT_EQ(retain({7}, 60'000).retained, (Results{kA}));
  EXPECT_EQ(retention(7), t0 + 60'000);
  EXPECT_EQ(lease(1), t0 + 60'000);
  EXPECT_EQ(lease(2), t0 + 60'000);

  advance(1000);
  EXPECT_EQ(retain({7}, 5000).retained, (Results{kA}));  // accepted, but shorter
  EXPECT_EQ(retention(7), t0 + 60'000);
  EXPECT_EQ(lease(1), t0 + 60'000);
  EXPECT_EQ(lease(2), t0 + 60'000);

  // A member that joins now inherits the group's deadline, and a later
  // shorter request does not shorten it either.
  put_member(3, 7);
  EXPECT_EQ(lease(3), t0 + 60'000);
  advance(1000);
  EXPECT_EQ(retain({7}, 1).retained, (Results{kA}));
  EXPECT_EQ(retention(7), t0 + 60'000);
  EXPECT_EQ(lease(3), t0 + 60'000);

  // A longer request does extend, group and every member.
  advance(1000);
  EXPECT_EQ(retain({7}, 120'000).retained, (Results{kA}));
  EXPECT_EQ(retention(7), now + 120'000);
  for (KeyId k : {1u, 2u, 3u}) EXPECT_EQ(lease(k), now + 120'000) << "key " << k;
  EXPECT_EQ(counter(), 1u);
}

// ---------------------------------------------------------------------------
// Rule 3: intent recorded before members exist.

TEST_F(RetentionTest, Pr2835Rule3_IntentBeforeMembersIsInherited) {
  const Time t0 = now;
  ASSERT_EQ(retain({9}, 30'000).retained, (Results{kA}));  // no member yet
  EXPECT_EQ(retention(9), t0 + 30'000);
  EXPECT_EQ(counter(), 1u);
  EXPECT_TRUE(m().objects().empty());

  advance(10'000);
  // Inherited at PutStart (RegisterGroupMember), while still PROCESSING.
  ASSERT_EQ(put_start(1, {}, 64, 1, 0, 9), ErrorCode::OK);
  EXPECT_EQ(lease(1), t0 + 30'000);
  advance(5000);
  ASSERT_EQ(end(1), ErrorCode::OK);  // GrantReadLease(0) keeps the max
  EXPECT_EQ(lease(1), t0 + 30'000);
  // An Upsert Case A of a fresh key inherits too.
  ASSERT_EQ(upsert_start(2, {}, 64, 1, 0, 9), ErrorCode::OK);
  EXPECT_EQ(lease(2), t0 + 30'000);
  ASSERT_EQ(end(2), ErrorCode::OK);
  // The intent is still one entry; members do not add entries.
  EXPECT_EQ(counter(), 1u);
  EXPECT_EQ(stored_entries(), 1u);

  // One millisecond before the deadline: still inherited.
  now = t0 + 30'000 - 1;
  ASSERT_EQ(put_start(3, {}, 64, 1, 0, 9), ErrorCode::OK);
  EXPECT_EQ(lease(3), t0 + 30'000);

  // At the deadline (D <= now is expired): nothing inherited, entry removed.
  now = t0 + 30'000;
  EXPECT_EQ(retention(9), std::nullopt);
  EXPECT_EQ(stored_entries(), 1u);  // not yet pruned: no op has looked
  EXPECT_EQ(counter(), 1u);
  ASSERT_EQ(put_start(4, {}, 64, 1, 0, 9), ErrorCode::OK);
  EXPECT_LE(lease(4), now);  // no live lease
  EXPECT_EQ(stored_entries(), 0u);
  EXPECT_EQ(counter(), 0u);
  ASSERT_EQ(end(4), ErrorCode::OK);
  EXPECT_EQ(lease(4), now);  // only PutEnd's GrantReadLease(0)
}

// ---------------------------------------------------------------------------
// Rule 4: protection through the member read lease.

TEST_F(RetentionTest, Pr2835Rule4_RetainedMemberIsProtectedUntilDeadline) {
  put_member(1, 5);
  put_member(3, 5);
  put_member(4, 5);
  put_member(2, 0);  // an ordinary object: shows that eviction does run
  const Time t0 = now;
  ASSERT_EQ(retain({5}, 60'000).retained, (Results{kA}));
  advance(1000);  // key 2's lease (granted at PutEnd) has expired

  evict(100, 100);
  EXPECT_FALSE(exists_in_view(2));
  EXPECT_TRUE(exists_in_view(1));
  EXPECT_TRUE(exists_in_view(3));
  EXPECT_TRUE(exists_in_view(4));

  EXPECT_EQ(remove(1), ErrorCode::OBJECT_HAS_LEASE);
  EXPECT_TRUE(exists_in_view(1));
  EXPECT_EQ(remove(3, /*force=*/true), ErrorCode::OK);
  EXPECT_FALSE(exists_in_view(3));

  now = t0 + 60'000 - 1;
  evict(100, 100);
  EXPECT_TRUE(exists_in_view(1));
  EXPECT_EQ(remove(4), ErrorCode::OBJECT_HAS_LEASE);

  // At the deadline, with no release call: removable and evictable.
  now = t0 + 60'000;
  EXPECT_EQ(remove(4), ErrorCode::OK);
  evict(100, 100);
  EXPECT_FALSE(exists_in_view(1));
  EXPECT_TRUE(m().objects().empty());
}

// ---------------------------------------------------------------------------
// Rule 5: admission.

TEST_F(RetentionTest, Pr2835Rule5_AdmissionIsBoundedAcrossTenants) {
  config.max_retained_groups = 3;
  reset();
  const Time t0 = now;
  EXPECT_EQ(retain({1, 2}, 10'000, 0).retained, (Results{kA, kA}));
  expect_admission_invariants();
  EXPECT_EQ(retain({3}, 50'000, 1).retained, (Results{kA}));
  expect_admission_invariants();
  EXPECT_EQ(retain({4}, 10'000, 2).retained, (Results{kFull}));  // another tenant, full cap
  EXPECT_EQ(retain({4}, 10'000, 0).retained, (Results{kFull}));
  expect_admission_invariants();
  EXPECT_EQ(counter(), 3u);

  // Extending an existing group is accepted at capacity.
  EXPECT_EQ(retain({1}, 20'000, 0).retained, (Results{kA}));
  EXPECT_EQ(retention(1, 0), t0 + 20'000);
  EXPECT_EQ(retain({1, 4}, 30'000, 0).retained, (Results{kA, kFull}));
  EXPECT_EQ(retention(1, 0), t0 + 30'000);
  expect_admission_invariants();

  // Group 2 (tenant 0) expires; its slot is free for another tenant's new group.
  now = t0 + 10'000;
  expect_admission_invariants();
  EXPECT_EQ(live_entries(), 2u);
  EXPECT_EQ(retain({4}, 30'000, 2).retained, (Results{kA}));
  expect_admission_invariants();
  EXPECT_EQ(counter(), 3u);
  EXPECT_EQ(stored_entries(), 3u);
  EXPECT_EQ(retain({5}, 10'000, 2).retained, (Results{kFull}));

  // An expired group re-requested is new again and needs a slot.
  EXPECT_EQ(retain({2}, 10'000, 0).retained, (Results{kFull}));
  now = t0 + 30'000;  // group 1 (tenant 0) expires
  EXPECT_EQ(retain({2}, 10'000, 0).retained, (Results{kA}));
  expect_admission_invariants();
  EXPECT_EQ(counter(), stored_entries());
  EXPECT_EQ(live_entries(), 3u);
}

// ---------------------------------------------------------------------------
// Rule 6: tenant scoping.

TEST_F(RetentionTest, Pr2835Rule6_SameGroupIdInTwoTenantsIsTwoEntries) {
  const Time t0 = now;
  EXPECT_EQ(retain({7}, 10'000, 0).retained, (Results{kA}));
  EXPECT_EQ(retain({7}, 30'000, 1).retained, (Results{kA}));
  EXPECT_EQ(retention(7, 0), t0 + 10'000);
  EXPECT_EQ(retention(7, 1), t0 + 30'000);
  EXPECT_EQ(counter(), 2u);
  EXPECT_EQ(stored_entries(), 2u);

  // Inheritance is per tenant.
  put_member(1, 7, 0);
  put_member(1, 7, 1);
  EXPECT_EQ(lease(1, 0), t0 + 10'000);
  EXPECT_EQ(lease(1, 1), t0 + 30'000);

  // Extending tenant 0's entry leaves tenant 1's entry and members alone.
  advance(1000);
  EXPECT_EQ(retain({7}, 20'000, 0).retained, (Results{kA}));
  EXPECT_EQ(retention(7, 0), now + 20'000);
  EXPECT_EQ(lease(1, 0), now + 20'000);
  EXPECT_EQ(retention(7, 1), t0 + 30'000);
  EXPECT_EQ(lease(1, 1), t0 + 30'000);

  // One tenant's entry expires, the other's stays.
  now = t0 + 1000 + 20'000;
  cleanup();
  EXPECT_EQ(retention(7, 0), std::nullopt);
  EXPECT_EQ(retention(7, 1), t0 + 30'000);
  EXPECT_EQ(counter(), 1u);
  EXPECT_EQ(remove(1, false, 0), ErrorCode::OK);
  EXPECT_EQ(remove(1, false, 1), ErrorCode::OBJECT_HAS_LEASE);
}

// ---------------------------------------------------------------------------
// Rule 7: expiry.

TEST_F(RetentionTest, Pr2835Rule7_ExpiredEntriesLeaveViewAndTable) {
  const Time t0 = now;
  ASSERT_EQ(retain({1}, 5000).retained, (Results{kA}));
  ASSERT_EQ(retain({2}, 10'000).retained, (Results{kA}));
  now = t0 + 4999;
  EXPECT_EQ(live_entries(), 2u);

  now = t0 + 5000;  // D <= now: expired
  EXPECT_EQ(retention(1), std::nullopt);  // immediately gone from the live list
  EXPECT_EQ(retention(2), t0 + 10'000);
  EXPECT_LE(stored_entries(), 2u);
  cleanup();  // at the latest here it leaves the table
  EXPECT_EQ(stored_entries(), 1u);
  EXPECT_EQ(counter(), 1u);

  now = t0 + 20'000;
  EXPECT_TRUE(m().view(now).retention.empty());
  cleanup();
  EXPECT_EQ(stored_entries(), 0u);
  EXPECT_EQ(counter(), 0u);
  // An expired entry is not extended: a new request starts from now.
  EXPECT_EQ(retain({1}, 100).retained, (Results{kA}));
  EXPECT_EQ(retention(1), now + 100);
}

// ---------------------------------------------------------------------------
// Rule 8: separation of retention and soft pin.

TEST_F(RetentionTest, Pr2835Rule8_RetentionAndSoftPinNeverTouchEachOther) {
  put_member(1, 3, 0, enable(600'000));  // active pin
  const Time d1 = now + 600'000;
  put_member(2, 3);                      // no pin
  put_member(4, 3, 0, enable(1000));     // a pin that will be stale
  const Time d4 = now + 1000;
  ASSERT_EQ(deadline(1), d1);
  ASSERT_EQ(deadline(4), d4);
  ASSERT_EQ(gauge(), 2);

  advance(2000);  // key 4's pin is stale (stored, not yet normalised)
  ASSERT_EQ(retain({3}, 3'600'000).retained, (Results{kA}));
  const Time group_deadline = now + 3'600'000;
  EXPECT_EQ(deadline(1), d1);
  EXPECT_EQ(deadline(2), std::nullopt);
  EXPECT_EQ(deadline(4), d4);  // not raised (PR 2835's GrantLease(ttl, 0) would write now)
  EXPECT_EQ(gauge(), 2);
  for (KeyId k : {1u, 2u, 4u}) EXPECT_EQ(lease(k), group_deadline) << "key " << k;

  // Future members inherit only the lease, never a pin.
  put_member(5, 3);
  EXPECT_EQ(deadline(5), std::nullopt);
  EXPECT_EQ(gauge(), 2);

  // Soft-pin changes on members never touch the group's deadline.
  advance(1000);
  ASSERT_EQ(upsert_start(1, disable(), 64, 1, 0, 3), ErrorCode::OK);
  ASSERT_EQ(end(1), ErrorCode::OK);
  EXPECT_EQ(deadline(1), std::nullopt);
  EXPECT_EQ(retention(3), group_deadline);
  ASSERT_EQ(upsert_start(2, enable(5000), 64, 1, 0, 3), ErrorCode::OK);
  ASSERT_EQ(end(2), ErrorCode::OK);
  EXPECT_EQ(deadline(2), now + 5000);
  EXPECT_EQ(retention(3), group_deadline);
  // Size-changing upsert (Case C): a new object, re-registered, inherits.
  ASSERT_EQ(upsert_start(5, enable(7000), 128, 1, 0, 3), ErrorCode::OK);
  ASSERT_EQ(end(5), ErrorCode::OK);
  EXPECT_EQ(deadline(5), now + 7000);
  EXPECT_EQ(lease(5), group_deadline);
  EXPECT_EQ(retention(3), group_deadline);
  // Expiry of pins (cleanup) does not touch it either.
  advance(10'000);
  cleanup();
  EXPECT_EQ(deadline(2), std::nullopt);
  EXPECT_EQ(retention(3), group_deadline);
  EXPECT_EQ(counter(), 1u);
}

// ---------------------------------------------------------------------------
// Rule 9: snapshot and restore.

TEST_F(RetentionTest, Pr2835Rule9_RetentionIsNotDurableMemberLeasesAre) {
  for (Profile profile : {Profile::Rfc, Profile::MooncakeMain}) {
    SCOPED_TRACE(std::string(to_string(profile)));
    config.profile = profile;
    reset();
    now = 1000;
    const Time t0 = now;
    put_member(1, 4);                    // retained member, live lease at restore
    put_member(2, 0);                    // ordinary object, lease expired at restore
    put_member(3, 6, 0, enable(600'000));  // pinned member whose retention ends first
    ASSERT_EQ(retain({4}, 60'000).retained, (Results{kA}));
    ASSERT_EQ(retain({6}, 1000).retained, (Results{kA}));
    ASSERT_EQ(retain({8}, 60'000).retained, (Results{kA}));  // intent only
    ASSERT_EQ(snapshot(), ErrorCode::OK);

    now = t0 + 5000;
    ASSERT_EQ(restore(), ErrorCode::OK);
    const View v = m().view(now);
    EXPECT_TRUE(v.retention.empty());
    EXPECT_EQ(v.retention_entries, 0u);
    EXPECT_EQ(v.retained_group_count, 0u);

    ASSERT_TRUE(exists_in_view(1));  // lease live at restore: survives in both profiles
    EXPECT_EQ(lease(1), t0 + 60'000);
    EXPECT_EQ(remove(1), ErrorCode::OBJECT_HAS_LEASE);  // still protected by its lease
    EXPECT_FALSE(exists_in_view(2));
    // Lease expired, pin active: the profile decides.
    EXPECT_EQ(exists_in_view(3), profile == Profile::Rfc);

    // The intent is gone: a new member of group 8 inherits nothing.
    ASSERT_EQ(put_start(10, {}, 64, 1, 0, 8), ErrorCode::OK);
    EXPECT_LE(lease(10), now);
    // Group 4 can be retained again, as a new entry.
    EXPECT_EQ(retain({4}, 1000).retained, (Results{kA}));
    EXPECT_EQ(counter(), 1u);
    EXPECT_EQ(lease(1), t0 + 60'000);  // max: not shortened by the new shorter grant
  }
}

// ---------------------------------------------------------------------------
// Rule 10: group reads.

TEST_F(RetentionTest, Pr2835Rule10_GroupReadRefreshIsCoalescedLeaseOnly) {
  const Time ttl = static_cast<Time>(config.default_kv_lease_ttl_ms);
  put_member(1, 2, 0, enable(600'000));
  put_member(2, 2);
  const Time d1 = *deadline(1);
  ASSERT_EQ(gauge(), 1);

  // The group is dirty (members registered): the first read refreshes all.
  advance(100);
  ASSERT_EQ(get(1).code, ErrorCode::OK);
  Time t = now;
  EXPECT_EQ(lease(1), t + ttl);
  EXPECT_EQ(lease(2), t + ttl);

  // Not near expiry, not dirty: no grant at all, not even on the read key.
  advance(1000);
  ASSERT_EQ(get(1).code, ErrorCode::OK);
  EXPECT_TRUE(exist(2));
  EXPECT_EQ(lease(1), t + ttl);
  EXPECT_EQ(lease(2), t + ttl);

  // A new member makes the group dirty: the next read refreshes everyone.
  put_member(3, 2);
  advance(1000);
  ASSERT_EQ(get(1).code, ErrorCode::OK);
  t = now;
  for (KeyId k : {1u, 2u, 3u}) EXPECT_EQ(lease(k), t + ttl) << "key " << k;
  advance(1);
  ASSERT_EQ(get(2).code, ErrorCode::OK);  // coalesced: nothing
  for (KeyId k : {1u, 2u, 3u}) EXPECT_EQ(lease(k), t + ttl) << "key " << k;

  // Just outside ttl/2 of expiry: nothing; at ttl/2: the whole group.
  now = t + ttl - ttl / 2 - 1;
  ASSERT_EQ(get(3).code, ErrorCode::OK);
  for (KeyId k : {1u, 2u, 3u}) EXPECT_EQ(lease(k), t + ttl) << "key " << k;
  now = t + ttl - ttl / 2;
  ASSERT_EQ(get(3).code, ErrorCode::OK);
  for (KeyId k : {1u, 2u, 3u}) EXPECT_EQ(lease(k), now + ttl) << "key " << k;

  // Never the soft pins.
  EXPECT_EQ(deadline(1), d1);
  EXPECT_EQ(deadline(2), std::nullopt);
  EXPECT_EQ(deadline(3), std::nullopt);
  EXPECT_EQ(gauge(), 1);

  // A retained member's longer lease is never lowered by a read refresh, and
  // reads do not touch the group's retention deadline.
  ASSERT_EQ(retain({2}, 600'000).retained, (Results{kA}));
  const Time rd = now + 600'000;
  put_member(4, 2);  // dirty again
  advance(10);
  ASSERT_EQ(get(4).code, ErrorCode::OK);
  for (KeyId k : {1u, 2u, 3u, 4u}) EXPECT_EQ(lease(k), rd) << "key " << k;
  EXPECT_EQ(retention(2), rd);
  EXPECT_EQ(deadline(1), d1);
}

// ---------------------------------------------------------------------------
// Multi-tenant cases and edges.

TEST_F(RetentionTest, Pr2835MultiTenant_TwoTenantsFillAndShareTheCap) {
  config.max_retained_groups = 4;
  reset();
  EXPECT_EQ(retain({1, 2}, 60'000, 1).retained, (Results{kA, kA}));
  EXPECT_EQ(retain({1, 2}, 60'000, 2).retained, (Results{kA, kA}));
  expect_admission_invariants();
  EXPECT_EQ(counter(), 4u);
  // One global pool: neither tenant gets a fifth, both can extend.
  EXPECT_EQ(retain({3}, 60'000, 1).retained, (Results{kFull}));
  EXPECT_EQ(retain({3}, 60'000, 2).retained, (Results{kFull}));
  EXPECT_EQ(retain({3}, 60'000, 5).retained, (Results{kFull}));  // a third tenant too
  advance(1000);
  EXPECT_EQ(retain({2, 1}, 90'000, 1).retained, (Results{kA, kA}));
  EXPECT_EQ(retain({1}, 90'000, 2).retained, (Results{kA}));
  EXPECT_EQ(retention(1, 1), now + 90'000);
  EXPECT_EQ(retention(2, 2), now - 1000 + 60'000);
  expect_admission_invariants();
  EXPECT_EQ(counter(), 4u);

  // A tenant that fills the whole cap alone blocks the other (no fairness).
  config.max_retained_groups = 3;
  reset();
  EXPECT_EQ(retain({1, 2, 3}, 60'000, 1).retained, (Results{kA, kA, kA}));
  EXPECT_EQ(retain({1}, 60'000, 2).retained, (Results{kFull}));
  expect_admission_invariants();
}

TEST_F(RetentionTest, Pr2835MultiTenant_ExpiredEntriesOfOneTenantFreeTheCapForAnother) {
  config.max_retained_groups = 2;
  reset();
  const Time t0 = now;
  EXPECT_EQ(retain({1, 2}, 1000, 1).retained, (Results{kA, kA}));
  EXPECT_EQ(retain({1}, 1000, 2).retained, (Results{kFull}));
  now = t0 + 1000;  // tenant 1's entries have expired, not yet pruned
  EXPECT_EQ(live_entries(), 0u);
  // The model (PR 2835 rule 7: expired entries do not count) admits tenant 2's
  // new groups; PR 2835's code would refuse them until its 30 s global prune.
  EXPECT_EQ(retain({1, 2}, 5000, 2).retained, (Results{kA, kA}));
  expect_admission_invariants();
  EXPECT_EQ(counter(), 2u);
  EXPECT_EQ(stored_entries(), 2u);
  EXPECT_EQ(retention(1, 1), std::nullopt);
  EXPECT_EQ(retention(1, 2), now + 5000);
  // Tenant 1 now finds the cap full of tenant 2's live entries, even for
  // its own old (expired) ids: they are new again.
  EXPECT_EQ(retain({1, 3}, 1000, 1).retained, (Results{kFull, kFull}));
  expect_admission_invariants();
}

TEST_F(RetentionTest, Pr2835Admission_ExactlyAtCap) {
  constexpr uint64_t kCap = 5;
  config.max_retained_groups = kCap;
  reset();
  for (GroupId g = 1; g <= kCap; ++g) {
    EXPECT_EQ(retain({g}, 60'000).retained, (Results{kA})) << "group " << g;
    expect_admission_invariants();
  }
  EXPECT_EQ(counter(), kCap);
  EXPECT_EQ(retain({6}, 60'000).retained, (Results{kFull}));  // N+1-th
  EXPECT_EQ(retain({3}, 90'000).retained, (Results{kA}));     // extension at capacity
  EXPECT_EQ(retain({6, 2, 7, 2}, 90'000).retained, (Results{kFull, kA, kFull, kA}));
  EXPECT_EQ(counter(), kCap);
  expect_admission_invariants();

  // A batch that crosses the cap: accepted up to it, Full after.
  config.max_retained_groups = 3;
  reset();
  EXPECT_EQ(retain({1, 2, 1, 3, 4, 3, 5}, 1000).retained,
            (Results{kA, kA, kA, kA, kFull, kA, kFull}));
  EXPECT_EQ(counter(), 3u);
  expect_admission_invariants();
}

TEST_F(RetentionTest, Pr2835Saturation_HugeTtlSaturatesAtTimeMax) {
  config.max_group_retention_ttl_ms = std::numeric_limits<uint64_t>::max();
  reset();
  put_member(1, 1);
  EXPECT_EQ(retain({1}, std::numeric_limits<uint64_t>::max()).retained, (Results{kA}));
  EXPECT_EQ(retention(1), kTimeMax);
  EXPECT_EQ(lease(1), kTimeMax);
  EXPECT_EQ(retain({2}, static_cast<uint64_t>(kTimeMax)).retained, (Results{kA}));
  EXPECT_EQ(retention(2), kTimeMax);
  EXPECT_EQ(retain({3}, static_cast<uint64_t>(kTimeMax - now)).retained, (Results{kA}));
  EXPECT_EQ(retention(3), kTimeMax);
  EXPECT_EQ(retain({4}, static_cast<uint64_t>(kTimeMax - now) - 1).retained, (Results{kA}));
  EXPECT_EQ(retention(4), kTimeMax - 1);

  advance(1000);
  EXPECT_EQ(retain({1}, 5).retained, (Results{kA}));  // max-deadline at the top
  EXPECT_EQ(retention(1), kTimeMax);
  put_member(2, 1);  // inherits the saturated deadline
  EXPECT_EQ(lease(2), kTimeMax);
  ASSERT_EQ(get(2).code, ErrorCode::OK);  // group refresh near kTimeMax
  EXPECT_EQ(lease(1), kTimeMax);
  evict(100, 100);
  EXPECT_TRUE(exists_in_view(1));
  EXPECT_TRUE(exists_in_view(2));
  EXPECT_EQ(remove(1), ErrorCode::OBJECT_HAS_LEASE);
  cleanup();
  EXPECT_EQ(counter(), 4u);

  // Time at the very end: entries with D = kTimeMax expire (D <= now).
  now = kTimeMax - 1;
  cleanup();
  EXPECT_EQ(live_entries(), 3u);
  EXPECT_EQ(counter(), 3u);
  EXPECT_EQ(retain({9}, 1'000'000).retained, (Results{kA}));
  EXPECT_EQ(retention(9), kTimeMax);
  now = kTimeMax;
  cleanup();
  EXPECT_EQ(counter(), 0u);
  EXPECT_EQ(stored_entries(), 0u);
  evict(100, 100);
  EXPECT_TRUE(m().objects().empty());
}

TEST_F(RetentionTest, Pr2835BadInput_NeverCrashes) {
  config.max_retained_groups = 10;
  reset();
  constexpr GroupId kMaxG = std::numeric_limits<GroupId>::max();
  constexpr TenantId kMaxT = std::numeric_limits<TenantId>::max();
  // Extreme ids and tenants are ordinary values.
  EXPECT_EQ(retain({kMaxG}, 1000, kMaxT).retained, (Results{kA}));
  EXPECT_EQ(retention(kMaxG, kMaxT), now + 1000);
  // Duplicates in one request: the first admits, the rest extend.
  EXPECT_EQ(retain({5, 5, 5}, 1000).retained, (Results{kA, kA, kA}));
  EXPECT_EQ(counter(), 2u);
  // A long request against a small cap.
  std::vector<GroupId> many(1000);
  for (size_t i = 0; i < many.size(); ++i) many[i] = static_cast<GroupId>(i);  // includes 0
  Outcome o = retain(many, 1000, 3);
  ASSERT_EQ(o.retained.size(), many.size());
  EXPECT_EQ(o.retained[0], kInv);
  EXPECT_EQ(std::count(o.retained.begin(), o.retained.end(), kA), 8);
  EXPECT_EQ(std::count(o.retained.begin(), o.retained.end(), kFull), 991);
  expect_admission_invariants();
  // Bad TTLs change nothing.
  const View before = m().view(now);
  EXPECT_EQ(retain(many, 0, 3).retained, Results(many.size(), kInv));
  EXPECT_EQ(retain({5}, std::numeric_limits<uint64_t>::max(), 3).retained, (Results{kInv}));
  EXPECT_EQ(m().view(now), before);
  // Time going backwards is refused with nothing changed.
  Outcome back = m().apply({.kind = OpKind::RetainGroups, .object = {0, 0}, .groups = {77}, .ttl_ms = 1000}, now - 1);
  EXPECT_EQ(back.code, ErrorCode::INVALID_PARAMS);
  EXPECT_EQ(m().view(now), before);
  // Negative time, an unknown op kind, out-of-range eviction percentages.
  EXPECT_EQ(m().apply({.kind = OpKind::RetainGroups, .groups = {1}, .ttl_ms = 1}, -1).code,
            ErrorCode::INVALID_PARAMS);
  EXPECT_EQ(apply({.kind = static_cast<OpKind>(200), .groups = {1}, .ttl_ms = 1}).code, ErrorCode::INVALID_PARAMS);
  EXPECT_EQ(apply({.kind = OpKind::Evict, .evict_target_pct = 1000, .evict_lowerbound_pct = 1000}).code,
            ErrorCode::INVALID_PARAMS);
  EXPECT_EQ(m().view(now), before);
  // Non-retention fields on a RetainGroups op are ignored.
  EXPECT_EQ(apply({.kind = OpKind::RetainGroups, .client = 9, .object = {0, 99}, .size = 5, .force = true,
                   .groups = {5}, .ttl_ms = 2000})
                .retained,
            (Results{kA}));
  EXPECT_EQ(retention(5), now + 2000);
  // Everything else on a full-cap model still works.
  put_member(1, 5);
  EXPECT_EQ(lease(1), now + 2000);
  expect_admission_invariants();
}

}  // namespace
}  // namespace test
}  // namespace pinsim
