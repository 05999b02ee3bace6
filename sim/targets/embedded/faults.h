// The embedded target's catalogue of seeded faults. Each fault is one named switch, off by default; the code it
// changes carries a comment naming it. The lockstep campaign must kill every
// one of them (tests/fault_kill_test.cpp).
#pragma once
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pinsim::embedded {

struct Faults {
  bool f1_reads_renew_soft_pin = false;           // F1
  bool f2_cleanup_skips_deadline_check = false;   // F2
  bool f3_gauge_double_decrement = false;         // F3
  bool f4_partial_revoke_drops_pending = false;   // F4
  bool f5_carry_expired_deadline = false;         // F5
  bool f6_deadline_wraps = false;                 // F6
  bool f7_retain_shortens_deadline = false;       // F7
  bool f8_admission_counter_leaks = false;        // F8
  bool f9_inherit_expired_retention = false;      // F9
  bool f10_duplicate_end_refreshes = false;       // F10
  bool f11_restore_keeps_expired_deadline = false;  // F11
  bool f12_failed_restore_leaks_registrations = false;  // F12
  bool f13_expiry_off_by_one = false;             // F13
  bool f14_expired_pin_protects = false;          // F14
  bool f15_retention_writes_soft_pin = false;     // F15
  bool f16_failed_start_drops_object = false;     // F16
  bool f17_eviction_takes_hard_pinned = false;    // F17
  bool f18_cleanup_checks_outside_lock = false;   // F18 (shows only in an interleaving)
  bool f19_index_held_over_shard_locks = false;   // F19 (a lock-order cycle)
  bool f20_gauge_updated_outside_lock = false;    // F20 (shows only in an interleaving)
  bool f21_end_without_checksum_keeps_old = false;  // F21
  bool f22_disk_hit_counted_as_memory = false;      // F22
  bool f23_copy_end_rearms_soft_pin = false;        // F23
  bool f24_end_completes_copy_targets = false;      // F24
  bool f25_heat_without_memory_replica = false;     // F25
  bool f26_freed_dynamic_replica_no_cooldown = false;  // F26
  bool f27_quota_rejection_per_attempt = false;     // F27
  bool f28_preemption_keeps_dfs_slot = false;       // F28
  bool f29_reaper_keeps_staged_replica = false;     // F29
  bool f30_failover_keeps_write_in_flight = false;  // F30
  bool operator==(const Faults&) const = default;
};

// Where a fault can show: in a sequential run (every campaign and `pinsim
// mutants`), or only when another client runs between two of the faulty
// code's synchronisation points (the scheduler's tests, sim/sched).
enum class FaultLane { Sequential, Interleaving };

struct FaultInfo {
  std::string_view name;
  std::string_view summary;
  bool Faults::*flag;
  FaultLane lane = FaultLane::Sequential;
  // An interleaving fault's hunt draws this preset's seeds instead of the
  // plain swarm's, when the swarm shows it too rarely (sim/presets.h); a
  // sequential fault names the preset whose seeds show it, where the plain
  // swarm never does (the dynamic-replication faults: the swarm draws no
  // dynamic_replication config; F29: its local_disk seeds seldom stage a promotion).
  std::string_view hunt_preset = "";
};

// Every fault, in catalogue order.
std::span<const FaultInfo> fault_catalogue();
// The fault named `name`, or nullptr.
const FaultInfo* find_fault(std::string_view name);
// Switches on the named faults; false with `error` set on an unknown name.
bool parse_faults(const std::vector<std::string>& names, Faults* out, std::string* error);

}  // namespace pinsim::embedded
