// Mooncake metrics the View compares that MasterMetricManager exports but has
// no getter for: the valid-get count (a successful GetReplicaList, each OK
// key of a BatchGetReplicaList; the View's reads_served, rule read.hit), the
// memory and file cache-hit counts (memory_hits, disk_hits) and the tenant
// quota rejections (the View's quota_rejections, rule
// tenant.quota). They are read through the member pointers of
// private_member.h.
#pragma once

#include <cstdint>
#include <utility>

#include "master_metric_manager.h"
#include "private_member.h"

namespace pinsim::mooncake_private {

#if PINSIM_MC_HAS_VALID_GETS
struct ValidGetsTag {};
auto member(ValidGetsTag);
template struct Expose<ValidGetsTag, &mooncake::MasterMetricManager::valid_get_nums_>;
#endif
#if PINSIM_MC_HAS_HIT_NUMS
struct MemHitsTag {};
struct FileHitsTag {};
auto member(MemHitsTag);
auto member(FileHitsTag);
template struct Expose<MemHitsTag, &mooncake::MasterMetricManager::mem_cache_hit_nums_>;
template struct Expose<FileHitsTag, &mooncake::MasterMetricManager::file_cache_hit_nums_>;
#endif
#if PINSIM_MC_HAS_REFUSALS
struct QuotaRejectsTag {};
auto member(QuotaRejectsTag);
template struct Expose<QuotaRejectsTag, &mooncake::MasterMetricManager::tenant_quota_reject_total_>;
#endif

}  // namespace pinsim::mooncake_private

namespace pinsim::mooncake_metrics {

namespace mp = mooncake_private;  // the tags; member() is found through them

#if PINSIM_MC_HAS_VALID_GETS
inline int64_t valid_get_nums() {
  return (mooncake::MasterMetricManager::instance().*member(mp::ValidGetsTag{})).value();
}
#endif

#if PINSIM_MC_HAS_HIT_NUMS
// The read-hit counts (memory, file), beside the bytes their getters give.
inline std::pair<int64_t, int64_t> cache_hit_nums() {
  auto& m = mooncake::MasterMetricManager::instance();
  return {(m.*member(mp::MemHitsTag{})).value(), (m.*member(mp::FileHitsTag{})).value()};
}
#endif

#if PINSIM_MC_HAS_REFUSALS
// Every tenant's count with the reason "quota_exceeded" (the only one
// Mooncake gives), summed.
inline int64_t tenant_quota_rejects() {
  int64_t sum = 0;
  for (const auto& entry : (mooncake::MasterMetricManager::instance().*member(mp::QuotaRejectsTag{})).copy())
    if (entry->label[1] == "quota_exceeded") sum += entry->value.load();
  return sum;
}
#endif

}  // namespace pinsim::mooncake_metrics
