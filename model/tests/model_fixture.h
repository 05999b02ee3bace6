// Test fixture for the model's rule tests: builds a Model from a Config and
// offers one-line helpers for the ops, so each test reads like its rule.
#pragma once
#include <gtest/gtest.h>

#include <variant>

#include "model.h"

namespace pinsim::test {

inline SoftPinRequest enable(std::optional<uint64_t> ttl = std::nullopt) {
  return {static_cast<uint8_t>(SoftPinAction::Enable), ttl};
}
inline SoftPinRequest preserve() { return {static_cast<uint8_t>(SoftPinAction::Preserve), std::nullopt}; }
inline SoftPinRequest disable() { return {static_cast<uint8_t>(SoftPinAction::Disable), std::nullopt}; }

class ModelTest : public ::testing::Test {
 protected:
  Config config;  // adjust in the test body, then call reset()
  std::optional<Model> model;
  Time now = 1000;

  void SetUp() override { reset(); }
  void reset() {
    auto created = Model::create(config);
    ASSERT_TRUE(std::holds_alternative<Model>(created)) << std::get<std::string>(created);
    model.emplace(std::get<Model>(std::move(created)));
  }
  Model& m() { return *model; }
  Outcome apply(const Op& op) { return m().apply(op, now); }
  void advance(Time ms) { now += ms; apply({.kind = OpKind::Advance, .advance_ms = static_cast<uint64_t>(ms)}); }

  static Op start_op(OpKind kind, KeyId key, SoftPinRequest sp, uint64_t size, uint32_t mem, uint32_t nof,
                     GroupId group, ClientId client, TenantId tenant) {
    Op op{.kind = kind, .client = client, .object = {tenant, key}, .size = size,
          .memory_replicas = mem, .nof_replicas = nof, .soft_pin = sp, .group = group};
    return op;
  }
  ErrorCode put_start(KeyId key, SoftPinRequest sp = {}, uint64_t size = 64, uint32_t mem = 1, uint32_t nof = 0,
                      GroupId group = 0, ClientId client = 1, TenantId tenant = 0) {
    return apply(start_op(OpKind::PutStart, key, sp, size, mem, nof, group, client, tenant)).code;
  }
  ErrorCode upsert_start(KeyId key, SoftPinRequest sp = {}, uint64_t size = 64, uint32_t mem = 1, uint32_t nof = 0,
                         GroupId group = 0, ClientId client = 1, TenantId tenant = 0) {
    return apply(start_op(OpKind::UpsertStart, key, sp, size, mem, nof, group, client, tenant)).code;
  }
  ErrorCode end(KeyId key, ReplicaSelector sel = ReplicaSelector::All, ClientId client = 1, TenantId tenant = 0) {
    return apply({.kind = OpKind::PutEnd, .client = client, .object = {tenant, key}, .selector = sel}).code;
  }
  ErrorCode revoke(KeyId key, ReplicaSelector sel = ReplicaSelector::All, ClientId client = 1, TenantId tenant = 0) {
    return apply({.kind = OpKind::PutRevoke, .client = client, .object = {tenant, key}, .selector = sel}).code;
  }
  // put_start + put_end in one go; returns the End's code.
  ErrorCode put(KeyId key, SoftPinRequest sp = {}, uint64_t size = 64, GroupId group = 0, TenantId tenant = 0) {
    ErrorCode c = put_start(key, sp, size, 1, 0, group, 1, tenant);
    if (c != ErrorCode::OK) return c;
    return end(key, ReplicaSelector::All, 1, tenant);
  }
  Outcome get(KeyId key, TenantId tenant = 0) { return apply({.kind = OpKind::Get, .client = 2, .object = {tenant, key}}); }
  bool exist(KeyId key, TenantId tenant = 0) {
    return apply({.kind = OpKind::Exist, .client = 2, .object = {tenant, key}}).exists.value_or(false);
  }
  ErrorCode remove(KeyId key, bool force = false, TenantId tenant = 0) {
    return apply({.kind = OpKind::Remove, .client = 2, .object = {tenant, key}, .force = force}).code;
  }
  void cleanup() { apply({.kind = OpKind::Cleanup}); }
  void evict(uint32_t target_pct, uint32_t lowerbound_pct) {
    apply({.kind = OpKind::Evict, .evict_target_pct = target_pct, .evict_lowerbound_pct = lowerbound_pct});
  }
  ErrorCode snapshot() { return apply({.kind = OpKind::Snapshot}).code; }
  ErrorCode restore(bool fail_first = false) {
    return apply({.kind = OpKind::Restore, .fail_first_candidate = fail_first}).code;
  }
  Outcome retain(std::vector<GroupId> groups, uint64_t ttl_ms, TenantId tenant = 0) {
    return apply({.kind = OpKind::RetainGroups, .object = {tenant, 0}, .groups = std::move(groups), .ttl_ms = ttl_ms});
  }

  std::optional<ObjectView> obj(KeyId key, TenantId tenant = 0) { return m().object_view({tenant, key}); }
  std::optional<Time> deadline(KeyId key, TenantId tenant = 0) {
    auto v = obj(key, tenant);
    return v ? v->deadline : std::nullopt;
  }
  bool exists_in_view(KeyId key, TenantId tenant = 0) { return obj(key, tenant).has_value(); }
  int64_t gauge() { return m().gauge(); }
};

}  // namespace pinsim::test

// Helpers appended for the rule tests (write/read/eviction/expiry/snapshot,
// gauge transitions, request rules, tenants). Free functions so the class above
// stays as it was.
namespace pinsim::test {

// The gauge must equal the number of stored deadlines, Active or stale
// (RFC 3028 "Metrics": the gauge counts a stale deadline until it is normalised).
inline int64_t stored_deadlines(const View& v) {
  int64_t n = 0;
  for (const ObjectView& o : v.objects) n += o.deadline.has_value();
  return n;
}

// An End/Revoke-shaped op (UpsertEnd, UpsertRevoke, or a raw kind).
inline Op key_op(OpKind kind, KeyId key, ClientId client = 1, TenantId tenant = 0,
                 ReplicaSelector sel = ReplicaSelector::All) {
  return {.kind = kind, .client = client, .object = {tenant, key}, .selector = sel};
}

inline PendingView pending_view(SoftPinAction action, uint64_t ttl_ms, uint32_t viable) {
  return {action, ttl_ms, viable};
}

}  // namespace pinsim::test
