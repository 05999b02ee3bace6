// The preset table; see presets.h. Each shape runs after draw_swarm on the
// same Choices, so a preset seed is as reproducible as a swarm seed.
#include "presets.h"

#include <algorithm>

namespace pinsim {

namespace {

uint32_t& weight(WorkloadConfig& w, OpKind k) { return w.weights[static_cast<int>(k)]; }

// At least `n` of every op in `ops`: the area's ops are always drawn.
void at_least(WorkloadConfig& w, std::initializer_list<OpKind> ops, uint32_t n) {
  for (OpKind k : ops) weight(w, k) = std::max(weight(w, k), n);
}

void swarm(Choices&, WorkloadConfig&, Config&) {}

void groups(Choices& c, WorkloadConfig& w, Config&) {
  w.groups = std::max<uint32_t>(w.groups, 1 + static_cast<uint32_t>(c.pick(3)));
  w.keys = std::max<uint32_t>(w.keys, 4);
  at_least(w, {OpKind::PutStart, OpKind::PutEnd, OpKind::Get, OpKind::Exist, OpKind::Evict, OpKind::Advance}, 12);
  at_least(w, {OpKind::Remove}, 6);
}

void pins(Choices& c, WorkloadConfig& w, Config& m) {
  w.actors = std::max<uint32_t>(w.actors, 2);
  w.soft_pin_ttls = {0, 500, 5'000};
  at_least(w, {OpKind::UpsertStart, OpKind::UpsertEnd, OpKind::PutStart, OpKind::PutEnd}, 14);
  at_least(w, {OpKind::PutRevoke, OpKind::UpsertRevoke, OpKind::Cleanup, OpKind::Advance}, 6);
  if (c.chance(50))  // little room: replacements are refused (failure atomicity)
    for (SegmentConfig& s : m.segments) s.capacity = 64;
}

// Dynamic replication stays on two memory segments, where at most one
// target qualifies: with three, two empty ones tie, and Mooncake breaks the
// tie by a hash the rules do not state (the swarm draws it only with two).
// The draw is made either way, so the seed's stream does not move.
bool no_third_memory_segment(const Config& m) { return m.dynamic_replication.has_value(); }

void quotas(Choices& c, WorkloadConfig& w, Config& m) {
  w.tenants = std::max<uint32_t>(w.tenants, 2);
  draw_tenants(c, w.tenants, &m);
  w.hard_pin_pct = std::max<uint32_t>(w.hard_pin_pct, 10);
  at_least(w, {OpKind::PutStart, OpKind::UpsertStart, OpKind::PutEnd, OpKind::UpsertEnd, OpKind::Remove}, 10);
  at_least(w, {OpKind::Advance, OpKind::Get}, 6);  // leases expire, so quota eviction finds objects
  // Half the seeds on two or three 64-byte segments: a write within its
  // tenant's quota can still find no segment with room (two 32-byte objects
  // in two segments leave no 64-byte extent), so the charge taken before
  // allocation must be refunded.
  if (c.chance(50)) {
    size_t memory = 0;
    for (SegmentConfig& s : m.segments)
      if (s.kind == ReplicaKind::Memory) s.capacity = 64, ++memory;
    for (; memory < 2 || (memory < 3 && c.chance(50) && !no_third_memory_segment(m)); ++memory)
      m.segments.push_back({ReplicaKind::Memory, 64});  // quotas seed 28918: a propose's tie
  } else if (c.chance(50)) {
    // Roomy segments, where no size fragments them: 1-byte objects too, and
    // segments that leave (graceful unmount), so a write within quota finds
    // no segment and the smallest charge, 1 byte, is refunded. Not on 64-byte
    // segments, where odd sizes meet the real allocator's holes, which the
    // model does not place by (docs/interpretations.md, "Allocation"). The
    // swarm's draw may have left tiny segments here: then no 1-byte writes
    // (found as a refused Upsert at quotas seed 5284; the draws stay the same).
    const bool tiny = std::any_of(m.segments.begin(), m.segments.end(), [](const SegmentConfig& s) {
      return s.kind == ReplicaKind::Memory && s.capacity <= 64;
    });
    if (!tiny) w.sizes = {1, 32, 64};
    at_least(w, {OpKind::Mount}, 3);
    at_least(w, {OpKind::Unmount, OpKind::GracefulUnmount}, 2);
  }
  if (c.chance(50)) w.groups = std::max<uint32_t>(w.groups, 2);  // quota eviction of whole groups
  at_least(w, {OpKind::SetQuota, OpKind::DeleteQuota, OpKind::Snapshot, OpKind::Restore}, 2);  // policies change
}

void restore(Choices&, WorkloadConfig& w, Config&) {
  at_least(w, {OpKind::PutStart, OpKind::PutEnd, OpKind::Snapshot, OpKind::Restore, OpKind::Advance}, 10);
  at_least(w, {OpKind::Failover}, 4);  // in HA-OpLog mode's seeds (draw_seed clears it in the others)
}

void pressure(Choices& c, WorkloadConfig& w, Config& m) {
  w.keys = std::max<uint32_t>(w.keys, 5);
  // 64-byte segments: with sizes 32 and 64 every free byte is one extent, so
  // Mooncake's offset allocator and the model's byte count agree (a 256-byte
  // segment fragments: docs/interpretations.md, "Allocation").
  for (SegmentConfig& s : m.segments) s.capacity = 64;
  if (c.chance(50) && !no_third_memory_segment(m)) m.segments.push_back({ReplicaKind::Memory, 64});
  at_least(w, {OpKind::Evict, OpKind::PutStart, OpKind::PutEnd, OpKind::UpsertStart, OpKind::Advance}, 12);
}

void retention(Choices& c, WorkloadConfig& w, Config& m) {
  w.groups = std::max<uint32_t>(w.groups, 2);
  m.max_retained_groups = c.pick(4);
  at_least(w, {OpKind::RetainGroups, OpKind::PutStart, OpKind::PutEnd, OpKind::Evict, OpKind::Advance}, 12);
}

void expiry(Choices&, WorkloadConfig& w, Config&) {
  w.soft_pin_ttls = {1, 500, 5'000};
  w.aim_pct = 70;
  at_least(w, {OpKind::PutStart, OpKind::PutEnd, OpKind::Cleanup, OpKind::Get, OpKind::Exist, OpKind::Advance}, 10);
}

// Segments leave (at once, or gracefully: still readable, taking nothing new)
// and come back while objects are pinned, grouped, written and snapshotted:
// two or three memory segments, so objects keep replicas elsewhere as often
// as they lose their last one.
void segments(Choices& c, WorkloadConfig& w, Config& m) {
  size_t memory = 0;
  for (const SegmentConfig& s : m.segments) memory += s.kind == ReplicaKind::Memory;
  for (; memory < 2 || (memory < 3 && c.chance(50) && !no_third_memory_segment(m)); ++memory)
    m.segments.insert(m.segments.begin(), {ReplicaKind::Memory, m.segments.front().capacity});
  w.max_memory_replicas = std::max<uint32_t>(w.max_memory_replicas, 2);
  at_least(w, {OpKind::PutStart, OpKind::UpsertStart, OpKind::PutEnd, OpKind::UpsertEnd, OpKind::Get}, 10);
  at_least(w, {OpKind::Unmount}, 2);
  at_least(w, {OpKind::Mount}, 4);
  at_least(w, {OpKind::GracefulUnmount}, 2);
  at_least(w, {OpKind::Snapshot, OpKind::Restore, OpKind::Evict, OpKind::Advance}, 3);
}

// Disk mode (a storage backend): every write also gets a disk replica that
// only an End naming disk completes. Memory is evicted, segments leave and
// snapshots are taken while disk Ends are still to come, so objects live on
// their disk replica alone; half the seeds in multi-tenant mode, where such
// an object is charged nothing but is still its tenant's.
void disk(Choices& c, WorkloadConfig& w, Config& m) {
  m.disk_replica = true;
  if (c.chance(50)) {
    w.tenants = std::max<uint32_t>(w.tenants, 2);
    draw_tenants(c, w.tenants, &m);
    at_least(w, {OpKind::SetQuota, OpKind::DeleteQuota}, 3);
  }
  at_least(w, {OpKind::PutStart, OpKind::PutEnd, OpKind::UpsertStart, OpKind::UpsertEnd, OpKind::Get}, 10);
  at_least(w, {OpKind::Evict, OpKind::Advance, OpKind::PutRevoke, OpKind::UpsertRevoke, OpKind::Remove}, 6);
  at_least(w, {OpKind::Snapshot, OpKind::Restore, OpKind::Unmount, OpKind::Mount}, 2);
}

// Copies (rules copy.*) of pinned, grouped and in-flight objects onto two or
// three memory segments, while writes end, segments leave, memory is evicted,
// copies time out and snapshots are taken; half the seeds in disk mode, where
// a write is still under way when a copy of its memory replica starts; half
// in multi-tenant mode, where a copy is charged from its start and a refused
// one (no room on a 64-byte target) must give the charge back.
void copies(Choices& c, WorkloadConfig& w, Config& m) {
  size_t memory = 0;
  for (const SegmentConfig& s : m.segments) memory += s.kind == ReplicaKind::Memory;
  for (; memory < 2 || (memory < 3 && c.chance(50) && !no_third_memory_segment(m)); ++memory)
    m.segments.insert(m.segments.begin(), {ReplicaKind::Memory, m.segments.front().capacity});
  if (c.chance(50)) m.disk_replica = true;
  if (c.chance(50)) {
    w.tenants = std::max<uint32_t>(w.tenants, 2);
    draw_tenants(c, w.tenants, &m);
    at_least(w, {OpKind::SetQuota}, 2);
    if (c.chance(50))
      for (SegmentConfig& s : m.segments) s.capacity = 64;
  }
  if (c.chance(50)) {  // copies and writes time out within a run (Mooncake: release > discard, whole seconds)
    m.put_start_discard_timeout_ms = 1'000;
    m.put_start_release_timeout_ms = 1'000 * (2 + c.pick(3));
  }
  w.max_memory_replicas = std::max<uint32_t>(w.max_memory_replicas, 2);
  at_least(w, {OpKind::CopyStart, OpKind::CopyEnd, OpKind::PutStart, OpKind::PutEnd, OpKind::Get}, 10);
  at_least(w, {OpKind::CopyRevoke, OpKind::UpsertStart, OpKind::Remove, OpKind::Evict, OpKind::Advance}, 4);
  at_least(w, {OpKind::Snapshot, OpKind::Restore, OpKind::Unmount, OpKind::Mount, OpKind::RemoveAll}, 2);
}

// Dynamic replication (rules dynrep.*) on two memory segments (where the
// rules fix a proposal's target): hot keys from heavy reads, proposals with
// repeating ids, the leases' copies (and stale or foreign tokens) while
// writes replace objects, memory is evicted, segments leave (at once or
// gracefully, the leased copy's segments mostly, so a leased copy meets its
// target leaving) and time passes
// the 30-s lease and 60-s recreate cooldowns; a third of the seeds in disk
// mode (objects read from disk alone), half in multi-tenant mode (quota
// eviction takes dynamic replicas).
void dynamic(Choices& c, WorkloadConfig& w, Config& m) {
  m.segments = {{ReplicaKind::Memory, m.segments.front().capacity}, {ReplicaKind::Memory, m.segments.front().capacity}};
  const uint32_t windows[] = {1, 5, 10, 30};
  m.dynamic_replication = DynamicReplication{windows[c.pick(4)], 1 + static_cast<uint32_t>(c.pick(3)),
                                             c.chance(70) ? 2u : 1u + 2 * static_cast<uint32_t>(c.pick(2))};
  if (c.chance(33)) m.disk_replica = true;
  w.tenants = 1;
  if (c.chance(50)) {
    w.tenants = 2;
    draw_tenants(c, w.tenants, &m);
  }
  w.keys = 2 + static_cast<uint32_t>(c.pick(2));
  w.actors = 2;
  w.sizes = {32, 64, 128};
  w.advance_steps = {1, 10, 250, 1'000, 5'000, 30'001, 60'001};  // within windows, past the 30-s and 60-s cooldowns
  w.aim_pct = 20;
  w.max_memory_replicas = c.chance(70) ? 1 : 2;  // one replica mostly: the dynamic copy makes the second
  w.weights.fill(0);  // a mix of its own: reads, proposals and copies; writes enough to keep objects coming
  at_least(w, {OpKind::Get}, 20);
  at_least(w, {OpKind::Propose}, 14);
  at_least(w, {OpKind::CopyStart, OpKind::CopyEnd, OpKind::PutStart, OpKind::PutEnd}, 8);
  at_least(w, {OpKind::BatchGet}, 6);
  at_least(w, {OpKind::Advance}, 4);
  at_least(w, {OpKind::UpsertStart, OpKind::UpsertEnd}, 3);
  at_least(w, {OpKind::Mount, OpKind::Exist}, 2);
  // Graceful unmounts at 3: a lease's target an actor mounted is mostly the one taken (segment_op), and
  // the leased copy after it then meets its target leaving.
  at_least(w, {OpKind::GracefulUnmount}, 3);
  at_least(w, {OpKind::CopyRevoke, OpKind::PutRevoke, OpKind::Unmount, OpKind::Snapshot}, 1);
  if (c.chance(30)) at_least(w, {OpKind::Restore}, 1);  // a restore without a snapshot empties the master
  at_least(w, {OpKind::Remove, OpKind::Evict, OpKind::Cleanup, OpKind::BatchUpsertStart, OpKind::BatchUpsertEnd}, 1);
  if (m.multi_tenant) at_least(w, {OpKind::SetQuota}, 1);
}

// DFS replicas (rules dfs.*): one to three slots, so writes compete for
// them (half the writes ask for one); Ends and Revokes naming memory or DFS
// alone leave the other PROCESSING; Upserts in place and size changes;
// memory evicted and segments lost under DFS replicas; a third of the seeds
// in disk mode too.
void dfs(Choices& c, WorkloadConfig& w, Config& m) {
  m.dfs_slots = 1 + static_cast<uint32_t>(c.pick(3));
  if (c.chance(33)) m.disk_replica = true;
  at_least(w, {OpKind::PutStart, OpKind::PutEnd, OpKind::UpsertStart, OpKind::UpsertEnd, OpKind::Get}, 10);
  at_least(w, {OpKind::PutRevoke, OpKind::UpsertRevoke, OpKind::Remove, OpKind::Evict, OpKind::Advance}, 6);
  at_least(w, {OpKind::RemoveAll, OpKind::Unmount, OpKind::Mount, OpKind::Cleanup, OpKind::BatchUpsertStart}, 2);
}

// The local-disk tier (rules local.*): offloads taken and reported (some
// failing), memory evicted under them, reads of objects left on the disk,
// promotions staged, settled and timed out, Upserts and removals (RemoveAll
// too) meeting both, segments lost under staged replicas. Alone with the mechanisms it is
// not combined with yet.
void local(Choices& c, WorkloadConfig& w, Config& m) {
  m.multi_tenant = false;
  m.tenant_quota_bytes.clear();
  m.disk_replica = false;
  m.dfs_slots = 0;
  m.dynamic_replication.reset();
  w.tenants = 1;
  w.keys = 2 + static_cast<uint32_t>(c.pick(3));  // few keys: the tier's ops name keys at random, as every op does
  set_local_disk(&w, &m, 6 + static_cast<uint32_t>(c.pick(5)));
  at_least(w, {OpKind::PutStart, OpKind::PutEnd, OpKind::Get, OpKind::Evict}, 10);
  at_least(w, {OpKind::UpsertStart, OpKind::UpsertEnd, OpKind::Remove, OpKind::Advance, OpKind::BatchGet}, 4);
  at_least(w, {OpKind::Unmount, OpKind::Mount, OpKind::Cleanup, OpKind::RemoveAll}, 1);
}

constexpr Preset kPresets[] = {
    {"swarm", "the plain swarm draw", &swarm},
    {"groups", "groups with reads, leases, removal and grouped eviction", &groups},
    {"pins", "soft pins across upserts, preemption and revoke, often with no room left", &pins},
    {"quotas", "multi-tenant mode: several tenants under tight quotas, quota eviction (of groups too), hard pins, "
               "policies set and deleted at run time", &quotas},
    {"restore", "snapshots and restores between writes (and failovers in HA-OpLog mode)", &restore},
    {"pressure", "eviction under memory pressure on small segments", &pressure},
    {"retention", "group retention at a small admission cap", &retention},
    {"expiry", "short pins, aimed advances and cleanup", &expiry},
    {"segments", "memory segments unmounted and mounted again under pinned, grouped and in-flight writes", &segments},
    {"disk", "disk mode: every write also gets a disk replica; memory evicted and segments lost under it", &disk},
    {"copies", "copies of pinned and in-flight objects while writes end, segments leave, memory is evicted, copies "
               "time out and snapshots are taken", &copies},
    {"dynamic", "dynamic replication: hot keys, proposals and their leases' copies while objects change, memory is "
                "evicted and segments leave", &dynamic},
    {"dfs", "DFS replicas: writes competing for a few DFS slots, Ends and Revokes of one kind, Upserts, memory "
            "evicted and segments lost under them", &dfs},
    {"local", "the local-disk tier: offloads and promotions taken, reported and timed out while memory is evicted, "
              "objects are read, upserted and removed and segments leave", &local},
};

}  // namespace

std::span<const Preset> presets() { return kPresets; }

const Preset* find_preset(std::string_view name) {
  for (const Preset& p : kPresets)
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace pinsim
