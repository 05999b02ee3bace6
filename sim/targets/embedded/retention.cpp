// PR 2835 group retention in the embedded master: per (tenant, group)
// deadlines in the group's shard, one global atomic admission counter
// (fetch_add, undone when over the cap), max-deadline updates, lease grants
// to current members and inheritance by future ones. Unlike the PR's lazy
// per-tenant prune, every tenant is pruned before admission, so an expired
// entry never takes a slot (the model's rule, docs/interpretations.md).
#include <algorithm>

#include "embedded_master.h"

namespace pinsim::embedded {

// PruneExpiredGroupRetentions: every shard in turn, every tenant.
void EmbeddedMaster::prune_expired_retention(Time now) {
  for (Shard& s : shards_) {
    std::unique_lock lock(s.mutex);
    for (auto it = s.retention.begin(); it != s.retention.end();) {
      if (it->second > now) {
        ++it;
        continue;
      }
      it = s.retention.erase(it);
      // F8: the prune forgets to give the slot back.
      if (!faults_.f8_admission_counter_leaks) retained_group_count_.fetch_sub(1);
    }
  }
}

Outcome EmbeddedMaster::retain_groups(const Op& op, Time now) {
  Outcome out;
  const size_t n = op.groups.size();
  if (n == 0) return out;
  if (op.ttl_ms == 0 || op.ttl_ms > config_.max_group_retention_ttl_ms) {
    out.retained.assign(n, RetainResult::InvalidParams);
    return out;
  }
  if (config_.max_retained_groups == 0) {
    out.retained.assign(n, RetainResult::Full);
    return out;
  }
  prune_expired_retention(now);
  const TenantId tenant = op.object.tenant;
  const Time deadline = compute_deadline(now, op.ttl_ms, faults_.f6_deadline_wraps);
  for (GroupId g : op.groups) {  // request order decides who gets the last slot
    if (g == 0) {
      out.retained.push_back(RetainResult::InvalidParams);
      continue;
    }
    const size_t shard = shard_of_group(g);
    Shard& s = shards_[shard];
    std::unique_lock lock(s.mutex);
    const GroupKey key{tenant, g};
    auto it = s.retention.find(key);
    if (it != s.retention.end()) {
      // F7: the new deadline replaces the old one instead of max(old, new).
      it->second = faults_.f7_retain_shortens_deadline ? deadline : std::max(it->second, deadline);
    } else {
      const uint64_t previous = retained_group_count_.fetch_add(1);
      if (previous >= config_.max_retained_groups) {
        retained_group_count_.fetch_sub(1);
        out.retained.push_back(RetainResult::Full);
        continue;
      }
      s.retention.emplace(key, deadline);
    }
    // GrantLease(ttl, 0) on every current member, PROCESSING included.
    if (auto members = s.group_members.find(key); members != s.group_members.end()) {
      for (KeyId k : members->second) {
        ObjectMetadata* md = find_in(shard, {tenant, k});
        md->lease = std::max(md->lease, deadline);
        // F15: the group deadline is also written into the member's committed
        // soft pin, the per-member duplication RFC 3028 forbids (P12).
        if (faults_.f15_retention_writes_soft_pin && md->committed_deadline() != deadline)
          apply_evaluation({tenant, k}, shard, md->renew_to(deadline));
      }
    }
    out.retained.push_back(RetainResult::Accepted);
  }
  return out;
}

// RegisterGroupMember's retention lookup, under the group shard's lock.
void EmbeddedMaster::inherit_retention(Shard& shard, ObjectId id, ObjectMetadata& md, Time now) {
  auto it = shard.retention.find({id.tenant, md.group});
  if (it == shard.retention.end()) return;
  // F9: the expiry test is skipped, so a new member inherits an expired
  // group deadline (and the entry stays).
  if (it->second <= now && !faults_.f9_inherit_expired_retention) {
    shard.retention.erase(it);
    // F8: registration forgets to give the slot back too.
    if (!faults_.f8_admission_counter_leaks) retained_group_count_.fetch_sub(1);
    return;
  }
  md.lease = std::max(md.lease, it->second);
}

}  // namespace pinsim::embedded
