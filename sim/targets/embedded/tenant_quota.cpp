// Tenant quota accounts and the effective quota assignment; see tenant_quota.h.
#include "tenant_quota.h"

#include <algorithm>
#include <mutex>

namespace pinsim::embedded {

bool TenantQuotaAccount::TryCharge(uint64_t bytes, uint64_t replacing, uint64_t* deficit_bytes) {
  uint64_t expected = charged_bytes_.load(std::memory_order_acquire);
  for (;;) {
    const uint64_t charged = expected - replacing;  // the replaced object is still in `expected`
    const uint64_t quota = EffectiveQuotaBytes();
    if (bytes != 0 && (charged > quota || bytes > quota - charged)) {
      const unsigned __int128 deficit = static_cast<unsigned __int128>(charged) + bytes - quota;
      *deficit_bytes = deficit > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(deficit);
      return false;
    }
    if (bytes == 0 ||
        charged_bytes_.compare_exchange_weak(expected, expected + bytes, std::memory_order_acq_rel))
      return true;
  }
}

void TenantQuotaAccount::Release(uint64_t bytes) {
  if (bytes != 0) charged_bytes_.fetch_sub(bytes, std::memory_order_acq_rel);
}

TenantQuotaTable& TenantQuotaTable::operator=(const TenantQuotaTable& other) {
  std::shared_lock guard(other.mutex_);
  capacity_ = other.capacity_;
  accounts_.clear();
  for (const auto& [tenant, account] : other.accounts_) {
    auto copy = std::make_unique<TenantQuotaAccount>();
    copy->effective_quota_bytes_.store(account->EffectiveQuotaBytes());
    copy->charged_bytes_.store(account->ChargedBytes());
    copy->requested_quota_bytes_ = account->requested_quota_bytes_;
    copy->has_explicit_policy_ = account->has_explicit_policy_;
    accounts_.emplace(tenant, std::move(copy));
  }
  return *this;
}

TenantQuotaTable::TenantQuotaTable(const Config& config) {
  if (!config.multi_tenant) return;
  for (const SegmentConfig& s : config.segments)
    if (s.kind == ReplicaKind::Memory) capacity_ += s.capacity;
  for (const auto& [tenant, quota] : config.tenant_quota_bytes) {
    TenantQuotaAccount& account = GetOrCreateLocked(tenant);
    account.requested_quota_bytes_ = quota;
    account.has_explicit_policy_ = true;
  }
  RecomputeLocked();
}

TenantQuotaAccount* TenantQuotaTable::Find(TenantId tenant) const {
  std::shared_lock lock(mutex_);
  auto it = accounts_.find(tenant);
  return it == accounts_.end() || !it->second->has_explicit_policy_ ? nullptr : it->second.get();
}

TenantQuotaAccount* TenantQuotaTable::FindAny(TenantId tenant) const {
  std::shared_lock lock(mutex_);
  auto it = accounts_.find(tenant);
  return it == accounts_.end() ? nullptr : it->second.get();
}

TenantQuotaAccount& TenantQuotaTable::GetOrCreate(TenantId tenant) {
  std::unique_lock lock(mutex_);
  return GetOrCreateLocked(tenant);
}

TenantQuotaAccount& TenantQuotaTable::GetOrCreateLocked(TenantId tenant) {
  auto& slot = accounts_[tenant];
  if (!slot) slot = std::make_unique<TenantQuotaAccount>();
  return *slot;
}

std::optional<ErrorCode> TenantQuotaTable::UpsertPolicy(TenantId tenant, uint64_t requested_quota_bytes) {
  if (requested_quota_bytes == 0 || requested_quota_bytes > TenantQuotaAccount::kMaxChargedBytes)
    return ErrorCode::INVALID_PARAMS;
  std::unique_lock lock(mutex_);
  TenantQuotaAccount& account = GetOrCreateLocked(tenant);
  account.requested_quota_bytes_ = requested_quota_bytes;
  account.has_explicit_policy_ = true;
  RecomputeLocked();
  return std::nullopt;
}

std::optional<ErrorCode> TenantQuotaTable::DisablePolicyIfEmpty(TenantId tenant, uint64_t* requested) {
  std::unique_lock lock(mutex_);
  auto it = accounts_.find(tenant);
  if (it == accounts_.end() || !it->second->has_explicit_policy_) return ErrorCode::OBJECT_NOT_FOUND;
  if (it->second->ChargedBytes() != 0) return ErrorCode::TENANT_NOT_EMPTY;
  *requested = it->second->requested_quota_bytes_;
  it->second->requested_quota_bytes_ = 0;
  it->second->has_explicit_policy_ = false;
  RecomputeLocked();
  return std::nullopt;
}

void TenantQuotaTable::SetCapacity(uint64_t bytes) {
  std::unique_lock lock(mutex_);
  capacity_ = bytes;
  RecomputeLocked();
}

// Every account's effective quota from the policies: a tenant without one gets 0.
void TenantQuotaTable::RecomputeLocked() {
  std::map<TenantId, uint64_t> requested;
  for (const auto& [tenant, account] : accounts_)
    if (account->has_explicit_policy_) requested[tenant] = account->requested_quota_bytes_;
  const auto effective = BuildEffectiveQuotaAssignments(requested, capacity_);
  for (const auto& [tenant, account] : accounts_) {
    auto e = effective.find(tenant);
    account->effective_quota_bytes_.store(e == effective.end() ? 0 : e->second, std::memory_order_release);
  }
}

void TenantQuotaTable::ListCharges(std::vector<UsageView>* out) const {
  out->clear();
  std::shared_lock lock(mutex_);
  for (const auto& [tenant, account] : accounts_)
    if (const uint64_t charged = account->ChargedBytes(); charged != 0) out->push_back({tenant, charged});
}

void TenantQuotaTable::ListQuotas(std::vector<UsageView>* out) const {
  out->clear();
  std::shared_lock lock(mutex_);
  for (const auto& [tenant, account] : accounts_)
    if (account->has_explicit_policy_) out->push_back({tenant, account->EffectiveQuotaBytes()});
}

void TenantQuotaTable::ForEach(const std::function<void(TenantId, TenantQuotaAccount&)>& f) const {
  std::shared_lock lock(mutex_);
  for (const auto& [tenant, account] : accounts_) f(tenant, *account);
}

std::map<TenantId, uint64_t> BuildEffectiveQuotaAssignments(const std::map<TenantId, uint64_t>& requested,
                                                            uint64_t capacity) {
  unsigned __int128 requested_sum = 0;
  for (const auto& [tenant, quota] : requested) requested_sum += quota;
  if (requested_sum <= capacity) return requested;
  struct RemainderShare {
    TenantId tenant;
    uint64_t base;
    unsigned __int128 remainder;
  };
  std::vector<RemainderShare> shares;
  uint64_t base_assigned = 0;
  for (const auto& [tenant, quota] : requested) {
    const unsigned __int128 product = static_cast<unsigned __int128>(capacity) * quota;
    shares.push_back({tenant, static_cast<uint64_t>(product / requested_sum), product % requested_sum});
    base_assigned += shares.back().base;
  }
  std::sort(shares.begin(), shares.end(), [](const RemainderShare& a, const RemainderShare& b) {
    return a.remainder != b.remainder ? a.remainder > b.remainder : a.tenant < b.tenant;
  });
  std::map<TenantId, uint64_t> assigned;
  uint64_t remaining = capacity - base_assigned;
  for (RemainderShare& share : shares) {
    if (remaining > 0) {
      ++share.base;
      --remaining;
    }
    assigned[share.tenant] = share.base;
  }
  return assigned;
}

}  // namespace pinsim::embedded
