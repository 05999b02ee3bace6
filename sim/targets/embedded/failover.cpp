// Failover in the embedded master (rules failover.*; docs/interpretations.md,
// "Failover"), built as Mooncake's promotion is: the standby's image of the
// log holds each object's replicas (a copy's targets aside) and no lease,
// write intent or task; the new master starts reset (as a restore does),
// keeps the objects with a COMPLETE replica, and every client mounts its
// segments again, which grants each survivor a fresh read lease. The soft pin travels as a snapshot carries it (the
// committed deadline under the rfc profile only).
#include "embedded_master.h"

namespace pinsim::embedded {

// What a standby that has read the whole log holds.
EmbeddedMaster::SnapshotImage EmbeddedMaster::standby_image(Time now) const {
  const bool keeps_pin = rules_for(config_.profile).snapshot_keeps_soft_pin;
  const Time lease = saturating_deadline(now, config_.default_kv_lease_ttl_ms);  // the remount's grant
  SnapshotImage image;
  for (const Shard& s : shards_) {
    for (const auto& [id, md] : s.objects) {
      std::vector<Replica> replicas;
      for (Replica r : md->replicas) {
        if (r.copy) continue;  // a copy's target: the task is not in the log
        // F30: the standby applies a write in flight as if its End had come.
        if (faults_.f30_failover_keeps_write_in_flight) r.status = ReplicaStatus::Complete;
        r.dynamic = false;  // which replicas dynamic copies made is not in the log
        replicas.push_back(r);
      }
      image.objects.push_back({id, md->client, md->size, std::move(replicas),
                               keeps_pin ? md->committed_deadline() : std::nullopt, lease, now, md->group,
                               md->hard_pinned, md->checksum});
    }
  }
  std::lock_guard lock(alloc_mutex_);
  image.next_replica_id = next_replica_id_;
  image.segments = segments_.records();  // every mounted segment is mounted again; a leaving one goes
  return image;
}

Outcome EmbeddedMaster::failover(Time now) {  // snapshot_mutex_ held exclusively
  if (!config_.ha_oplog) return Outcome::of(ErrorCode::UNAVAILABLE_IN_CURRENT_MODE);  // no standby
  const SnapshotImage image = standby_image(now);
  reset_state(true);
  decode(image, now, false);
  finish_restore();
  return Outcome{};
}

}  // namespace pinsim::embedded
