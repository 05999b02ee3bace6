// Tenant quota accounts and the effective quota assignment; see tenant_quota.h.
#include "tenant_quota.h"

#include <algorithm>

namespace pinsim::embedded {

bool TenantQuotaAccount::TryCharge(uint64_t bytes, uint64_t replacing, uint64_t* deficit_bytes) {
  uint64_t expected = charged_bytes_.load(std::memory_order_acquire);
  for (;;) {
    const uint64_t charged = expected - replacing;  // the replaced object is still in `expected`
    const uint64_t quota = effective_quota_bytes_;
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

TenantQuotaTable::TenantQuotaTable(const Config& config) {
  if (!config.multi_tenant) return;
  uint64_t capacity = 0;  // GetTenantQuotaAllocatableCapacityBytes: mounted memory segments
  for (const SegmentConfig& s : config.segments)
    if (s.kind == ReplicaKind::Memory) capacity += s.capacity;
  for (const auto& [tenant, quota] : BuildEffectiveQuotaAssignments(config.tenant_quota_bytes, capacity))
    accounts_.emplace(tenant, std::make_unique<TenantQuotaAccount>(quota));
}

TenantQuotaAccount* TenantQuotaTable::Find(TenantId tenant) const {
  auto it = accounts_.find(tenant);
  return it == accounts_.end() ? nullptr : it->second.get();
}

std::vector<UsageView> TenantQuotaTable::ListCharges() const {
  std::vector<UsageView> out;
  for (const auto& [tenant, account] : accounts_)
    if (const uint64_t charged = account->ChargedBytes(); charged != 0) out.push_back({tenant, charged});
  return out;
}

void TenantQuotaTable::ForEach(const std::function<void(TenantId, TenantQuotaAccount&)>& f) const {
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
