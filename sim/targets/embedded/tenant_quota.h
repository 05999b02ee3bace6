// Tenant quota accounts for multi-tenant mode, as Mooncake main's
// TenantQuotaAccount and TenantQuotaTable keep them: one account per tenant
// with a policy (or with restored objects), its effective quota derived from
// the policies and the memory capacity (BuildEffectiveQuotaAssignments) each
// time a policy changes, and a lock-free charged count that admission tests
// with TryCharge and the object ledgers give back.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <vector>

#include "error_code.h"

#include "config.h"
#include "view.h"

namespace pinsim::embedded {

class TenantQuotaAccount {
 public:
  static constexpr uint64_t kMaxChargedBytes = kMaxQuotaBytes;  // 2^63 - 1


  // TryCharge: charges `bytes` unless it is refused, which happens iff
  // bytes != 0 and (charged > quota or bytes > quota - charged); a refusal
  // charges nothing and reports the deficit (charged + bytes - quota).
  // `replacing`: bytes still charged for an object this write replaces, which
  // count as given back in the test (the embedded reserves before it erases
  // the old object; Mooncake erases first).
  bool TryCharge(uint64_t bytes, uint64_t replacing, uint64_t* deficit_bytes);
  void Release(uint64_t bytes);

  uint64_t ChargedBytes() const { return charged_bytes_.load(std::memory_order_acquire); }
  uint64_t EffectiveQuotaBytes() const { return effective_quota_bytes_.load(std::memory_order_acquire); }
  // RebuildTenantQuotaUsageFromMetadata (quiescent: restore holds every lock).
  void SetChargedBytesForRebuild(uint64_t bytes) { charged_bytes_.store(bytes, std::memory_order_release); }

 private:
  friend class TenantQuotaTable;
  std::atomic<uint64_t> effective_quota_bytes_{0};
  std::atomic<uint64_t> charged_bytes_{0};
  uint64_t requested_quota_bytes_ = 0;  // the two below under the table's mutex
  bool has_explicit_policy_ = false;
};

// The accounts: with multi-tenant mode off there are none. An account is
// never destroyed (a pointer to one stays valid); a tenant whose policy was
// deleted keeps its account without a policy, and its writes are
// TENANT_NOT_REGISTERED. Lock order: shard locks -> mutex_.
class TenantQuotaTable {
 public:
  explicit TenantQuotaTable(const Config& config);
  // EmbeddedMaster::clone and assign (quiescent): every account copied.
  TenantQuotaTable(const TenantQuotaTable& other) { *this = other; }
  TenantQuotaTable& operator=(const TenantQuotaTable& other);

  // The account of a tenant with a policy; nullptr otherwise.
  TenantQuotaAccount* Find(TenantId tenant) const;
  // The account of any tenant, with a policy or not (what a release gives
  // back to: restored objects of a tenant without a policy); nullptr if none.
  TenantQuotaAccount* FindAny(TenantId tenant) const;
  // Any tenant's account, made without a policy if missing (the rebuild's
  // orphan accounts for restored objects of a tenant without a policy).
  TenantQuotaAccount& GetOrCreate(TenantId tenant);
  // UpsertTenantPolicy: INVALID_PARAMS for 0 or above 2^63 - 1.
  std::optional<ErrorCode> UpsertPolicy(TenantId tenant, uint64_t requested_quota_bytes);
  // DisableTenantPolicyIfEmpty: OBJECT_NOT_FOUND without a policy,
  // TENANT_NOT_EMPTY while the account holds a charge; `requested` gets the
  // quota the policy asked for (to put it back).
  std::optional<ErrorCode> DisablePolicyIfEmpty(TenantId tenant, uint64_t* requested);
  // ListTenantSnapshots' charged bytes: tenants with a non-zero charge, by id,
  // into `out` (emptied first: a View's buffer is reused).
  void ListCharges(std::vector<UsageView>* out) const;
  // Effective quotas of the tenants with a policy, by id, into `out` as above.
  void ListQuotas(std::vector<UsageView>* out) const;
  void ForEach(const std::function<void(TenantId, TenantQuotaAccount&)>& f) const;
  // RecomputeTenantEffectiveQuotas after a segment is mounted or unmounted:
  // `bytes` of memory are mounted now.
  void SetCapacity(uint64_t bytes);

 private:
  TenantQuotaAccount& GetOrCreateLocked(TenantId tenant);
  void RecomputeLocked();
  mutable std::shared_mutex mutex_;
  uint64_t capacity_ = 0;  // GetTenantQuotaAllocatableCapacityBytes: mounted memory segments
  std::map<TenantId, std::unique_ptr<TenantQuotaAccount>> accounts_;
};

// BuildEffectiveQuotaAssignments: the requested quotas when their sum fits
// `capacity`; otherwise floor(capacity * q / sum) each, and the bytes left
// go one by one to the largest remainders, ties to the lower tenant id.
std::map<TenantId, uint64_t> BuildEffectiveQuotaAssignments(const std::map<TenantId, uint64_t>& requested,
                                                            uint64_t capacity);

}  // namespace pinsim::embedded
