// Per-object quota state, as Mooncake main's TenantQuotaLedger keeps it: the
// bytes one object holds charged to its tenant's account, in four buckets:
// pending (charged at Start, size x memory replicas requested), committed
// (what a settled write keeps: size x its COMPLETE memory replicas),
// replaced (a size-changing Upsert's old charge, held until the new write
// settles) and copy (a copy's targets, charged from its start until its
// End makes them committed or they go). The ledger never releases implicitly;
// every release names the account. Guarded by the object's shard lock.
#pragma once
#include <cassert>
#include <cstdint>

#include "tenant_quota.h"

namespace pinsim::embedded {

class TenantQuotaLedger {
 public:
  // Records bytes the caller has already charged with TryCharge.
  void AdoptPendingCharge(uint64_t bytes) {
    assert(pending_bytes_ == 0);
    pending_bytes_ = bytes;
  }
  // Completes a Put/Upsert once no memory replica is PROCESSING: releases
  // the replaced bucket and whatever of pending + committed exceeds
  // `actual_committed_bytes` (size x COMPLETE memory replicas); a copy's
  // charge is the copy's, not the write's.
  void SettlePrimaryWrite(TenantQuotaAccount& account, uint64_t actual_committed_bytes) {
    assert(actual_committed_bytes <= pending_bytes_ + committed_bytes_);
    account.Release(pending_bytes_ + committed_bytes_ + replaced_bytes_ - actual_committed_bytes);
    pending_bytes_ = 0;
    committed_bytes_ = actual_committed_bytes;
    replaced_bytes_ = 0;
  }
  // Eviction took `bytes` of COMPLETE memory.
  void ReleaseCommitted(TenantQuotaAccount& account, uint64_t bytes) {
    assert(bytes <= committed_bytes_);
    account.Release(bytes);
    committed_bytes_ -= bytes;
  }
  // CopyStart: records the targets' bytes the caller has already charged.
  void AdoptCopyCharge(uint64_t bytes) { copy_bytes_ += bytes; }
  // CopyEnd: the targets left are the object's own COMPLETE memory now.
  void CommitCopyCharge() {
    committed_bytes_ += copy_bytes_;
    copy_bytes_ = 0;
  }
  // Targets that went (a Revoke, a failed End, the release timeout, an unmount).
  void ReleaseCopy(TenantQuotaAccount& account, uint64_t bytes) {
    assert(bytes <= copy_bytes_);
    account.Release(bytes);
    copy_bytes_ -= bytes;
  }
  // Case C: this (old, settled) object's committed and replaced bytes move to
  // `destination`'s replaced bucket; the account's total does not change.
  void TransferReplacementCharge(TenantQuotaLedger& destination) {
    assert(pending_bytes_ == 0 && copy_bytes_ == 0 && destination.replaced_bytes_ == 0);
    destination.replaced_bytes_ = committed_bytes_ + replaced_bytes_;
    committed_bytes_ = 0;
    replaced_bytes_ = 0;
  }
  // EraseMetadata: everything goes back.
  void ReleaseAll(TenantQuotaAccount& account) {
    account.Release(TotalChargedBytes());
    pending_bytes_ = committed_bytes_ = replaced_bytes_ = copy_bytes_ = 0;
  }
  // RebuildTenantQuotaUsageFromMetadata: local state only.
  void Rebuild(uint64_t committed_bytes) {
    pending_bytes_ = replaced_bytes_ = copy_bytes_ = 0;
    committed_bytes_ = committed_bytes;
  }

  uint64_t PendingBytes() const { return pending_bytes_; }
  uint64_t CommittedBytes() const { return committed_bytes_; }
  uint64_t ReplacedBytes() const { return replaced_bytes_; }
  uint64_t CopyBytes() const { return copy_bytes_; }
  uint64_t TotalChargedBytes() const { return pending_bytes_ + committed_bytes_ + replaced_bytes_ + copy_bytes_; }

 private:
  uint64_t pending_bytes_ = 0;
  uint64_t committed_bytes_ = 0;
  uint64_t replaced_bytes_ = 0;
  uint64_t copy_bytes_ = 0;
};

}  // namespace pinsim::embedded
