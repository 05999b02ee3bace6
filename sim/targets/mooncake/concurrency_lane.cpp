// The Mooncake concurrency lane; see concurrency_lane.h.
#include "concurrency_lane.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <variant>

#include "choices.h"
#include "field_diff.h"
#include "lock_order.h"
#include "model.h"
#include "policies.h"
#include "mooncake_target.h"
#include "runner.h"
#include "scheduler.h"

namespace pinsim::mooncake_lane {

namespace {

constexpr KeyId kKeys = 4;
constexpr Time kNow = 20'000;  // after the prefix's short pins (1 s) are due and its first leases (10 s) ran out

Op key_op(OpKind kind, ClientId client, KeyId key) {
  Op op;
  op.kind = kind;
  op.client = client;
  op.object = {0, key};
  return op;
}

// A start of `kind` with a soft-pin request drawn from `c`: none, Enable with
// a TTL that is due before kNow (in the prefix) or long after it, or Disable.
Op start_op(OpKind kind, ClientId client, KeyId key, Choices& c) {
  Op op = key_op(kind, client, key);
  op.size = 1024 * (1 + c.pick(4));
  op.memory_replicas = 1;
  switch (c.pick(4)) {
    case 0: break;
    case 1: op.soft_pin = {static_cast<uint8_t>(SoftPinAction::Enable), 1000}; break;
    case 2: op.soft_pin = {static_cast<uint8_t>(SoftPinAction::Enable), 60'000}; break;
    default: op.soft_pin = {static_cast<uint8_t>(SoftPinAction::Disable), std::nullopt}; break;
  }
  return op;
}

std::vector<std::pair<Time, Op>> make_prefix(Choices& c) {
  std::vector<std::pair<Time, Op>> prefix;
  for (KeyId k = 1; k <= kKeys; ++k) {
    if (!c.chance(80)) continue;
    const Time t = static_cast<Time>(10 * k);
    prefix.push_back({t, start_op(OpKind::PutStart, 9, k, c)});
    prefix.push_back({t, key_op(OpKind::PutEnd, 9, k)});
  }
  // A read at 15 s: its lease (10 s) still protects the object at kNow.
  if (c.chance(50)) prefix.push_back({15'000, key_op(OpKind::Get, 9, 1 + c.pick(kKeys))});
  return prefix;
}

// Two calls of one client: a write of a key (start and end, or start and
// revoke), or two single calls among read, exist and remove.
std::vector<Op> client_script(ClientId client, Choices& c) {
  const KeyId key = 1 + c.pick(kKeys);
  switch (c.pick(4)) {
    case 0:
      return {start_op(OpKind::PutStart, client, key, c), key_op(OpKind::PutEnd, client, key)};
    case 1:
      return {start_op(OpKind::UpsertStart, client, key, c), key_op(OpKind::UpsertEnd, client, key)};
    case 2:
      return {start_op(OpKind::UpsertStart, client, key, c), key_op(OpKind::UpsertRevoke, client, key)};
    default: {
      const OpKind single[] = {OpKind::Get, OpKind::Exist, OpKind::Remove};
      return {key_op(single[c.pick(3)], client, key), key_op(single[c.pick(3)], client, 1 + c.pick(kKeys))};
    }
  }
}

Op retain_op(ClientId client, GroupId group, uint64_t ttl_ms) {
  Op op;
  op.kind = OpKind::RetainGroups;
  op.client = client;
  op.groups = {group};
  op.ttl_ms = ttl_ms;
  return op;
}

// On a tree with group retention (PR 2835), from a stream of its own (other
// draws stay as they are): at most two retained groups; the prefix's objects
// belong to g1, g2 or no group, and retains g1 (due before the run) and g2
// (due before or long after it); a client in two retains one of g1..g3 as its
// second call. RetainGroups then races the task-cleanup cycle's prune (the
// cleanup actor on this tree) and the writes to the groups it leases. One
// group per call: with several, the order of admission at the cap follows
// RetainGroups' random start shard, which this tree cannot seed.
void add_retention(uint64_t seed, Scenario& s) {
  if (!mooncake_target_supports(retain_op(1, 1, 1000), s.config)) return;
  RandomChoices r(seed * 0x9E3779B97F4A7C15ull + 2);
  s.config.max_retained_groups = 2;
  for (auto& [t, op] : s.prefix)
    if (op.kind == OpKind::PutStart) op.group = r.pick(3);
  s.prefix.push_back({50, retain_op(9, 1, 1000)});
  s.prefix.push_back({50, retain_op(9, 2, r.chance(50) ? 1000 : 60'000)});
  std::stable_sort(s.prefix.begin(), s.prefix.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < s.roles.size(); ++i)
    if (s.roles[i] == "client" && r.chance(50))
      s.scripts[i][1] = retain_op(s.scripts[i][1].client, 1 + r.pick(3), r.chance(50) ? 1000 : 60'000);
}

// On a tree without group retention, from a stream of its own (other draws
// stay as they are): in half of the seeds each key belongs to g1, g2 or no
// group, named by every start of it. A grouped key lives in its group's shard
// and is found through the group route (object_group_ids_), which a
// replacement (UpsertStart Case C, a Start over a stale write) erases with the
// old object and sets again with the new one while calls on the key run.
void add_groups(uint64_t seed, Scenario& s) {
  if (mooncake_target_supports(retain_op(1, 1, 1000), s.config)) return;  // add_retention's tree
  RandomChoices r(seed * 0x9E3779B97F4A7C15ull + 3);
  if (!r.chance(50)) return;
  GroupId group_of[kKeys + 1] = {};
  for (KeyId k = 1; k <= kKeys; ++k) group_of[k] = r.pick(3);
  auto name_group = [&](Op& op) {
    if (op.kind == OpKind::PutStart || op.kind == OpKind::UpsertStart) op.group = group_of[op.object.key];
  };
  for (auto& [t, op] : s.prefix) name_group(op);
  for (auto& script : s.scripts)
    for (Op& op : script) name_group(op);
}

// Whether `script` starts a write of `key` (its placement is then the
// running thread's random draw, which the model does not follow).
bool writes_key(const std::vector<Op>& script, KeyId key) {
  for (const Op& op : script) {
    if ((op.kind == OpKind::PutStart || op.kind == OpKind::UpsertStart) && op.object.key == key) return true;
    if (op.kind == OpKind::BatchUpsertStart && std::count(op.keys.begin(), op.keys.end(), key)) return true;
  }
  return false;
}

// Whether the tree has every call of `script` (a tree without one keeps the
// client's own script; the draws are made either way).
bool supported(const std::vector<Op>& script, const Config& config) {
  return std::all_of(script.begin(), script.end(), [&](const Op& op) { return mooncake_target_supports(op, config); });
}

// Two distinct keys of 1..kKeys, in the order drawn.
std::vector<KeyId> two_keys(Choices& c) {
  const KeyId a = 1 + c.pick(kKeys);
  const KeyId b = 1 + (a + c.pick(kKeys - 1)) % kKeys;
  return {a, b};
}

Op batch_op(OpKind kind, ClientId client, std::vector<KeyId> keys) {
  Op op = key_op(kind, client, 0);
  op.keys = std::move(keys);
  return op;
}

// A batch read or remove of two keys, a batch upsert of two with its End or
// Revoke, or RemoveAll then a read.
std::vector<Op> wide_script(ClientId client, Choices& c) {
  switch (c.pick(4)) {
    case 0: {
      const OpKind reads[] = {OpKind::BatchGet, OpKind::BatchExist};
      return {batch_op(reads[c.pick(2)], client, two_keys(c)), batch_op(OpKind::BatchRemove, client, two_keys(c))};
    }
    case 1:
    case 2: {
      Op start = start_op(OpKind::UpsertStart, client, 0, c);  // its write config and pin request
      start.kind = OpKind::BatchUpsertStart;
      start.keys = two_keys(c);
      start.sizes = {start.size, 1024 * (1 + c.pick(4))};
      const OpKind end = c.chance(70) ? OpKind::BatchUpsertEnd : OpKind::BatchUpsertRevoke;
      return {start, batch_op(end, client, start.keys)};
    }
    default: {
      Op all = key_op(OpKind::RemoveAll, client, 0);
      all.force = c.chance(50);
      return {all, key_op(OpKind::Get, client, 1 + c.pick(kKeys))};
    }
  }
}

// A copy of `key` by `client` from the segment of its COMPLETE memory
// replica after the prefix to the other segment, then the copy's End or
// Revoke; nullopt when the prefix left no such replica.
std::optional<std::vector<Op>> copy_script(const Model& after_prefix, ClientId client, KeyId key, Choices& c) {
  const auto* entry = after_prefix.objects().find({0, key});
  if (!entry) return std::nullopt;
  for (const Replica& r : entry->second.replicas) {
    if (!r.complete_memory()) continue;
    Op start = key_op(OpKind::CopyStart, client, key);
    start.segment = r.segment;
    start.targets = {1 - r.segment};
    return std::vector<Op>{start, key_op(c.chance(70) ? OpKind::CopyEnd : OpKind::CopyRevoke, client, key)};
  }
  return std::nullopt;
}

// Wider calls, from a stream of their own (other draws stay as they are): in
// half of the seeds each client, with chance 40%, runs a wide script instead
// of its own (wide_script), and then half of those a copy (copy_script) of a
// key no other script writes. A copy names its source segment, and inside
// the round each thread places replicas with its own random engine, which
// the model does not follow; the prefix runs on the setup's thread, whose
// placement the model reproduces, so the copies are of the prefix's objects
// that nothing rewrites. Copies race the writes, reads and removes of the
// other keys, RemoveAll, eviction (a copy's source is not evicted) and the
// cleanup cycle.
void add_wide_calls(uint64_t seed, Scenario& s) {
  RandomChoices r(seed * 0x9E3779B97F4A7C15ull + 4);
  if (!r.chance(50)) return;
  std::vector<size_t> copies;
  for (size_t i = 0; i < s.roles.size(); ++i) {
    if (s.roles[i] != "client" || !r.chance(40)) continue;
    const ClientId client = s.scripts[i].front().client;
    std::vector<Op> wide = wide_script(client, r);
    if (supported(wide, s.config)) s.scripts[i] = std::move(wide);
    if (r.chance(50)) copies.push_back(i);
  }
  if (copies.empty()) return;
  auto created = Model::create(s.config);
  if (!std::holds_alternative<Model>(created)) return;
  Model model = std::get<Model>(std::move(created));
  for (const auto& [t, op] : s.prefix) model.apply(op, t);
  for (size_t i : copies) {
    const KeyId key = 1 + r.pick(kKeys);
    bool written = false;
    for (size_t j = 0; j < s.scripts.size(); ++j) written = written || (j != i && writes_key(s.scripts[j], key));
    if (written) continue;
    const ClientId client = s.scripts[i].front().client;
    if (auto script = copy_script(model, client, key, r); script && supported(*script, s.config))
      s.scripts[i] = std::move(*script);
  }
}

// Multi-tenant mode, from a stream of its own (other draws stay as they
// are): in half of the seeds, on a tree that has it, each key belongs to
// tenant 0 or 1 and every call names its key's tenant (a batch its first
// key's, RemoveAll one drawn). Both tenants hold a 1 MiB quota policy while
// the prefix writes, so none of its writes is refused for quota, and its last
// steps tighten both to 2-9 KiB: the round's starts may then be refused for
// quota, evict their tenant's own objects between attempts and race each
// other's charges; a client's second call may set its tenant's quota.
void add_tenants(uint64_t seed, Scenario& s) {
  RandomChoices r(seed * 0x9E3779B97F4A7C15ull + 5);
  if (!r.chance(50)) return;
  Config config = s.config;
  config.multi_tenant = true;
  config.tenant_quota_bytes = {{0, 1u << 20}, {1, 1u << 20}};
  Op probe = key_op(OpKind::SetQuota, 9, 1);
  probe.object.tenant = 1;
  probe.quota_bytes = 4096;
  if (!mooncake_target_supports(probe, config)) return;
  s.config = config;
  TenantId tenant_of[kKeys + 1] = {};
  for (KeyId k = 1; k <= kKeys; ++k) tenant_of[k] = static_cast<TenantId>(r.pick(2));
  auto name_tenant = [&](Op& op) {
    if (op.kind == OpKind::RemoveAll) op.object.tenant = static_cast<TenantId>(r.pick(2));
    else if (!op.keys.empty()) op.object.tenant = tenant_of[op.keys.front()];
    else if (op.object.key >= 1 && op.object.key <= kKeys) op.object.tenant = tenant_of[op.object.key];
  };
  auto tight = [&](ClientId client, TenantId tenant) {
    Op op = key_op(OpKind::SetQuota, client, 0);
    op.object.tenant = tenant;
    op.quota_bytes = 1024 * (2 + r.pick(8));
    return op;
  };
  for (auto& [t, op] : s.prefix) name_tenant(op);
  for (TenantId t = 0; t < 2; ++t) s.prefix.push_back({16'000, tight(9, t)});
  for (size_t i = 0; i < s.scripts.size(); ++i) {
    if (s.roles[i] != "client") continue;
    for (Op& op : s.scripts[i]) name_tenant(op);
    if (r.chance(20)) s.scripts[i][1] = tight(s.scripts[i][1].client, static_cast<TenantId>(r.pick(2)));
  }
}

// Unmounts, from a stream of their own (other draws stay as they are): in a
// quarter of the seeds one client's second call unmounts a memory segment
// (UnmountSegment), while the other clients write, read and remove keys
// whose replicas may be on it, and eviction and cleanup run. Not a graceful
// unmount: its first use starts MasterService's deadline-scheduler thread, a
// loop that never ends, which the lane would run inline on the actor
// (README.md, "Unmounts"). In half of those seeds (since session 41) the
// unmount's sweep waits until after the round's calls, as the replica-cleanup
// worker may make it wait, and the unmount is the client's first call: the
// client's own next call, and any other that begins after UnmountSegment has
// returned, meets the objects it left without a replica (README.md, "The
// sweep after the round").
void add_unmounts(uint64_t seed, Scenario& s) {
  RandomChoices r(seed * 0x9E3779B97F4A7C15ull + 6);
  if (!r.chance(25)) return;
  const size_t i = r.pick(s.roles.size());
  const uint32_t segment = static_cast<uint32_t>(r.pick(s.config.segments.size()));
  if (s.roles[i] != "client") return;
  Op op = key_op(OpKind::Unmount, s.scripts[i].front().client, 0);
  op.segment = segment;
  if (!mooncake_target_supports(op, s.config)) return;
  s.sweep_after_round = r.chance(50);
  if (s.sweep_after_round) s.scripts[i] = {op, s.scripts[i].front()};  // its own next call is in the window
  else s.scripts[i].back() = op;
}

// Fresh keys for Puts, from a stream of their own (other draws stay as they
// are): in half of the seeds the prefix leaves out its write of every key a
// client's PutStart names, so the round's Puts create objects instead of
// meeting the prefix's (OBJECT_ALREADY_EXISTS, which most Puts answered
// before). Two clients may then create one key at once, and a creation races
// the reads, removes, upserts, eviction and quota charges of that key.
void add_fresh_puts(uint64_t seed, Scenario& s) {
  RandomChoices r(seed * 0x9E3779B97F4A7C15ull + 7);
  if (!r.chance(50)) return;
  std::set<KeyId> put_keys;
  for (const auto& script : s.scripts)
    for (const Op& op : script)
      if (op.kind == OpKind::PutStart) put_keys.insert(op.object.key);
  std::erase_if(s.prefix, [&](const std::pair<Time, Op>& step) {
    const Op& op = step.second;
    return (op.kind == OpKind::PutStart || op.kind == OpKind::PutEnd) && put_keys.count(op.object.key);
  });
}

// Eviction targets below 100%, from a stream of their own (other draws stay
// as they are): in half of the seeds the evict actor asks for 75, 50 or 25%
// of the candidates, with a lower bound of the target or half of it, as
// MasterService's eviction thread asks (its lower bound is at least half its
// target). Pass 1 then stops at its cutoff and leaves the later candidates to
// pass 2's list, and pass 2 takes some of them, in shard order from
// BatchEvict's seeded start. The check takes such an eviction in steps
// whether or not it overlaps a call (sim/sched/concurrent.h), so any order
// within a stage explains it. With `frontier`, half of those seeds (a stream
// of its own again) ask for 5% instead, the eviction thread's default ratio,
// below 10/44, where BatchEvict collects its frontier in a second scan and
// may refill pass 1 (the steps Collect and Refill; README.md, "Eviction
// targets below 100%").
void add_evict_target(uint64_t seed, Scenario& s, bool frontier) {
  RandomChoices r(seed * 0x9E3779B97F4A7C15ull + 8);
  if (!r.chance(50)) return;
  static constexpr uint32_t kTargets[] = {75, 50, 25};
  uint32_t target = kTargets[r.pick(3)];
  const bool half = r.chance(50);
  if (frontier && RandomChoices(seed * 0x9E3779B97F4A7C15ull + 9).chance(50)) target = 5;
  const uint32_t lowerbound = half ? target : target / 2;
  for (auto& script : s.scripts)
    for (Op& op : script)
      if (op.kind == OpKind::Evict) {
        op.evict_target_pct = target;
        op.evict_lowerbound_pct = lowerbound;
      }
}

std::string name_of(const Target& target, const void* lock) {
  std::string name = mooncake_lock_name(target, lock);
  return name.empty() ? "unnamed" : name;
}

// The documented order of MasterService's locks (master_service.h), by kind.
int rank(const std::string& kind) {
  static const std::map<std::string, int> order = {
      {"client_mutex", 1},  {"tenant_quota_policy_mutex", 2}, {"snapshot_mutex", 3},
      {"shard", 4},         {"tenant_quota_recompute_mutex", 5}, {"segment_manager", 6},
      {"tenant_quota_table", 6}, {"deadline_index", 7}};
  auto it = order.find(kind);
  return it == order.end() ? 0 : it->second;
}

}  // namespace

Background tree_actors() {
  Op cleanup;
  cleanup.kind = OpKind::Cleanup;
  return {.evict = mooncake_evict_is_seedable(), .cleanup = mooncake_target_supports(cleanup, Config{})};
}

Scenario make_scenario(uint64_t seed, uint32_t clients, Background background, Draws draws) {
  RandomChoices c(seed);
  Scenario s;
  s.config.profile = Profile::MooncakeMain;
  s.config.segments = {{ReplicaKind::Memory, 1u << 20}, {ReplicaKind::Memory, 1u << 20}};
  s.config.allow_evict_soft_pinned_objects = c.chance(50);
  s.prefix = make_prefix(c);
  for (uint32_t i = 0; i < clients; ++i) {
    s.scripts.push_back(client_script(1 + i, c));
    s.roles.push_back("client");
  }
  // The eviction thread's call: every candidate (100%), unless
  // add_evict_target draws less.
  Op evict;
  evict.kind = OpKind::Evict;
  evict.evict_target_pct = 100;
  evict.evict_lowerbound_pct = 100;
  if (background.evict) {
    s.scripts.push_back({evict});
    s.roles.push_back("evict");
  }
  Op cleanup;
  cleanup.kind = OpKind::Cleanup;
  if (background.cleanup) {
    s.scripts.push_back({cleanup});
    s.roles.push_back("cleanup");
  }
  // Hard pins from a stream of their own, so every other draw of a seed is
  // as it was before they were drawn: a fifth of the client writes ask for
  // one (a write after BatchEvict's census must still not be taken), on a
  // tree that has them (the draw is made either way).
  RandomChoices pins(seed * 0x9E3779B97F4A7C15ull + 1);
  for (auto& script : s.scripts)
    for (Op& op : script)
      if (op.kind == OpKind::PutStart || op.kind == OpKind::UpsertStart) {
        op.hard_pin = pins.chance(20);
        op.hard_pin = op.hard_pin && mooncake_target_supports(op, s.config);
      }
  add_retention(seed, s);
  add_groups(seed, s);
  if (draws.wide_calls) add_wide_calls(seed, s);
  if (draws.tenants) add_tenants(seed, s);
  if (draws.unmounts) add_unmounts(seed, s);
  if (draws.fresh_puts) add_fresh_puts(seed, s);
  if (draws.evict_targets) add_evict_target(seed, s, draws.frontier_targets);
  s.now = kNow;
  return s;
}

std::vector<Edge> named_lock_edges(const Target& target) {
  std::set<Edge> edges;
  for (const auto& [a, b] : lock_edges()) edges.insert({name_of(target, a), name_of(target, b)});
  return {edges.begin(), edges.end()};
}

namespace {

bool has_actor(const Scenario& s, const char* role) {
  return std::find(s.roles.begin(), s.roles.end(), role) != s.roles.end();
}

// How run_under names a failure: in full (no `known`, not `first_only`); up
// to the first one-call signature a `known` finding names; or by its first
// signature alone (`first_only`: a replay, whose signature is all the
// shrinker compares).
struct Naming {
  const std::vector<KnownFinding>& known;
  bool first_only = false;
};

// Names the violation of `r` (a decided one): its signatures, the first a
// known finding of `naming` accepts first. A naming search that runs past
// the budget leaves the violation unnamed (kNamingUndecided), never passed.
void name_violation(const Model& model, Time now, Capabilities caps, const Naming& naming, Result& r) {
  const std::vector<OpKind> used = ops_used(r.history);
  IsKnown is_known;
  if (naming.first_only)
    is_known = [](const std::string&) { return true; };
  else if (!naming.known.empty())
    is_known = [&](const std::string& s) { return match_known(naming.known, s, r.variant, used, r.conditions); };
  try {
    std::vector<std::string> signatures = violation_signatures(model, r.history, now, caps, is_known);
    r.signature = signatures.front();
    r.alternatives.assign(signatures.begin() + 1, signatures.end());
  } catch (const sched::SearchUndecided&) {  // its nearest order is past the budget
    r.signature = kNamingUndecided;
  }
}

// An eviction's holds of shard locks, in order, as (shard, clock), and how
// many came before its release of discarded replicas (the last hold of
// their lock, between pass 1 and pass 2), whose clock it sets as
// release_after.
struct Holds {
  std::vector<std::pair<size_t, uint64_t>> shards;
  size_t before_release = SIZE_MAX;
};
Holds shard_holds(const Target& target, sched::Call& c) {
  Holds holds;
  for (const auto& [lock, clock] : c.acquired) {
    const std::string lock_name = mooncake_lock_name(target, lock);
    if (lock_name == "discarded_replicas_mutex") c.release_after = clock, holds.before_release = holds.shards.size();
    if (lock_name.rfind("shard[", 0) == 0) holds.shards.push_back({std::stoul(lock_name.substr(6)), clock});
  }
  return holds;
}

// Whether the holds from `from` on, before hold `end`, scan shards 0..n-1
// one after the other (a scan's threads run inline, one after the other).
bool scans_at(const std::vector<std::pair<size_t, uint64_t>>& holds, size_t from, size_t n, size_t end) {
  if (n == 0 || from + n > std::min(end, holds.size())) return false;
  for (size_t i = 0; i < n; ++i)
    if (holds[from + i].first != i) return false;
  return true;
}

// BatchEvict's scans of every shard before its release, each as the hold it
// starts at (its hold of shard s is `from + s`). The census comes first; its
// length is the shard count. Below 10/44 with census candidates the collect
// comes right after it, and then either the shortfall guard's full collect,
// right after that too, or pass 1's visits of the collected candidates, one
// hold each, and, when pass 1 falls short, the refill's scan.
struct Scans {
  const Holds& holds;
  size_t n = 0;  // the shard count
  std::optional<size_t> census, collect, refill;
  // The clock of `scan`'s hold of `shard`, if it scanned it.
  std::optional<uint64_t> clock(std::optional<size_t> scan, size_t shard) const {
    if (!scan || shard >= n) return std::nullopt;
    return holds.shards[*scan + shard].second;
  }
};
Scans shard_scans(const Holds& holds) {
  const auto& h = holds.shards;
  const size_t end = holds.before_release;
  Scans scans{holds};
  while (scans.n < h.size() && h[scans.n].first == scans.n) ++scans.n;
  const size_t n = scans.n;
  if (n == 0) return scans;
  scans.census = 0;
  if (!scans_at(h, n, n, end)) return scans;
  scans.collect = n;
  if (scans_at(h, 2 * n, n, end)) return scans;  // the shortfall guard: no refill
  for (size_t from = 2 * n + 1; from + n <= std::min(end, h.size()); ++from)
    if (scans_at(h, from, n, end)) {
      scans.refill = from;
      break;
    }
  return scans;
}

// When each BatchEvict held what its Census, Collect, Refill and Release
// steps stand for (sched::Call::census_at, collect_at, refill_after,
// release_after): the holds of shard_scans and shard_holds. The census
// takes the discarded replicas' lock too, to discard a write's expired
// replicas, but nothing after the release does. A BatchEvict that collected
// and did not refill would have refilled before its release: its Refill
// steps come no earlier than that (on a correct master they then find
// nothing to do; on one that skips a refill it should take, the model's
// refill still sees what the master's would have).
// The holds are used for an object no write groups only: a group's members
// route to its shard, so a write that joins a group moves its key while the
// round runs, and the shard it routes to afterwards need not be the one the
// scans met.
void stamp_eviction(const Scenario& scenario, const Target& target, sched::History& h) {
  std::set<ObjectId> ids, grouped;
  auto name = [&](const Op& op) {
    std::vector<ObjectId> named{op.object};
    for (KeyId k : op.keys) named.push_back({op.object.tenant, k});
    for (ObjectId id : named) (op.group != 0 ? grouped : ids).insert(id);
  };
  for (const auto& [t, op] : scenario.prefix) name(op);
  for (const auto& script : scenario.scripts)
    for (const Op& op : script) name(op);
  for (sched::Call& c : h.calls) {
    if (c.op.kind != OpKind::Evict) continue;
    const Holds holds = shard_holds(target, c);
    Scans scans = shard_scans(holds);
    if (!collects_frontier(c.op.evict_target_pct)) scans.collect.reset(), scans.refill.reset();
    for (ObjectId id : ids) {
      const auto shard = grouped.count(id) ? std::nullopt : mooncake_shard_of(target, id);
      if (!shard) continue;
      if (const auto clock = scans.clock(scans.census, *shard)) c.census_at.push_back({id, *clock});
      if (const auto clock = scans.clock(scans.collect, *shard)) c.collect_at.push_back({id, *clock});
      if (const auto clock = scans.clock(scans.refill, *shard)) {
        c.refill_after.push_back({id, *clock});
      } else if (scans.collect && c.release_after) {
        c.refill_after.push_back({id, c.release_after});  // no refill: it would have scanned by the release
      }
    }
  }
}

Result run_under(const Scenario& scenario, const Naming& naming,
                 const std::function<sched::History(Target&)>& run_actors) {
  Result r;
  if (!mooncake_evict_is_seedable() && has_actor(scenario, "evict")) {
    r.error = kEvictNotSeedable;
    return r;
  }
  if (scenario.config.ha_oplog) {  // its writer's threads are outside the scheduler (oplog_mode.h)
    r.error = "the concurrency lane does not run HA-OpLog mode yet";
    return r;
  }
  auto target = make_mooncake_target(scenario.config, TargetOptions{}, &r.error);
  if (!target) return r;
  r.variant = std::string(target->variant());
  auto created = Model::create(scenario.config);
  if (auto* why = std::get_if<std::string>(&created)) {
    r.error = *why;
    return r;
  }
  Model model = std::get<Model>(std::move(created));
  for (const auto& [t, op] : scenario.prefix)
    if (!(target->apply(op, t) == model.apply(op, t))) {
      r.error = "the prefix already differs from the model at t=" + std::to_string(t);
      return r;
    }
  mooncake_defer_unmount_sweep(*target, scenario.sweep_after_round);
  const uint64_t inline_before = inline_threads_run();
  clear_lock_edges();
  {
    const sched::Scheduler::InterposerOff own_calls_only;  // as in mooncake_concurrency, which has no interposer
    r.history = run_actors(*target);
  }
  stamp_eviction(scenario, *target, r.history);
  r.inline_threads = inline_threads_run() - inline_before;
  // Not the bytes per segment: an actor's thread places replicas with its own
  // random engine (seeded by the adapter, unknown to the model), so only the
  // objects, gauges, deadlines and leases are compared.
  const Capabilities caps = target->capabilities() & ~kCapSegments;
  if (const auto& thrown = r.history.thrown) {  // a failure of its own, named by the exception's type
    r.violation = "actor " + std::to_string(thrown->actor) + " (" + scenario.roles.at(thrown->actor) + ")'s " +
                  thrown->describe();
    r.signature = thrown->signature();
  } else {
    try {
      r.violation = sched::check_linearizable(model, r.history, scenario.now, caps);
    } catch (const sched::SearchUndecided& e) {  // a failure no finding explains, never a pass
      r.violation = e.what();
      r.signature = sched::kUndecided;
    }
    if (r.violation) r.conditions = lane_conditions(model, r.history, scenario.now, scenario.sweep_after_round);
  }
  if (r.violation && r.signature.empty()) name_violation(model, scenario.now, caps, naming, r);
  r.edges = named_lock_edges(*target);
  for (const void* lock : r.history.run.lock_cycle) r.cycle.push_back(name_of(*target, lock));
  const auto& schedule = r.history.run.schedule;
  for (size_t i = 1; i < schedule.size(); ++i) r.switches += schedule[i] != schedule[i - 1];
  return r;
}

}  // namespace

Result run(const Scenario& scenario, uint64_t schedule_seed, uint32_t preempt_pct,
           const std::vector<KnownFinding>& known) {
  return run_under(scenario, {known}, [&](Target& target) {
    RandomChoices choices(schedule_seed);
    return sched::run_concurrent(target, scenario.scripts, scenario.now, choices, preempt_pct);
  });
}

Result run_pct(const Scenario& scenario, uint64_t schedule_seed, uint32_t depth,
               const std::vector<KnownFinding>& known) {
  // BatchEvict takes each of its 1,024 shard locks: a schedule with the evict
  // actor makes about 2,500 decisions, one without it about 100.
  const uint64_t expected = has_actor(scenario, "evict") ? 2500 : 100;
  return run_under(scenario, {known}, [&](Target& target) {
    RandomChoices choices(schedule_seed);
    sched::PctPolicy policy(choices, static_cast<uint32_t>(scenario.scripts.size()), depth, expected);
    return sched::run_concurrent(target, scenario.scripts, scenario.now, policy);
  });
}

Result replay(const Scenario& scenario, const std::vector<uint32_t>& schedule, bool* diverged, bool first_only) {
  sched::ReplayPolicy policy(schedule);
  Result r = run_under(scenario, {{}, first_only}, [&](Target& target) {
    return sched::run_concurrent(target, scenario.scripts, scenario.now, policy);
  });
  *diverged = policy.diverged() || r.history.run.schedule != schedule;
  return r;
}

Trace to_trace(const Scenario& scenario, const Result& result, uint64_t seed, uint32_t preempt_pct,
               uint32_t pct_depth) {
  Trace t;
  t.seed = seed;
  t.config = scenario.config;
  t.run = RunFlags{.target = "mooncake", .tree = result.variant};
  Time clock = 0;
  for (const auto& [time, op] : scenario.prefix) {
    if (time > clock) {  // the trace's clock moves only through advance steps
      Op advance;
      advance.kind = OpKind::Advance;
      advance.advance_ms = time - clock;
      t.steps.push_back({time, advance, std::nullopt, std::nullopt});
      clock = time;
    }
    t.steps.push_back({time, op, std::nullopt, std::nullopt});
  }
  ConcurrentRun c;
  c.settings.clients = static_cast<uint32_t>(std::count(scenario.roles.begin(), scenario.roles.end(), "client"));
  for (const std::string& role : scenario.roles)
    if (role != "client") c.settings.background.push_back(role);
  c.settings.ops_per_round = 2;
  c.settings.rounds = 1;
  c.settings.preempt_pct = preempt_pct;
  if (scenario.sweep_after_round) c.settings.unmount_sweep = "after_round";
  if (pct_depth > 0) c.settings.schedule = "pct", c.settings.pct_depth = pct_depth;
  c.rounds.push_back({scenario.now, scenario.scripts, result.history.run.schedule});
  t.concurrent = std::move(c);
  return t;
}

std::optional<Scenario> scenario_of(const Trace& trace, std::vector<uint32_t>* schedule, std::string* why) {
  if (!trace.concurrent || trace.concurrent->rounds.size() != 1) {
    *why = "$.concurrent: the Mooncake lane replays one concurrent round";
    return std::nullopt;
  }
  const ConcurrentRun& c = *trace.concurrent;
  Scenario s;
  s.config = trace.config;
  for (const TraceStep& step : trace.steps)
    if (step.op.kind != OpKind::Advance) s.prefix.push_back({step.t, step.op});
  s.scripts = c.rounds.front().scripts;
  s.roles.assign(c.settings.clients, "client");
  for (const std::string& b : c.settings.background) s.roles.push_back(b);
  if (s.roles.size() != s.scripts.size()) {
    *why = "$.concurrent.rounds[0].scripts: " + std::to_string(s.scripts.size()) + " scripts for " +
           std::to_string(s.roles.size()) + " actors";
    return std::nullopt;
  }
  s.now = c.rounds.front().t;
  s.sweep_after_round = c.settings.unmount_sweep == "after_round";
  if (!trace.steps.empty() && trace.steps.back().t > s.now) {
    *why = "$.concurrent.rounds[0].t: " + std::to_string(s.now) + " is before the last step";
    return std::nullopt;
  }
  *schedule = c.rounds.front().schedule;
  return s;
}

std::optional<Replayed> replay_recorded(const Trace& trace, std::string* why, bool first_only) {
  Replayed out;
  std::vector<uint32_t> schedule;
  std::optional<Scenario> scenario = scenario_of(trace, &schedule, why);
  if (!scenario) return std::nullopt;
  out.scenario = std::move(*scenario);
  out.result = replay(out.scenario, schedule, &out.diverged, first_only);
  if (!out.result.error.empty()) {
    *why = out.result.error;
    return std::nullopt;
  }
  const ConcurrentSettings& settings = trace.concurrent->settings;
  out.as_run = to_trace(out.scenario, out.result, trace.seed.value_or(0), settings.preempt_pct,
                        settings.schedule == "pct" ? settings.pct_depth : 0);
  out.as_run.seed = trace.seed;
  out.as_run.run = trace.run;
  out.as_run.description = trace.description;
  out.as_run.finding = trace.finding;
  return out;
}

RunResult replay_trace(const Trace& trace) {
  RunResult out;
  std::optional<Replayed> replayed = replay_recorded(trace, &out.error, true);
  if (!replayed) return out;
  const Result& r = replayed->result;
  out.variant = r.variant;
  out.trace = std::move(replayed->as_run);
  out.preemptions = r.history.run.preemptions;
  out.decisions = r.history.run.decisions;
  out.failure = failure_of(r);
  return out;
}

std::optional<Failure> failure_of(const Result& r) {
  Failure f;
  if (r.history.run.deadlock) f.what = "deadlock";
  else if (!r.cycle.empty()) f.what = "lock-cycle";
  else if (const auto& thrown = r.history.thrown) f.what = "exception", f.field = thrown->type, f.detail = *r.violation;
  else if (r.violation) f.what = "not-linearizable", f.field = r.signature, f.detail = *r.violation;
  if (f.what.empty()) return std::nullopt;
  return f;
}

namespace {

// Whether `search` finds an order. A search past the budget counts as none:
// a name claims only what a search decided, and the verdict stands.
template <typename Search>
bool found_within_budget(Search search) {
  try {
    return search();
  } catch (const sched::SearchUndecided&) {
    return false;
  }
}

// Whether an order explains the history's outcomes with the `free` calls'
// unchecked (sched::explain_outcomes), within the budget.
bool outcomes_explained(const Model& start, const sched::History& history, Time now, Capabilities caps,
                        const std::vector<size_t>& free = {}) {
  return found_within_budget([&] { return sched::explain_outcomes(start, history, now, caps, free).has_value(); });
}

// "<op>:<code>"; a batch's code is that of its element `element`, else of
// its first key's that is not OK, else OK.
std::string call_signature(const sched::Call& call, std::optional<size_t> element = std::nullopt) {
  const Outcome& o = call.outcome;
  std::string code(to_string(o.code));
  for (size_t e = 0; e < o.results.size(); ++e)
    if (element ? e == *element : o.results[e].code != ErrorCode::OK) {
      code = to_string(o.results[e].code);
      break;
    }
  if (std::find(o.retained.begin(), o.retained.end(), RetainResult::Full) != o.retained.end()) code = "full";
  return std::string(to_string(call.op.kind)) + ":" + code;
}

// The signature of call i, which no order can give its outcome: for a batch,
// of the first element whose key, taken out of the call with its result,
// lets an order give every outcome left (the element the defect shows in).
std::string signature_of(const Model& start, const sched::History& history, Time now, Capabilities caps, size_t i) {
  const sched::Call& call = history.calls[i];
  if (call.outcome.results.size() < 2 || call.outcome.results.size() != call.op.keys.size())
    return call_signature(call);
  for (size_t e = 0; e < call.op.keys.size(); ++e) {
    sched::History without = history;
    sched::Call& c = without.calls[i];
    c.op.keys.erase(c.op.keys.begin() + static_cast<std::ptrdiff_t>(e));
    if (!c.op.sizes.empty()) c.op.sizes.erase(c.op.sizes.begin() + static_cast<std::ptrdiff_t>(e));
    c.outcome.results.erase(c.outcome.results.begin() + static_cast<std::ptrdiff_t>(e));
    if (outcomes_explained(start, without, now, caps)) return call_signature(call, e);
  }
  return call_signature(call);
}

constexpr const char* kOutcomes = "not-linearizable/outcomes/";
constexpr const char* kAnd = " + ";  // joins the signatures of two calls (pairs_unchecked)

void add_once(std::vector<std::string>& out, std::string s) {
  if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(std::move(s));
}

// The signatures of every call i for which `explains(i)` holds (its outcome
// left unchecked, an order explains the rest), in call order, each once.
// With `is_known`, only the first of them it accepts, when it accepts one:
// the one match_result would find first in the full list, found without
// searching for the calls whose signature it cannot accept (each such search
// is exhaustive, and most of a failing schedule's time). A batch's signature
// may name an element, found by searches, so a batch is always tried. No
// call is searched twice.
template <typename Explains>
std::vector<std::string> freed_calls(const Model& start, const sched::History& history, Time now, Capabilities caps,
                                     Explains explains, const IsKnown& is_known) {
  std::vector<int> explained(history.calls.size(), -1);  // -1: not searched yet
  for (size_t i = 0; is_known && i < history.calls.size(); ++i) {
    const sched::Call& call = history.calls[i];
    const bool batch = call.outcome.results.size() >= 2;
    if (!batch && !is_known(kOutcomes + call_signature(call))) continue;
    if (!(explained[i] = explains(i))) continue;
    std::string s = kOutcomes + signature_of(start, history, now, caps, i);
    if (is_known(s)) return {s};
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < history.calls.size(); ++i) {
    if (explained[i] < 0) explained[i] = explains(i);
    if (explained[i]) add_once(out, kOutcomes + signature_of(start, history, now, caps, i));
  }
  return out;
}

// Whether a call charges its tenant's quota (multi-tenant mode).
bool charges(const Op& op) { return is_start(op.kind) || op.kind == OpKind::CopyStart; }

// Whether call j may have seen the effect of call i: it returns after i was
// invoked and names one of i's objects (a RemoveAll every object of its
// tenant), or both charge their tenant's quota. A call of no key (evict,
// cleanup, a quota) has no dependents.
bool depends(const sched::History& history, size_t i, size_t j) {
  const Op& op = history.calls[i].op;
  const Op& other = history.calls[j].op;
  if (j == i || history.calls[j].returned < history.calls[i].invoked) return false;
  const std::vector<ObjectId> ids = named_objects(op);
  if (ids.empty()) return false;
  const bool tenant = other.object.tenant == op.object.tenant;
  if ((other.kind == OpKind::RemoveAll && tenant) || (charges(op) && charges(other) && tenant)) return true;
  return std::any_of(ids.begin(), ids.end(), [&](ObjectId id) { return touches(other, id); });
}

// For each call, the call and every call that may have seen its effect,
// directly or through another such call.
std::vector<std::vector<size_t>> with_dependents(const sched::History& history) {
  std::vector<std::vector<size_t>> all;
  for (size_t i = 0; i < history.calls.size(); ++i) {
    std::vector<size_t> out{i};
    for (size_t next = 0; next < out.size(); ++next)
      for (size_t j = 0; j < history.calls.size(); ++j)
        if (std::find(out.begin(), out.end(), j) == out.end() && depends(history, out[next], j)) out.push_back(j);
    all.push_back(std::move(out));
  }
  return all;
}

// The calls that, with their outcome and those of their dependents
// (with_dependents) left unchecked, let an order explain every other
// outcome. A call whose wrong answer came with a wrong effect fails twice: a
// write refused where every order admits it (the model still writes, so the
// writer's End then answers otherwise than the target's), or a write
// admitted where every order refuses it (a read of the key then sees the
// write the model never made).
std::vector<std::string> with_dependents_unchecked(const Model& start, const sched::History& history, Time now,
                                                   Capabilities caps, const std::vector<std::vector<size_t>>& closure) {
  std::vector<std::string> out;
  for (size_t i = 0; i < history.calls.size(); ++i) {
    const std::vector<size_t>& free = closure[i];
    if (free.size() < 2 || free.size() == history.calls.size()) continue;  // every call unchecked names nothing
    if (outcomes_explained(start, history, now, caps, free))
      add_once(out, kOutcomes + call_signature(history.calls[i]));
  }
  return out;
}

// Two calls that, with their dependents, left unchecked together let an
// order explain every other outcome, where neither does alone: two defects in
// one history (a write refused by a quota update beside another admitted over
// its quota). Each pair as "<first> + <second>", which a known finding
// recognises only when findings name both (match_result).
std::vector<std::string> pairs_unchecked(const Model& start, const sched::History& history, Time now,
                                         Capabilities caps, const std::vector<std::vector<size_t>>& closure) {
  std::vector<std::string> out;
  const size_t n = history.calls.size();
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      std::vector<size_t> free = closure[i];
      if (std::find(free.begin(), free.end(), j) != free.end()) continue;  // j's closure is in i's: tried alone
      for (size_t k : closure[j])
        if (std::find(free.begin(), free.end(), k) == free.end()) free.push_back(k);
      if (free.size() == n || !outcomes_explained(start, history, now, caps, free)) continue;
      add_once(out, kOutcomes + call_signature(history.calls[i]) + kAnd + kOutcomes + call_signature(history.calls[j]));
    }
  return out;
}

// When no order gives every outcome: the calls that, their outcome left
// unchecked, let an order explain every other outcome ("retain_groups:full"
// when a group was refused); else the calls that do so with their
// dependents' outcomes left unchecked too (with_dependents_unchecked); else
// two such calls together (pairs_unchecked); else the first "<op>:<code>"
// that does so with every call that shares it left unchecked (two reads that
// both answer what no order gives); "-" when none does.
std::vector<std::string> unexplained_calls(const Model& start, const sched::History& history, Time now,
                                           Capabilities caps, const IsKnown& is_known) {
  std::vector<std::string> out = freed_calls(
      start, history, now, caps,
      [&](size_t i) { return outcomes_explained(start, history, now, caps, {i}); }, is_known);
  if (!out.empty()) return out;
  const std::vector<std::vector<size_t>> closure = with_dependents(history);
  out = with_dependents_unchecked(start, history, now, caps, closure);
  if (!out.empty()) return out;
  out = pairs_unchecked(start, history, now, caps, closure);
  if (!out.empty()) return out;
  std::set<std::string> tried;
  for (size_t i = 0; i < history.calls.size(); ++i) {
    const std::string signature = call_signature(history.calls[i]);
    if (!tried.insert(signature).second) continue;
    std::vector<size_t> alike;
    for (size_t j = 0; j < history.calls.size(); ++j)
      if (call_signature(history.calls[j]) == signature) alike.push_back(j);
    if (alike.size() > 1 && outcomes_explained(start, history, now, caps, alike)) return {kOutcomes + signature};
  }
  return {std::string(kOutcomes) + "-"};
}

}  // namespace

const KnownFinding* match_result(const std::vector<KnownFinding>& known, const Result& r, std::string* matched) {
  const std::vector<OpKind> used = ops_used(r.history);
  // A signature of two calls ("<first> + <second>") needs a finding for each.
  auto match = [&](const std::string& s) -> const KnownFinding* {
    const size_t at = s.find(kAnd);
    const KnownFinding* k = match_known(known, s.substr(0, at), r.variant, used, r.conditions);
    if (at == std::string::npos || !k) return k;
    return match_known(known, s.substr(at + std::string_view(kAnd).size()), r.variant, used, r.conditions) ? k
                                                                                                          : nullptr;
  };
  std::vector<std::string> all{r.signature};
  all.insert(all.end(), r.alternatives.begin(), r.alternatives.end());
  for (const std::string& s : all)
    if (const KnownFinding* k = match(s)) {
      if (matched) *matched = s;
      return k;
    }
  return nullptr;
}

std::string edge_signature(const Edge& e) { return "lock-order/" + lock_kind(e.from) + "/" + lock_kind(e.to); }

const KnownFinding* match_edge(const std::vector<KnownFinding>& known, const Result& r, const Edge& e) {
  return match_known(known, edge_signature(e), r.variant, ops_used(r.history), r.conditions);
}

namespace {

// Of the orders that give every call its outcome (up to kNamingOrders, one
// per end state), the one whose end departs least from the target's View,
// field for field. Orders that agree on every outcome may still place a
// start on other segments, and the first one found may lose an object the
// target keeps, so that its signature names a counter instead of what
// differs (lane seed 2477, session 34). A search too large for that falls
// back to the first order found.
constexpr size_t kNamingOrders = 8;
std::optional<sched::Explanation> closest_explanation(const Model& start, const sched::History& history, Time now,
                                                      Capabilities caps) {
  std::vector<sched::Explanation> found;
  try {
    found = sched::outcome_explanations(start, history, now, caps, kNamingOrders);
  } catch (const sched::SearchUndecided&) {
    return sched::explain_outcomes(start, history, now, caps);
  }
  if (found.empty()) return std::nullopt;
  const View target = masked(history.final_view, caps);
  size_t best = 0, fewest = SIZE_MAX;
  for (size_t i = 0; i < found.size(); ++i)
    if (const size_t n = diff_views(masked(found[i].end.view(now), caps), target).size(); n < fewest)
      best = i, fewest = n;
  return std::move(found[best]);
}

}  // namespace

std::vector<std::string> violation_signatures(const Model& start, const sched::History& history, Time now,
                                              Capabilities caps, const IsKnown& is_known) {
  const auto explained = closest_explanation(start, history, now, caps);
  if (!explained) return unexplained_calls(start, history, now, caps, is_known);
  // Some order gives every outcome but ends elsewhere: when one call's outcome,
  // left unchecked, lets an order explain the final View too, that call is
  // what no true order gives (an eviction can otherwise explain a missing key).
  std::vector<std::string> freed = freed_calls(
      start, history, now, caps,
      [&](size_t i) {
        return found_within_budget([&] { return !sched::explanations(start, history, now, caps, 1, {i}).empty(); });
      },
      is_known);
  if (!freed.empty()) return freed;
  const auto diffs = diff_views(masked(explained->end.view(now), caps), masked(history.final_view, caps));
  if (diffs.empty()) return {"not-linearizable/placement/-"};
  // An object's field names the difference better than the counters it moves.
  for (const FieldDiff& d : diffs)
    for (const auto& entry : explained->end.objects()) {
      if (object_name(entry.first) != d.object) continue;
      const Object& o = entry.second;
      return {"not-linearizable/view/" + d.field + ":" + (o.hard_pinned ? "hard" : o.deadline ? "soft" : "none")};
    }
  return {"not-linearizable/view/" + diffs.front().field + ":-"};
}

std::vector<OpKind> ops_used(const sched::History& history) {
  std::vector<OpKind> used;
  for (const sched::Call& call : history.calls)
    if (std::find(used.begin(), used.end(), call.op.kind) == used.end()) used.push_back(call.op.kind);
  return used;
}

std::string lock_kind(const std::string& name) { return name.substr(0, name.find('[')); }

bool against_lock_order(const Edge& e) {
  const int from = rank(lock_kind(e.from)), to = rank(lock_kind(e.to));
  return from > 0 && to > 0 && from > to;
}

}  // namespace pinsim::mooncake_lane
