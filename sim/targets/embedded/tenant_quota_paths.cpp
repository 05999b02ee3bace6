// The master's side of multi-tenant mode, as Mooncake main's MasterService
// runs it: write admission of registered tenants only, the quota-eviction
// retry of Put/UpsertStart (EvictTenantMemoryForQuota between attempts),
// settling an object's ledger, and the usage rebuild after a restore. The
// accounts and ledgers themselves are in tenant_quota*.h.
#include <algorithm>

#include "embedded_master.h"

namespace pinsim::embedded {

namespace {
constexpr int kMaxTenantQuotaEvictionRetries = 2;  // three attempts in all
}  // namespace

// PutStart / UpsertStart's retry loop: an attempt refused for quota evicts
// the tenant's own memory (the deficit it reported) and the Start runs again
// from scratch, with the preferred segments the request began with;
// evictions stay when the last attempt is refused too.
Outcome EmbeddedMaster::with_quota_eviction(const Op& op, Time now, StartAttempt attempt_once,
                                            const PreferredSegments* preferred) {
  StartRequest request;
  request.preferred = preferred ? *preferred : preferred_segments();
  for (int attempt = 0;; ++attempt) {
    Outcome out = (this->*attempt_once)(op, now, &request);
    if (out.code != ErrorCode::TENANT_QUOTA_EXCEEDED) return out;
    const bool last = attempt == kMaxTenantQuotaEvictionRetries;
    // The quota-rejection metric, once per request (F27: at every attempt).
    if (last || faults_.f27_quota_rejection_per_attempt) quota_rejections_.fetch_add(1);
    if (last) return out;
    evict_tenant_memory_for_quota(op.object.tenant, request.deficit, now);
  }
}

// Multi-tenant mode: a write needs the tenant's quota policy (Mooncake's
// zero-byte admission charge on a closed account).
std::optional<ErrorCode> EmbeddedMaster::check_registered(TenantId tenant) const {
  if (!config_.multi_tenant || quotas_.Find(tenant)) return std::nullopt;
  return ErrorCode::TENANT_NOT_REGISTERED;
}

// SettlePrimaryWriteQuotaIfReady: once no memory replica is PROCESSING the
// ledger keeps size x COMPLETE memory replicas and gives back the rest,
// the replaced charge included.
void EmbeddedMaster::settle_primary_write(ObjectId id, ObjectMetadata& md) {
  TenantQuotaAccount* account = quotas_.Find(id.tenant);
  if (!account || md.memory_processing()) return;
  md.quota.SettlePrimaryWrite(*account, md.complete_memory_bytes());
}

void EmbeddedMaster::release_all_quota(ObjectId id, TenantQuotaLedger& quota) {
  if (TenantQuotaAccount* account = quotas_.FindAny(id.tenant)) quota.ReleaseAll(*account);
}

// EvictTenantMemoryForQuota: the tenant's objects only, every shard held;
// pass 1 spares active soft pins, pass 2 (when allowed and pass 1 fell
// short) takes them too. Unlike BatchEvict it discards and releases nothing.
void EmbeddedMaster::evict_tenant_memory_for_quota(TenantId tenant, uint64_t target, Time now) {
  AllShards all = lock_all_shards();
  const uint64_t freed = evict_tenant_memory_pass(tenant, target, false, now);
  if (freed < target && config_.allow_evict_soft_pinned_objects)
    evict_tenant_memory_pass(tenant, target - freed, true, now);
}

// One pass of EvictTenantMemoryForQuota over the tenant's objects in key
// order, each tested as any eviction candidate and grouped ones expanded to
// their group, until `target` bytes are freed (it may overshoot by an object
// or a group). Returns the bytes freed. Mooncake scans the shards from a
// random start; key order is one scan it may make, and the model's: a batch
// of starts can run several quota evictions in one op, and the runner can
// only follow a target's choice of victims, not the order across them.
uint64_t EmbeddedMaster::evict_tenant_memory_pass(TenantId tenant, uint64_t target, bool allow_soft, Time now) {
  std::vector<ObjectId> tenant_ids;
  for (size_t shard = 0; shard < kShardCount; ++shard)
    for (ObjectId id : ids_in(shard))
      if (id.tenant == tenant) tenant_ids.push_back(id);
  std::sort(tenant_ids.begin(), tenant_ids.end());
  uint64_t freed = 0;
  for (auto id = tenant_ids.begin(); id != tenant_ids.end() && freed < target; ++id) {
    ObjectMetadata* md = find_locked(*id);
    if (md && evictable_candidate(*id, *md, allow_soft, now)) freed += try_evict(*id, allow_soft, now).bytes;
  }
  return freed;  // an object missing went with its group
}

std::vector<UsageView> EmbeddedMaster::ledger_usage() const {
  std::shared_lock snapshot(snapshot_mutex_);
  std::map<TenantId, uint64_t> usage;
  for (const Shard& s : shards_) {
    std::shared_lock lock(s.mutex);
    for (const auto& [id, md] : s.objects) usage[id.tenant] += md->quota.TotalChargedBytes();
  }
  std::vector<UsageView> out;
  for (const auto& [tenant, bytes] : usage)
    if (bytes != 0) out.push_back({tenant, bytes});
  return out;
}

// RebuildTenantQuotaUsageFromMetadata, after a restore or a failover
// (snapshot_mutex_ held exclusively): every ledger holds its object's memory
// (a restore's is all COMPLETE; a failover keeps PROCESSING replicas of a
// write, whose memory is held too: rule tenant.charge, as the model charges
// it), and every account the sum of its tenant's; a tenant with
// restored objects and no policy gets an account without one (Mooncake's
// orphan quota state), so the charges are released as the objects go.
void EmbeddedMaster::rebuild_quota_usage() {
  if (!config_.multi_tenant) return;
  std::map<TenantId, uint64_t> usage;
  for (Shard& s : shards_) {
    for (auto& [id, md] : s.objects) {
      quotas_.GetOrCreate(id.tenant);
      md->quota.Rebuild(md->write_memory_bytes());
      usage[id.tenant] += md->write_memory_bytes();
    }
  }
  quotas_.ForEach([&](TenantId tenant, TenantQuotaAccount& account) {
    auto it = usage.find(tenant);
    account.SetChargedBytesForRebuild(it == usage.end() ? 0 : it->second);
  });
}

// UpsertTenantQuotaPolicy: the policy table's own check and update (every
// effective quota recomputed); outside multi-tenant mode it is unavailable.
Outcome EmbeddedMaster::set_quota(const Op& op) {
  if (!config_.multi_tenant) return Outcome::of(ErrorCode::UNAVAILABLE_IN_CURRENT_MODE);
  if (auto refused = quotas_.UpsertPolicy(op.object.tenant, op.quota_bytes)) return Outcome::of(*refused);
  return Outcome{};
}

// DeleteTenantQuotaPolicy: the account gives up its policy only while it
// holds no charge; then, outside the table's lock, the metadata is searched
// for any object of the tenant, and the policy is put back if one exists.
Outcome EmbeddedMaster::delete_quota(const Op& op) {
  if (!config_.multi_tenant) return Outcome::of(ErrorCode::UNAVAILABLE_IN_CURRENT_MODE);
  const TenantId tenant = op.object.tenant;
  uint64_t requested = 0;
  if (auto refused = quotas_.DisablePolicyIfEmpty(tenant, &requested)) return Outcome::of(*refused);
  if (tenant_has_objects(tenant)) {
    quotas_.UpsertPolicy(tenant, requested);  // restore_policy
    return Outcome::of(ErrorCode::TENANT_NOT_EMPTY);
  }
  return Outcome{};
}

bool EmbeddedMaster::tenant_has_objects(TenantId tenant) const {
  for (const Shard& s : shards_) {
    std::shared_lock lock(s.mutex);
    for (const auto& [id, md] : s.objects)
      if (id.tenant == tenant) return true;
  }
  return false;
}

}  // namespace pinsim::embedded
