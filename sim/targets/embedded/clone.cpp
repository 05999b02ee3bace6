// A copy of the embedded master at its present state (Target::clone), so the
// explorer checks a state's transitions on copies of it instead of replaying
// the state's path from the start for each one. Every member is copied but
// the mutexes, which the copy has of its own; objects are copied against the
// copy's gauge, which already counts their pins. The master copied must be
// quiescent (no op running on it), as the explorer's is.
#include <memory>

#include "embedded_master.h"

namespace pinsim::embedded {

EmbeddedMaster::EmbeddedMaster(const EmbeddedMaster& other)
    : config_(other.config_),
      faults_(other.faults_),
      last_now_(other.last_now_.load()),
      routes_(other.routes_),
      quotas_(other.quotas_),
      segments_(other.segments_),
      dfs_(other.dfs_),
      discarded_(other.discarded_),
      next_replica_id_(other.next_replica_id_),
      index_(other.index_),
      gauge_(other.gauge_),
      retained_group_count_(other.retained_group_count_.load()),
      memory_hit_bytes_(other.memory_hit_bytes_.load()),
      disk_hit_bytes_(other.disk_hit_bytes_.load()),
      memory_hits_(other.memory_hits_.load()),
      disk_hits_(other.disk_hits_.load()),
      reads_served_(other.reads_served_.load()),
      quota_rejections_(other.quota_rejections_.load()),
      placement_failures_(other.placement_failures_.load()),
      partial_placements_(other.partial_placements_.load()),
      snapshots_(other.snapshots_),
      heat_(other.heat_),
      leases_(other.leases_),
      next_lease_id_(other.next_lease_id_.load()),
      tokens_(other.tokens_),
      holder_(other.holder_) {
  for (size_t i = 0; i < shards_.size(); ++i) {
    const Shard& from = other.shards_[i];
    Shard& to = shards_[i];
    for (const auto& [id, md] : from.objects) to.objects.emplace(id, md->copy_for(gauge_));
    to.group_members = from.group_members;
    to.dirty_groups = from.dirty_groups;
    to.retention = from.retention;
    to.dynamic_pending = from.dynamic_pending;
    to.dynamic_cooldowns = from.dynamic_cooldowns;
  }
}

std::unique_ptr<Target> EmbeddedMaster::clone() const { return std::unique_ptr<Target>(new EmbeddedMaster(*this)); }

}  // namespace pinsim::embedded
