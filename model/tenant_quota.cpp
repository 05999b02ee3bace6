// Tenants and quotas in multi-tenant mode, as Mooncake main's tenant quota
// states them (rules tenant.*; docs/interpretations.md, "Tenants and
// quotas"): registration, effective quotas scaled to the memory capacity,
// the per-object charge and its settlement, and the quota-eviction retry.
// RFC 3028 and PR 2835 are silent on quotas; where Mooncake's mechanism
// breaks a stated rule (failure atomicity) the model keeps the rule.
#include "model.h"

namespace pinsim {

namespace {

// Rule tenant.effective-quota, stated directly: with S the sum of the
// requested quotas and C the memory capacity, tenant t gets q_t when S <= C;
// otherwise floor(C q_t / S), plus one byte when fewer than L tenants rank
// before it by (remainder of C q / S, larger first; then lower id), L being
// the bytes the floors leave of C.
std::map<TenantId, uint64_t> effective_quotas(const std::map<TenantId, uint64_t>& requested, uint64_t capacity) {
  unsigned __int128 sum = 0;
  for (const auto& [t, q] : requested) sum += q;
  if (sum <= capacity) return requested;
  auto floor_of = [&](uint64_t q) { return static_cast<uint64_t>(static_cast<unsigned __int128>(capacity) * q / sum); };
  auto remainder_of = [&](uint64_t q) { return static_cast<unsigned __int128>(capacity) * q % sum; };
  uint64_t left = capacity;
  for (const auto& [t, q] : requested) left -= floor_of(q);
  std::map<TenantId, uint64_t> out;
  for (const auto& [t, q] : requested) {
    uint64_t ahead = 0;
    for (const auto& [u, p] : requested)
      ahead += remainder_of(p) > remainder_of(q) || (remainder_of(p) == remainder_of(q) && u < t);
    out[t] = floor_of(q) + (ahead < left ? 1 : 0);
  }
  return out;
}

}  // namespace

void Model::init_quotas() {
  if (!config_.multi_tenant) return;
  requested_quota_ = config_.tenant_quota_bytes;
  recompute_quotas();
}

void Model::recompute_quotas() {
  uint64_t capacity = 0;
  for (size_t s = 0; s < config_.segments.size(); ++s)  // the mounted memory (RecomputeTenantEffectiveQuotas)
    if (config_.segments[s].kind == ReplicaKind::Memory && segments_[s].mounted)
      capacity += config_.segments[s].capacity;
  effective_quota_ = effective_quotas(requested_quota_, capacity);
  for (const auto& [t, q] : effective_quota_)
    if (q != requested_quota_.at(t)) hits_.hit(Rule::EffectiveQuota);
}

// Rule tenant.policy-set (UpsertTenantQuotaPolicy): outside multi-tenant
// mode the call is unavailable; a quota of 0 or above 2^63 - 1 is invalid;
// otherwise the tenant's policy is set (a tenant without one is registered by
// it) and every effective quota recomputed. Charges are not touched: a tenant
// now above its quota writes again once evictions bring it under.
Outcome Model::set_quota(const Op& op) {
  hits_.hit(Rule::QuotaPolicySet);
  if (!config_.multi_tenant) return Outcome::of(ErrorCode::UNAVAILABLE_IN_CURRENT_MODE);
  if (op.quota_bytes == 0 || op.quota_bytes > kMaxQuotaBytes) return Outcome::of(ErrorCode::INVALID_PARAMS);
  requested_quota_[op.object.tenant] = op.quota_bytes;
  recompute_quotas();
  return Outcome{};
}

// Rule tenant.policy-delete (DeleteTenantQuotaPolicy): a tenant without a
// policy is OBJECT_NOT_FOUND; one that holds a charge or any object (a write
// in flight included) is TENANT_NOT_EMPTY and keeps its policy; otherwise the
// policy goes, the tenant's writes are TENANT_NOT_REGISTERED from then on, and
// the other tenants' effective quotas are recomputed.
Outcome Model::delete_quota(const Op& op) {
  hits_.hit(Rule::QuotaPolicyDelete);
  if (!config_.multi_tenant) return Outcome::of(ErrorCode::UNAVAILABLE_IN_CURRENT_MODE);
  const TenantId tenant = op.object.tenant;
  if (!requested_quota_.count(tenant)) return Outcome::of(ErrorCode::OBJECT_NOT_FOUND);
  if (std::any_of(objects_.unordered().begin(), objects_.unordered().end(),
                  [&](const ObjectTable::Entry& e) { return e.first.tenant == tenant; }))
    return Outcome::of(ErrorCode::TENANT_NOT_EMPTY);
  // A retiring object is the master's until the log finalises it (rule log.window).
  if (std::any_of(retiring_.begin(), retiring_.end(), [&](const Retiring& r) { return r.id.tenant == tenant; }))
    return Outcome::of(ErrorCode::TENANT_NOT_EMPTY);
  requested_quota_.erase(tenant);
  recompute_quotas();
  return Outcome{};
}

// ResolveTenantIdForWrite: only a tenant with a policy may write.
std::optional<ErrorCode> Model::check_registered(TenantId tenant) {
  if (!config_.multi_tenant || effective_quota_.count(tenant)) return std::nullopt;
  hits_.hit(Rule::TenantNotRegistered);
  return ErrorCode::TENANT_NOT_REGISTERED;
}

uint64_t Model::tenant_charge(TenantId tenant) const {
  uint64_t charged = retiring_charge(tenant);
  for (const auto& [id, obj] : objects_.unordered())
    if (id.tenant == tenant) charged += obj.charged_bytes();
  return charged;
}

std::vector<UsageView> Model::tenant_usage() const {
  std::vector<UsageView> usage;
  for (const auto& [id, obj] : objects_) {
    if (usage.empty() || usage.back().tenant != id.tenant) usage.push_back({id.tenant, 0});
    usage.back().bytes += obj.charged_bytes();
  }
  for (const Retiring& r : retiring_) {
    auto u = std::lower_bound(usage.begin(), usage.end(), r.id.tenant,
                              [](const UsageView& x, TenantId t) { return x.tenant < t; });
    if (u == usage.end() || u->tenant != r.id.tenant) u = usage.insert(u, {r.id.tenant, 0});
    u->bytes += r.charge;
  }
  std::erase_if(usage, [](const UsageView& u) { return u.bytes == 0; });
  return usage;
}

// TryCharge: `need` more bytes fit when charged + need <= effective quota,
// where the tenant's charge first gives back `released` (an object the write
// erases before it charges). A refusal records the deficit for the retry.
std::optional<ErrorCode> Model::charge_admits(TenantId tenant, uint64_t need, uint64_t released) {
  if (!config_.multi_tenant) return std::nullopt;
  if (need > kMaxQuotaBytes) return ErrorCode::INVALID_PARAMS;
  hits_.hit(Rule::QuotaCharge);
  const uint64_t charged = tenant_charge(tenant) - released;
  const uint64_t quota = effective_quota_.at(tenant);
  if (need == 0 || (charged <= quota && need <= quota - charged)) return std::nullopt;
  quota_deficit_ = charged + need - quota;
  return ErrorCode::TENANT_QUOTA_EXCEEDED;
}

// SettlePrimaryWrite: once no memory replica of the write is PROCESSING, the
// reservation becomes the memory replicas' bytes and a replaced object's
// charge is released.
void Model::settle_charge(Object& obj) {
  if ((!obj.reserved && obj.replaced_charge == 0) || obj.memory_processing()) return;
  hits_.hit(Rule::QuotaCharge);
  obj.reserved.reset();
  obj.replaced_charge = 0;
}

// EvictTenantMemoryForQuota, one pass: the tenant's objects in scan order
// (a runner's choice first, then key order), each tested as any eviction
// candidate is, until `target` bytes are freed. Returns the bytes freed.
uint64_t Model::evict_for_quota(TenantId tenant, uint64_t target, bool allow_soft, Time now) {
  std::vector<ObjectId> scan;
  for (ObjectId id : scan_first_)
    if (id.tenant == tenant) scan.push_back(id);
  for (const auto& [id, obj] : objects_)
    if (id.tenant == tenant && std::find(scan.begin(), scan.end(), id) == scan.end()) scan.push_back(id);
  uint64_t freed = 0;
  for (ObjectId id : scan) {
    if (freed >= target) break;
    auto it = find_object(id);
    if (!it || !evictable_candidate(id, it->second, allow_soft, now)) continue;
    const Evicted taken = try_evict(id, allow_soft, now);
    freed += taken.bytes;
    quota_evicted_ += taken.objects;
  }
  return freed;
}

// The quota-eviction retry of Put/UpsertStart: a refusal for quota evicts
// the tenant's own objects (pass 1 without active soft pins, pass 2 with
// them when allowed) until the deficit is freed, and tries again; three
// attempts in all. Evictions stay when the last attempt is refused too
// (eviction may take those objects at any time). Each attempt and each
// eviction is a critical section of its own in Mooncake (start_attempt).
Outcome Model::with_quota_retries(const Op& op, Time now) {
  StartRun run;
  Outcome out;
  while (!run.ended) {
    out = start_attempt(op, run, now);
    start_quota_evict(op, run, now);
  }
  return out;
}

// One attempt. The placement preference (most free space first) is the
// request's, as a client's ReplicateConfig is: fixed when the request begins
// (by the first attempt, unless a runner or a batch set it), kept by its
// retries (and by a batch's elements, which set it already). Only quota
// eviction can free space between attempts, so only multi-tenant mode needs it.
Outcome Model::start_attempt(const Op& op, StartRun& run, Time now, const std::vector<uint64_t>& preference) {
  constexpr int kAttempts = 3;
  if (run.ended) return Outcome{};
  const bool own_preference = config_.multi_tenant && batch_preference_.empty();
  if (own_preference && !preference.empty()) run.preference = preference;
  if (own_preference && run.preference.empty()) run.preference = preference_order(config_.segments, segment_used_);
  if (own_preference) batch_preference_ = run.preference;
  const Outcome out = op.kind == OpKind::PutStart ? put_start_once(op, now) : upsert_start_once(op, now);
  if (own_preference) batch_preference_.clear();
  ++run.attempts;
  run.ended = out.code != ErrorCode::TENANT_QUOTA_EXCEEDED || run.attempts == kAttempts;
  if (run.ended && out.code == ErrorCode::TENANT_QUOTA_EXCEEDED) {
    hits_.hit(Rule::Quota);
    ++quota_rejections_;  // counted once per request, after its retries
  }
  if (!run.ended) run.deficit = quota_deficit_;
  return out;
}

// EvictTenantMemoryForQuota after a refused attempt: pass 1 spares active
// soft pins, pass 2 (when allowed and pass 1 fell short) takes them too.
void Model::start_quota_evict(const Op& op, StartRun& run, Time now) {
  if (run.ended) return;
  hits_.hit(Rule::QuotaEviction);
  const uint64_t freed = evict_for_quota(op.object.tenant, run.deficit, false, now);
  if (freed < run.deficit && config_.allow_evict_soft_pinned_objects)
    evict_for_quota(op.object.tenant, run.deficit - freed, true, now);
}

void StartRun::encode(std::string* out) const {
  const uint64_t n = preference.size();
  out->append(reinterpret_cast<const char*>(&n), sizeof n);
  for (uint64_t score : preference) out->append(reinterpret_cast<const char*>(&score), sizeof score);
  out->append(reinterpret_cast<const char*>(&attempts), sizeof attempts);
  out->append(reinterpret_cast<const char*>(&deficit), sizeof deficit);
  out->push_back(ended ? '1' : '0');
}

}  // namespace pinsim
