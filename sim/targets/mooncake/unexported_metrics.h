// Mooncake metrics the View compares that MasterMetricManager exports but has
// no getter for: the valid-get count (a successful GetReplicaList, each OK
// key of a BatchGetReplicaList; the View's reads_served, rule read.hit), the
// memory and file cache-hit counts (memory_hits, disk_hits) and the tenant
// quota rejections (the View's quota_rejections, rule
// tenant.quota). They are read through the member pointers an explicit
// instantiation may name: access checks do not apply to the names in an
// explicit instantiation, and the friend function it defines hands the
// pointer out. Nothing of Mooncake's is changed or copied.
#pragma once

#include <cstdint>
#include <utility>

#include "master_metric_manager.h"

namespace pinsim::mooncake_metrics {

template <class Tag, auto M>
struct Expose {
  friend auto member(Tag) { return M; }
};

#if PINSIM_MC_HAS_VALID_GETS
struct ValidGetsTag {};
auto member(ValidGetsTag);
template struct Expose<ValidGetsTag, &mooncake::MasterMetricManager::valid_get_nums_>;

inline int64_t valid_get_nums() {
  return (mooncake::MasterMetricManager::instance().*member(ValidGetsTag{})).value();
}
#endif

#if PINSIM_MC_HAS_HIT_NUMS
struct MemHitsTag {};
struct FileHitsTag {};
auto member(MemHitsTag);
auto member(FileHitsTag);
template struct Expose<MemHitsTag, &mooncake::MasterMetricManager::mem_cache_hit_nums_>;
template struct Expose<FileHitsTag, &mooncake::MasterMetricManager::file_cache_hit_nums_>;

// The read-hit counts (memory, file), beside the bytes their getters give.
inline std::pair<int64_t, int64_t> cache_hit_nums() {
  auto& m = mooncake::MasterMetricManager::instance();
  return {(m.*member(MemHitsTag{})).value(), (m.*member(FileHitsTag{})).value()};
}
#endif

#if PINSIM_MC_HAS_REFUSALS
struct QuotaRejectsTag {};
auto member(QuotaRejectsTag);
template struct Expose<QuotaRejectsTag, &mooncake::MasterMetricManager::tenant_quota_reject_total_>;

// Every tenant's count with the reason "quota_exceeded" (the only one
// Mooncake gives), summed.
inline int64_t tenant_quota_rejects() {
  int64_t sum = 0;
  for (const auto& entry : (mooncake::MasterMetricManager::instance().*member(QuotaRejectsTag{})).copy())
    if (entry->label[1] == "quota_exceeded") sum += entry->value.load();
  return sum;
}
#endif

}  // namespace pinsim::mooncake_metrics
