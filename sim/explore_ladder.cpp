// The ladder's table and its climb; see explore_ladder.h.
#include "explore_ladder.h"

#include <algorithm>

namespace pinsim {

namespace {

const std::string kWrites = "put_start,put_end,upsert_start,upsert_end";
constexpr uint64_t kHugeTtl = UINT64_MAX;
constexpr uint32_t kDeepest = 64;  // the last rung's depth unless --depth bounds it (as --depth's own bound)

// What a rung does not set, as the default universe's flags have it
// (docs/explorer.md): one tenant and group, 32-byte writes of 0..1 memory
// replicas, RetainGroups of 0..1 groups for 500 or 5,000 ms, eviction to 100
// percent, no hard pins and no invalid requests.
WorkloadConfig rung_baseline() {
  WorkloadConfig w;
  w.tenants = w.groups = 1;
  w.sizes = {32};
  w.max_memory_replicas = 1;
  w.retention_ttls = {500, 5000};
  w.max_retain_groups = 1;
  w.evict_target_pcts = {100};
  w.invalid_request_pct = w.invalid_retain_pct = w.regroup_pct = w.group_shape_pct = w.hard_pin_pct = 0;
  w.weights = {};
  return w;
}

}  // namespace

// The ladder. Each row says why it is there, from what the seeded faults of
// the embedded master need (sim/targets/embedded/faults.cpp and each fault's
// code; the figures are in docs/status.md). The master-configuration rungs
// come before the deeper ones because they cost little. budget_pct sums the
// shares: a rung ends by that part of the budget, so the time an earlier rung
// did not use passes on; each rung but the last ends well before it on a
// loaded machine (docs/status.md). The default universe gets the last half:
// against the embedded master its depth 2 takes a few seconds and its depth
// 3 (tens of millions of transitions) no budget of minutes completes, while
// rung 11's depth 6 takes about 7 s after the rungs before it (13 s for rungs 1-9 in session 25).
const std::vector<LadderRung>& explore_ladder() {
  using M = RungMaster;
  static const std::string one_key =
      kWrites + ",put_revoke,get,remove,advance,cleanup,evict,snapshot,restore,retain_groups";
  static const std::vector<LadderRung> rungs{
      // name, keys, actors, ops, TTLs, steps, NoF, master, depth, budget by
      // A pin's whole life on one key of one actor: most faults show in 2-5 ops.
      {"one key", 1, 1, one_key, {500}, {1, 1000}, 1, M::Defaults, 5, 10},
      // A deadline near 2^64 ms wraps where it should saturate; Mooncake's default bounds refuse such TTLs.
      {"huge TTLs", 1, 1, kWrites + ",get,advance,cleanup,retain_groups,snapshot,restore", {500}, {1000}, 0,
       M::HugeTtls, 5, 12},
      // A Start refused for room after it replaced the old object (failure atomicity).
      {"little room", 1, 1, kWrites + ",put_revoke,upsert_revoke,remove,evict,advance", {500}, {1000}, 1,
       M::LittleRoom, 5, 14},
      // Quota eviction, and what it must not take (a hard pin).
      {"quotas", 1, 1, kWrites + ",remove,evict,advance,set_quota,delete_quota", {500}, {1000}, 0, M::Quotas, 5, 18},
      // Disk replicas: an object read, evicted or restored while it lives on its disk file.
      {"disk", 1, 1, kWrites + ",put_revoke,get,remove,evict,advance,snapshot,restore", {500}, {1000}, 0, M::Disk,
       5, 20},
      // A copy of a readable replica while its write is still in flight (disk mode), onto a second segment.
      {"copies", 1, 1, "put_start,put_end,copy_start,copy_end,copy_revoke,get", {500}, {1000}, 0, M::Copies, 5, 24},
      // Dynamic replication: a read makes the key hot, a proposal's lease, its copy revoked, the next proposal.
      {"dynamic", 1, 1, "put_start,put_end,get,propose,copy_start,copy_revoke", {500}, {1000}, 0, M::Dynamic, 8, 27},
      // DFS replicas: a slot held by a write, freed when it goes (preempted, revoked, replaced or removed).
      {"dfs", 1, 1, kWrites + ",put_revoke,upsert_revoke,remove,evict", {500}, {1000}, 0, M::Dfs, 4, 30},
      // The local-disk tier, 9 ops: a write ended, its offload taken and reported, the memory replica evicted, a
      // read from the disk, the promotion staged, the release timeout passed, the eviction pass that reaps it.
      {"local disk", 1, 1, "put_start,put_end,offload_take,offload_end,evict,get,promotion_start,promotion_end,advance",
       {500}, {601'000}, 0, M::LocalDisk, 9, 33},
      // A failover while a write is in flight, or after an upsert, a revoke or a removal: what the standby keeps.
      {"failover", 1, 1, kWrites + ",put_revoke,remove,get,advance,failover", {500}, {1000}, 0, M::HaOpLog, 4, 36},
      // 6 ops: a pin replaced by an upsert, then cleanup at the old deadline (a stale index entry);
      // an End with a checksum, time, an End without one, a read. Only the op kinds these use.
      {"deeper writes", 1, 1, kWrites + ",get,advance,cleanup", {500}, {1, 1000}, 1, M::Defaults, 6, 45},
      // Another client (preemption, a refused End): no seeded fault needs it; the cheapest step to two actors.
      {"two actors", 1, 2, one_key, {500}, {1000}, 1, M::Defaults, 4, 46},
      // Key 1 belongs to group 1: a group member that retention reaches (inherited, or copied into its pin).
      {"two keys", 2, 1, kWrites + ",put_revoke,get,remove,advance,cleanup,evict,retain_groups", {500}, {1000}, 1,
       M::Defaults, 4, 50},
      // The default universe (the flags' defaults), as deep as the rest of the budget allows.
      {"default universe", 0, 0, "", {}, {}, 0, M::Defaults, 0, 100, true},
  };
  return rungs;
}

const std::vector<std::string_view>& universe_flags() {
  static const std::vector<std::string_view> flags{"keys", "actors", "tenants", "groups", "replicas",
                                                   "nof", "ttls", "retention-ttls", "steps", "evict",
                                                   "retain-max", "invalid", "hard-pin", "ops"};
  return flags;
}

bool climbs_ladder(bool budget, const std::vector<std::string>& named) {
  const std::vector<std::string_view>& universe = universe_flags();
  return budget && std::none_of(named.begin(), named.end(), [&](const std::string& flag) {
           return std::find(universe.begin(), universe.end(), flag) != universe.end();
         });
}

namespace {

const char* master_name(RungMaster m) {
  switch (m) {
    case RungMaster::Defaults: return "";
    case RungMaster::HugeTtls: return "huge TTLs (bounds lifted, TTLs of 2^64 - 1 ms named)";
    case RungMaster::LittleRoom: return "little room (64-byte segments, 64-byte writes)";
    case RungMaster::Quotas: return "quotas (multi-tenant, a 64-byte quota, 32- and 64-byte writes; hard pins)";
    case RungMaster::Disk: return "disk mode";
    case RungMaster::Copies: return "disk mode, two memory segments";
    case RungMaster::Dynamic: return "dynamic replication (disk mode; one read makes a key hot)";
    case RungMaster::Dfs: return "DFS replicas (one slot)";
    case RungMaster::LocalDisk: return "the local-disk tier (the setup client's disk)";
    case RungMaster::HaOpLog: return "HA-OpLog mode (a standby reads the operation log)";
  }
  return "";
}

void apply_master(RungMaster m, WorkloadConfig& w, Config& c) {
  switch (m) {
    case RungMaster::Defaults: break;
    case RungMaster::HugeTtls:
      c.max_kv_soft_pin_ttl_ms = c.max_group_retention_ttl_ms = kHugeTtl;
      w.soft_pin_ttls.push_back(kHugeTtl);
      w.retention_ttls.push_back(kHugeTtl);
      break;
    case RungMaster::LittleRoom:
      for (SegmentConfig& s : c.segments) s.capacity = 64;
      w.sizes = {64};
      break;
    case RungMaster::Quotas:
      c.multi_tenant = true;
      c.tenant_quota_bytes = {{0, 64}};
      w.sizes = {32, 64};  // an upsert that changes the size is not done in place
      w.hard_pin_pct = 8;
      break;
    case RungMaster::Disk: c.disk_replica = true; break;
    case RungMaster::Copies:
      c.disk_replica = true;
      c.segments.push_back(c.segments.front());
      break;
    case RungMaster::Dynamic:
      c.disk_replica = true;
      c.dynamic_replication = DynamicReplication{10, 1, 2};
      break;
    case RungMaster::Dfs: c.dfs_slots = 1; break;
    case RungMaster::LocalDisk: c.local_disk = true; break;
    case RungMaster::HaOpLog: c.ha_oplog = true; break;
  }
}

std::string numbers(const std::vector<uint64_t>& list) {
  std::string out;
  for (const uint64_t n : list) out += (out.empty() ? "" : ",") + std::to_string(n);
  return out;
}

}  // namespace

std::string describe(const LadderRung& r) {
  if (r.default_universe) return "the default universe";
  std::string out = "--keys " + std::to_string(r.keys) + " --actors " + std::to_string(r.actors) + " --ops " + r.ops +
                    " --ttls " + numbers(r.ttls) + " --steps " + numbers(r.steps) + " --nof " + std::to_string(r.nof);
  if (r.master != RungMaster::Defaults) out += ", master: " + std::string(master_name(r.master));
  return out;
}

ExploreOptions rung_options(const LadderRung& r, const ExploreOptions& base, std::optional<uint32_t> max_depth) {
  ExploreOptions o = base;
  const uint32_t own = r.max_depth ? r.max_depth : kDeepest;
  o.max_depth = std::min(own, max_depth.value_or(own));
  if (r.default_universe) return o;
  WorkloadConfig& w = o.workload = rung_baseline();
  w.keys = r.keys;
  w.actors = r.actors;
  std::string unknown;  // none: RungsAreWellFormed checks the table
  if (auto weights = op_weights(r.ops, &unknown)) w.weights = *weights;
  w.soft_pin_ttls = r.ttls;
  w.advance_steps = r.steps;
  w.max_nof_replicas = r.nof;
  apply_master(r.master, w, o.config);
  return o;
}

const RungResult* LadderResult::found() const {
  return !rungs.empty() && rungs.back().result.counterexample ? &rungs.back() : nullptr;
}

bool LadderResult::stopped() const {
  return std::any_of(rungs.begin(), rungs.end(),
                     [](const RungResult& r) { return r.result.stopped || r.result.capped; });
}

LadderResult climb_ladder(const LadderOptions& options) {
  LadderResult out;
  bool explored = false;
  const std::vector<LadderRung>& rungs = explore_ladder();
  for (size_t i = 0; i < rungs.size(); ++i) {
    ExploreOptions o = rung_options(rungs[i], options.base, options.max_depth);
    if (options.budget) o.should_stop = options.budget(rungs[i].budget_pct);
    RungResult r{i, o.max_depth, explore(o)};
    if (r.result.refused.empty()) explored = true;
    else out.refused = r.result.refused;
    out.rungs.push_back(std::move(r));
    if (options.on_rung) options.on_rung(out.rungs.back());
    if (out.rungs.back().result.counterexample) break;
  }
  if (explored) out.refused.clear();
  return out;
}

}  // namespace pinsim
