// Tenant quota accounts for multi-tenant mode, as Mooncake main's
// TenantQuotaAccount and TenantQuotaTable keep them: one account per tenant
// with a policy, its effective quota fixed from the policies and the memory
// capacity (BuildEffectiveQuotaAssignments), and a lock-free charged count
// that admission tests with TryCharge and the object ledgers give back.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "config.h"
#include "view.h"

namespace pinsim::embedded {

class TenantQuotaAccount {
 public:
  static constexpr uint64_t kMaxChargedBytes = kMaxQuotaBytes;  // 2^63 - 1

  explicit TenantQuotaAccount(uint64_t effective_quota_bytes) : effective_quota_bytes_(effective_quota_bytes) {}

  // TryCharge: charges `bytes` unless it is refused, which happens iff
  // bytes != 0 and (charged > quota or bytes > quota - charged); a refusal
  // charges nothing and reports the deficit (charged + bytes - quota).
  // `replacing`: bytes still charged for an object this write replaces, which
  // count as given back in the test (the embedded reserves before it erases
  // the old object; Mooncake erases first).
  bool TryCharge(uint64_t bytes, uint64_t replacing, uint64_t* deficit_bytes);
  void Release(uint64_t bytes);

  uint64_t ChargedBytes() const { return charged_bytes_.load(std::memory_order_acquire); }
  uint64_t EffectiveQuotaBytes() const { return effective_quota_bytes_; }
  // RebuildTenantQuotaUsageFromMetadata (quiescent: restore holds every lock).
  void SetChargedBytesForRebuild(uint64_t bytes) { charged_bytes_.store(bytes, std::memory_order_release); }

 private:
  const uint64_t effective_quota_bytes_;
  std::atomic<uint64_t> charged_bytes_{0};
};

// The accounts, built once from the configuration: with multi-tenant mode
// off there are none, and a tenant without a policy has none (its writes are
// TENANT_NOT_REGISTERED). The set never changes, so lookups take no lock.
class TenantQuotaTable {
 public:
  explicit TenantQuotaTable(const Config& config);

  // nullptr when the tenant has no account (mode off, or no policy).
  TenantQuotaAccount* Find(TenantId tenant) const;
  // ListTenantSnapshots' charged bytes: tenants with a non-zero charge, by id.
  std::vector<UsageView> ListCharges() const;
  void ForEach(const std::function<void(TenantId, TenantQuotaAccount&)>& f) const;

 private:
  std::map<TenantId, std::unique_ptr<TenantQuotaAccount>> accounts_;
};

// BuildEffectiveQuotaAssignments: the requested quotas when their sum fits
// `capacity`; otherwise floor(capacity * q / sum) each, and the bytes left
// go one by one to the largest remainders, ties to the lower tenant id.
std::map<TenantId, uint64_t> BuildEffectiveQuotaAssignments(const std::map<TenantId, uint64_t>& requested,
                                                            uint64_t capacity);

}  // namespace pinsim::embedded
