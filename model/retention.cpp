// PR 2835 group retention: RetainGroups, inheritance by future members,
// admission, expiry. Retention is stored per (tenant, group) and protects
// members only through their ordinary read lease; it never writes a soft pin
// (RFC 3028 "Separation from group retention").
#include "model.h"

namespace pinsim {

// PR 2835 rule 7: an expired entry is dropped and stops counting against the
// cap. The model prunes all tenants wherever it looks at the table, so an
// expired entry never takes a slot (the PR's code prunes lazily per tenant;
// see docs/interpretations.md).
void Model::prune_expired_retention(Time now) {
  for (auto it = retention_.begin(); it != retention_.end();) {
    if (it->second <= now) {
      hits_.hit(Rule::Pr2835Expiry);
      it = retention_.erase(it);
      --retained_group_count_;
    } else {
      ++it;
    }
  }
}

Outcome Model::retain_groups(const Op& op, Time now) {
  Outcome out;
  const size_t n = op.groups.size();
  hits_.hit(Rule::Pr2835Results);
  if (n == 0) return out;  // rule 1: empty request, empty result
  // Rule 1: TTL 0 or above the max makes every element INVALID_PARAMS.
  if (op.ttl_ms == 0 || op.ttl_ms > config_.max_group_retention_ttl_ms) {
    out.retained.assign(n, RetainResult::InvalidParams);
    return out;
  }
  if (config_.max_retained_groups == 0) {  // a cap of 0 refuses every group
    hits_.hit(Rule::Pr2835Admission);
    out.retained.assign(n, RetainResult::Full);
    return out;
  }
  prune_expired_retention(now);
  const TenantId tenant = op.object.tenant;
  const Time deadline = saturating_deadline(now, op.ttl_ms);
  const Time lease = deadline;  // GrantLease(ttl, 0): max(lease, now + ttl)
  for (GroupId g : op.groups) {
    if (g == 0) {
      out.retained.push_back(RetainResult::InvalidParams);
      continue;
    }
    const GroupKey key{tenant, g};
    auto it = retention_.find(key);
    if (it != retention_.end()) {
      hits_.hit(Rule::Pr2835MaxDeadline);  // rule 2: never shortened
      it->second = std::max(it->second, deadline);
    } else if (retained_group_count_ >= config_.max_retained_groups) {
      hits_.hit(Rule::Pr2835Admission);  // rule 5: new group at capacity
      out.retained.push_back(RetainResult::Full);
      continue;
    } else {
      retention_.emplace(key, deadline);
      ++retained_group_count_;
    }
    // Rule 4: every current member (PROCESSING included) gets the lease.
    if (auto members = group_members_.find(key); members != group_members_.end()) {
      for (KeyId k : members->second) {
        hits_.hit(Rule::Pr2835Protection);
        Object& m = find_object({tenant, k})->second;
        m.lease = std::max(m.lease, lease);
      }
    }
    out.retained.push_back(RetainResult::Accepted);
  }
  return out;
}

// RegisterGroupMember (PR 2835): a new member inherits an unexpired group
// deadline as its read lease; an expired entry is erased, granting nothing.
void Model::inherit_retention(ObjectId id, Object& obj, Time now) {
  auto it = retention_.find({id.tenant, obj.group});
  if (it == retention_.end()) return;
  if (it->second <= now) {
    hits_.hit(Rule::Pr2835Expiry);
    retention_.erase(it);
    --retained_group_count_;
    return;
  }
  hits_.hit(Rule::Pr2835Intent);
  obj.lease = std::max(obj.lease, it->second);
}

}  // namespace pinsim
