// Names and summaries of the seeded faults; see faults.h.
#include "faults.h"

#include <array>

namespace pinsim::embedded {

namespace {

constexpr std::array<FaultInfo, 30> kFaults{{
    {"F1", "reads renew the soft pin (the pre-#2909 behaviour)", &Faults::f1_reads_renew_soft_pin},
    {"F2", "cleanup clears a pin without the deadline-equality check (stale index entry)",
     &Faults::f2_cleanup_skips_deadline_check},
    {"F3", "gauge decremented twice (destroy and cleanup)", &Faults::f3_gauge_double_decrement},
    {"F4", "partial revoke drops Pending", &Faults::f4_partial_revoke_drops_pending},
    {"F5", "Preserve carries an expired deadline into replacement metadata", &Faults::f5_carry_expired_deadline},
    {"F6", "deadline arithmetic wraps instead of saturating", &Faults::f6_deadline_wraps},
    {"F7", "RetainGroups can shorten a deadline", &Faults::f7_retain_shortens_deadline},
    {"F8", "admission counter leaks (not decremented on prune or on member registration)",
     &Faults::f8_admission_counter_leaks},
    {"F9", "a future member inherits an expired group deadline", &Faults::f9_inherit_expired_retention},
    {"F10", "a duplicate End refreshes the deadline", &Faults::f10_duplicate_end_refreshes},
    {"F11", "restore (and failover) keeps an expired deadline active", &Faults::f11_restore_keeps_expired_deadline},
    {"F12", "a failed restore candidate leaks index registrations", &Faults::f12_failed_restore_leaks_registrations},
    {"F13", "the expiry cycle pops only deadlines < now (off by one at the deadline)", &Faults::f13_expiry_off_by_one},
    {"F14", "eviction treats a stored but expired pin as still active (no now < D test)", &Faults::f14_expired_pin_protects},
    {"F15", "RetainGroups copies the group deadline into members' soft pins (RFC Separation)",
     &Faults::f15_retention_writes_soft_pin},
    {"F16", "a refused replacing Start has already erased the old object and its deadline (no failure atomicity)",
     &Faults::f16_failed_start_drops_object},
    {"F17", "quota eviction and group expansion take a hard-pinned object (no hard-pin test)",
     &Faults::f17_eviction_takes_hard_pinned},
    {"F18", "cleanup checks the stored deadline before it takes the shard lock, then clears the pin unchecked",
     &Faults::f18_cleanup_checks_outside_lock, FaultLane::Interleaving, "pins"},
    {"F19", "cleanup holds the deadline index's mutex while it takes the shard locks (RFC lock order)",
     &Faults::f19_index_held_over_shard_locks, FaultLane::Interleaving},
    {"F20", "cleanup writes the gauge back from a value it read before taking any lock (a lost update)",
     &Faults::f20_gauge_updated_outside_lock, FaultLane::Interleaving},
    {"F21", "an End that declares no checksum keeps the value's old one (the assignment made conditional)",
     &Faults::f21_end_without_checksum_keeps_old},
    {"F22", "a read served from a disk file is counted as a memory hit (the hit metric's replica test)",
     &Faults::f22_disk_hit_counted_as_memory},
    {"F23", "CopyEnd re-arms the soft pin: the stored deadline becomes now + the default TTL (rule copy.no-pin)",
     &Faults::f23_copy_end_rearms_soft_pin},
    {"F24", "a write's End also completes a copy's PROCESSING targets, as Mooncake main's PutEnd (rule copy.targets)",
     &Faults::f24_end_completes_copy_targets},
    {"F25", "a read of an object with no COMPLETE memory replica counts heat (GetReplicaList's test; rule dynrep.heat)",
     &Faults::f25_heat_without_memory_replica, FaultLane::Sequential, "dynamic"},
    {"F26", "a dynamic replica freed at once (evicted, or a revoked or failed copy's target) sets no recreate "
     "cooldown (rule dynrep.cooldown)", &Faults::f26_freed_dynamic_replica_no_cooldown, FaultLane::Sequential,
     "dynamic"},
    {"F27", "a Start refused for quota counts a quota rejection at each of its attempts, not once (rule tenant.quota)",
     &Faults::f27_quota_rejection_per_attempt},
    {"F28", "an Upsert preempting a write in flight keeps its DFS replica's slot, an orphan record (UpsertStart's "
     "FreeDfsReplicas dropped; rule dfs.slot)", &Faults::f28_preemption_keeps_dfs_slot},
    {"F29", "the reaper ends an expired promotion but keeps its staged replica, PROCESSING for good "
     "(DiscardExpiredProcessingReplicas' free dropped; rule local.expiry)", &Faults::f29_reaper_keeps_staged_replica,
     FaultLane::Sequential, "local"},
    {"F30", "a failover's standby applies a write in flight as committed: its PROCESSING replicas come back COMPLETE "
     "(rule failover.standby)", &Faults::f30_failover_keeps_write_in_flight},
}};

}  // namespace

std::span<const FaultInfo> fault_catalogue() { return kFaults; }

const FaultInfo* find_fault(std::string_view name) {
  for (const FaultInfo& f : kFaults)
    if (f.name == name) return &f;
  return nullptr;
}

bool parse_faults(const std::vector<std::string>& names, Faults* out, std::string* error) {
  for (const std::string& name : names) {
    const FaultInfo* found = find_fault(name);
    if (!found) {
      std::string known;
      for (const FaultInfo& f : kFaults) known += (known.empty() ? "" : ", ") + std::string(f.name);
      *error = "unknown fault '" + name + "' (known: " + known + ")";
      return false;
    }
    out->*(found->flag) = true;
  }
  return true;
}

}  // namespace pinsim::embedded
