// A copy of the embedded master at its present state (Target::clone), and
// the same copy made into an existing master (Target::assign), so the
// explorer checks a state's transitions on copies of it instead of replaying
// the state's path from the start for each one; assign reuses the storage of
// the master it writes into (the explorer keeps one scratch master), which
// costs a fraction of building and destroying a master per transition. Every
// member is copied but the mutexes, which each master has of its own;
// objects are copied against the copy's gauge, which already counts their
// pins. The master copied must be quiescent (no op running on it), as the
// explorer's is.
#include <memory>

#include "embedded_master.h"

namespace pinsim::embedded {

namespace {

// Most of a small state's 32 shards are empty: an empty map over an empty
// one is left alone.
template <typename Map>
void assign_map(Map& to, const Map& from) {
  if (!to.empty() || !from.empty()) to = from;
}

}  // namespace

EmbeddedMaster::EmbeddedMaster(const EmbeddedMaster& other) : EmbeddedMaster(other.config_, other.faults_) {
  copy_state(other);
}

std::unique_ptr<Target> EmbeddedMaster::clone() const { return std::unique_ptr<Target>(new EmbeddedMaster(*this)); }

bool EmbeddedMaster::assign(const Target& from) {
  const auto* other = dynamic_cast<const EmbeddedMaster*>(&from);
  if (!other || !(other->config_ == config_) || !(other->faults_ == faults_)) return false;
  if (other != this) copy_state(*other);
  return true;
}

void EmbeddedMaster::copy_state(const EmbeddedMaster& other) {
  for (Shard& s : shards_) s.objects.clear();  // their destructors settle this master's gauge first
  last_now_ = other.last_now_.load();
  routes_ = other.routes_;
  quotas_ = other.quotas_;
  segments_ = other.segments_;
  dfs_ = other.dfs_;
  discarded_ = other.discarded_;
  next_replica_id_ = other.next_replica_id_;
  index_ = other.index_;
  gauge_.rebuild(other.gauge_.value());
  retained_group_count_ = other.retained_group_count_.load();
  memory_hit_bytes_ = other.memory_hit_bytes_.load();
  disk_hit_bytes_ = other.disk_hit_bytes_.load();
  memory_hits_ = other.memory_hits_.load();
  disk_hits_ = other.disk_hits_.load();
  reads_served_ = other.reads_served_.load();
  quota_rejections_ = other.quota_rejections_.load();
  placement_failures_ = other.placement_failures_.load();
  partial_placements_ = other.partial_placements_.load();
  snapshots_ = other.snapshots_;
  assign_map(heat_, other.heat_);
  assign_map(leases_, other.leases_);
  next_lease_id_ = other.next_lease_id_.load();
  assign_map(tokens_, other.tokens_);
  holder_ = other.holder_;
  for (size_t i = 0; i < shards_.size(); ++i) {
    const Shard& from = other.shards_[i];
    Shard& to = shards_[i];
    for (const auto& [id, md] : from.objects) to.objects.emplace_hint(to.objects.end(), id, md->copy_for(gauge_));
    assign_map(to.group_members, from.group_members);
    assign_map(to.dirty_groups, from.dirty_groups);
    assign_map(to.retention, from.retention);
    assign_map(to.dynamic_pending, from.dynamic_pending);
    assign_map(to.dynamic_cooldowns, from.dynamic_cooldowns);
  }
}

}  // namespace pinsim::embedded
