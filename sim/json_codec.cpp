// Strict JSON codec for the vocabulary; see docs/trace-format.md.
#include "json_codec.h"
#include "trace.h"

#include <nlohmann/json.hpp>
#include <set>

namespace pinsim {

using nlohmann::json;

namespace {

// Reads one JSON object field by field, remembering which were read so that
// an unknown field is an error rather than a silent skip.
class Fields {
 public:
  Fields(const json& j, std::string path) : j_(j), path_(std::move(path)) {
    if (!j_.is_object()) fail(path_, "expected an object");
  }
  [[noreturn]] static void fail(const std::string& where, const std::string& why) {
    throw DecodeError(where + ": " + why);
  }
  std::string at(const char* key) const { return path_ + "." + key; }
  bool has(const char* key) const { return j_.contains(key); }
  const json& raw(const char* key) {
    seen_.insert(key);
      if (!j_.contains(key)) fail(path_, std::string("missing field '") + key + "'");
    return j_.at(key);
  }
  uint64_t u64(const char* key) {
    const json& v = raw(key);
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0))
      fail(at(key), "expected a non-negative integer");
    return v.get<uint64_t>();
  }
  uint64_t u64_or(const char* key, uint64_t dflt) { return has(key) ? u64(key) : dflt; }
  uint32_t u32_or(const char* key, uint32_t dflt) {
    const uint64_t v = u64_or(key, dflt);
    if (v > UINT32_MAX) fail(at(key), "value too large");
    return static_cast<uint32_t>(v);
  }
  bool boolean_or(const char* key, bool dflt) {
    if (!has(key)) return dflt;
    const json& v = raw(key);
    if (!v.is_boolean()) fail(at(key), "expected true or false");
    return v.get<bool>();
  }
  std::string str(const char* key) {
    const json& v = raw(key);
    if (!v.is_string()) fail(at(key), "expected a string");
    return v.get<std::string>();
  }
  void finish() const {
    for (auto it = j_.begin(); it != j_.end(); ++it)
      if (!seen_.count(it.key())) fail(path_ + "." + printable(it.key()), "unknown field");
  }

 private:
  const json& j_;
  std::string path_;
  std::set<std::string> seen_;
};

template <typename T, typename Parse>
T enum_field(Fields& f, const char* key, Parse parse, const char* what) {
  const std::string name = f.str(key);
  auto v = parse(name);
  if (!v) Fields::fail(f.at(key), std::string("unknown ") + what + " '" + name + "'");
  return *v;
}


constexpr const char* kRetainNames[] = {"accepted", "full", "invalid_params"};

}  // namespace

json encode_op(const Op& op) {
  json j;
  j["op"] = std::string(to_string(op.kind));
  const OpKind k = op.kind;
  if (has_field(k, kFieldTenant)) j["tenant"] = op.object.tenant;
  if (has_field(k, kFieldKey)) j["key"] = op.object.key;
  if (has_field(k, kFieldKeys)) j["keys"] = op.keys;
  if (has_field(k, kFieldPattern)) j["matches"] = op.keys;
  if (has_field(k, kFieldSizes)) j["sizes"] = op.sizes;
  if (has_field(k, kFieldSize)) j["size"] = op.size;
  if (has_field(k, kFieldQuota)) j["quota"] = op.quota_bytes;
  if (has_field(k, kFieldSegment)) j["segment"] = op.segment;
  if (has_field(k, kFieldTargets)) j["targets"] = op.targets;
  if (has_field(k, kFieldProposal) && op.proposal) j["proposal"] = *op.proposal;
  if (has_field(k, kFieldWriteConfig)) {
    j["memory_replicas"] = op.memory_replicas;
    j["nof_replicas"] = op.nof_replicas;
    if (op.dfs_replicas) j["dfs_replicas"] = op.dfs_replicas;  // written only when asked: old traces stay as they were
    json sp;
    if (op.soft_pin.action <= static_cast<uint8_t>(SoftPinAction::Disable))
      sp["action"] = std::string(to_string(static_cast<SoftPinAction>(op.soft_pin.action)));
    else
      sp["action"] = op.soft_pin.action;  // an unknown wire value stays a number
    if (op.soft_pin.ttl_ms) sp["ttl_ms"] = *op.soft_pin.ttl_ms;
    j["soft_pin"] = sp;
    j["group"] = op.group;
    if (op.hard_pin) j["hard_pin"] = true;
    if (op.group_shape != GroupShape::ByGroup) j["group_ids"] = std::string(to_string(op.group_shape));
  }
  if (has_field(k, kFieldSelector)) j["replicas"] = std::string(to_string(op.selector));
  if (has_field(k, kFieldChecksum) && op.checksum) j["checksum"] = *op.checksum;
  if (has_field(k, kFieldForce)) j["force"] = op.force;
  if (has_field(k, kFieldFail) && op.fail) j["fail"] = true;
  if (has_field(k, kFieldGroups)) {
    j["groups"] = op.groups;
    j["ttl_ms"] = op.ttl_ms;
  }
  if (has_field(k, kFieldEvict)) {
    j["target_pct"] = op.evict_target_pct;
    j["lowerbound_pct"] = op.evict_lowerbound_pct;
  }
  if (has_field(k, kFieldRestore)) j["fail_first_candidate"] = op.fail_first_candidate;
  if (has_field(k, kFieldAdvance)) j["ms"] = op.advance_ms;
  return j;
}

// Decodes the op fields of `j`; fields outside the op's own set are left for
// the caller's Fields (a trace step also has t, actor, expect).
// An array of unsigned integers no larger than `max` (keys, sizes).
template <typename T>
std::vector<T> uint_array(Fields& f, const char* key, uint64_t max, const char* what) {
  const json& a = f.raw(key);
  if (!a.is_array()) Fields::fail(f.at(key), std::string("expected an array of ") + what);
  std::vector<T> out;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_number_unsigned() || a[i].get<uint64_t>() > max)
      Fields::fail(f.at(key) + "[" + std::to_string(i) + "]", std::string("expected one of ") + what);
    out.push_back(a[i].get<T>());
  }
  return out;
}

static Op decode_op_fields(Fields& f) {
  Op op;
  op.kind = enum_field<OpKind>(f, "op", parse_op_kind, "op");
  const OpKind k = op.kind;
  if (has_field(k, kFieldTenant)) op.object.tenant = f.u32_or("tenant", 0);
  if (has_field(k, kFieldKey)) {
    if (!f.has("key")) Fields::fail(f.at("key"), "missing field 'key'");
    op.object.key = f.u32_or("key", 0);
  }
  if (has_field(k, kFieldKeys)) op.keys = uint_array<KeyId>(f, "keys", UINT32_MAX, "key ids");
  if (has_field(k, kFieldPattern)) op.keys = uint_array<KeyId>(f, "matches", UINT32_MAX, "key ids");
  if (has_field(k, kFieldSizes)) op.sizes = uint_array<uint64_t>(f, "sizes", UINT64_MAX, "sizes");
  if (has_field(k, kFieldSize)) op.size = f.u64("size");
  if (has_field(k, kFieldQuota)) op.quota_bytes = f.u64("quota");
  if (has_field(k, kFieldSegment)) {
    if (f.u64("segment") > UINT32_MAX) Fields::fail(f.at("segment"), "value too large");
    op.segment = static_cast<uint32_t>(f.u64("segment"));
  }
  if (has_field(k, kFieldTargets)) {
    op.targets = uint_array<uint32_t>(f, "targets", UINT32_MAX, "segment indices");
    // A segment named twice would be two copies onto one segment: not a request the vocabulary has.
    for (size_t i = 1; i < op.targets.size(); ++i)
      if (std::find(op.targets.begin(), op.targets.begin() + i, op.targets[i]) != op.targets.begin() + i)
        Fields::fail(f.at("targets") + "[" + std::to_string(i) + "]",
                     "repeats segment " + std::to_string(op.targets[i]));
  }
  if (has_field(k, kFieldProposal) && (k == OpKind::Propose || f.has("proposal"))) {
    if (!f.has("proposal")) Fields::fail(f.at("proposal"), "missing field 'proposal'");
    op.proposal = f.u32_or("proposal", 0);
  }
  if (has_field(k, kFieldWriteConfig)) {
    op.memory_replicas = f.u32_or("memory_replicas", 1);
    op.nof_replicas = f.u32_or("nof_replicas", 0);
    op.dfs_replicas = f.u32_or("dfs_replicas", 0);
    op.group = f.u32_or("group", 0);
    op.hard_pin = f.boolean_or("hard_pin", false);
    if (f.has("group_ids"))
      op.group_shape = enum_field<GroupShape>(f, "group_ids", parse_group_shape, "group_ids shape");
    if (f.has("soft_pin")) {
      Fields sp(f.raw("soft_pin"), f.at("soft_pin"));
      const json& a = sp.raw("action");
      if (a.is_string()) {
        auto action = parse_soft_pin_action(a.get<std::string>());
        if (!action) Fields::fail(sp.at("action"), "unknown soft-pin action '" + a.get<std::string>() + "'");
        op.soft_pin.action = static_cast<uint8_t>(*action);
      } else if (a.is_number_unsigned() && a.get<uint64_t>() <= 255) {
        op.soft_pin.action = static_cast<uint8_t>(a.get<uint64_t>());
      } else {
        Fields::fail(sp.at("action"), "expected an action name or a byte");
      }
      if (sp.has("ttl_ms")) op.soft_pin.ttl_ms = sp.u64("ttl_ms");
      sp.finish();
    }
  }
  if (has_field(k, kFieldSelector))
    op.selector = f.has("replicas") ? enum_field<ReplicaSelector>(f, "replicas", parse_replica_selector, "replica selector")
                                    : ReplicaSelector::All;
  if (has_field(k, kFieldChecksum) && f.has("checksum")) op.checksum = f.u64("checksum");
  if (has_field(k, kFieldForce)) op.force = f.boolean_or("force", false);
  if (has_field(k, kFieldFail)) op.fail = f.boolean_or("fail", false);
  if (has_field(k, kFieldGroups)) {
    const json& g = f.raw("groups");
    if (!g.is_array()) Fields::fail(f.at("groups"), "expected an array of group ids");
    for (size_t i = 0; i < g.size(); ++i) {
      if (!g[i].is_number_unsigned() || g[i].get<uint64_t>() > UINT32_MAX)
        Fields::fail(f.at("groups") + "[" + std::to_string(i) + "]", "expected a group id");
      op.groups.push_back(g[i].get<GroupId>());
    }
    op.ttl_ms = f.u64("ttl_ms");
  }
  if (has_field(k, kFieldEvict)) {
    op.evict_target_pct = f.u32_or("target_pct", 0);
    op.evict_lowerbound_pct = f.u32_or("lowerbound_pct", 0);
    if (op.evict_target_pct > 100) Fields::fail(f.at("target_pct"), "must be 0..100");
    if (op.evict_lowerbound_pct > 100) Fields::fail(f.at("lowerbound_pct"), "must be 0..100");
  }
  if (has_field(k, kFieldRestore)) op.fail_first_candidate = f.boolean_or("fail_first_candidate", false);
  if (has_field(k, kFieldAdvance)) op.advance_ms = f.u64("ms");
  return op;
}

Op decode_op(const json& j, const std::string& path) {
  Fields f(j, path);
  Op op = decode_op_fields(f);
  f.finish();
  return op;
}

json encode_outcome(const Outcome& o) {
  json j;
  j["code"] = std::string(to_string(o.code));
  if (o.exists) j["exists"] = *o.exists;
  if (o.replicas) j["replicas"] = *o.replicas;
  if (o.checksum) j["checksum"] = *o.checksum;
  if (o.removed) j["removed"] = *o.removed;
  if (o.segment) j["segment"] = *o.segment;
  if (!o.retained.empty()) {
    json r = json::array();
    for (RetainResult x : o.retained) r.push_back(kRetainNames[static_cast<int>(x)]);
    j["retained"] = r;
  }
  if (!o.results.empty()) {
    json r = json::array();
    for (const KeyResult& x : o.results) {
      json e;
      e["code"] = std::string(to_string(x.code));
      if (x.exists) e["exists"] = *x.exists;
      if (x.replicas) e["replicas"] = *x.replicas;
      if (x.checksum) e["checksum"] = *x.checksum;
      r.push_back(e);
    }
    j["results"] = r;
  }
  return j;
}

Outcome decode_outcome(const json& j, const std::string& path) {
  Fields f(j, path);
  Outcome o;
  o.code = enum_field<ErrorCode>(f, "code", parse_error_code, "error code");
  if (f.has("exists")) o.exists = f.boolean_or("exists", false);
  if (f.has("replicas")) o.replicas = f.u32_or("replicas", 0);
  if (f.has("checksum")) o.checksum = f.u64("checksum");
  if (f.has("removed")) o.removed = f.u64("removed");
  if (f.has("segment")) o.segment = f.u32_or("segment", 0);
  if (f.has("retained")) {
    const json& r = f.raw("retained");
    if (!r.is_array()) Fields::fail(f.at("retained"), "expected an array");
    for (size_t i = 0; i < r.size(); ++i) {
      const std::string where = f.at("retained") + "[" + std::to_string(i) + "]";
      if (!r[i].is_string()) Fields::fail(where, "expected accepted, full or invalid_params");
      const std::string s = r[i].get<std::string>();
      if (s == "accepted") o.retained.push_back(RetainResult::Accepted);
      else if (s == "full") o.retained.push_back(RetainResult::Full);
      else if (s == "invalid_params") o.retained.push_back(RetainResult::InvalidParams);
      else Fields::fail(where, "unknown result '" + s + "'");
    }
  }
  if (f.has("results")) {
    const json& r = f.raw("results");
    if (!r.is_array()) Fields::fail(f.at("results"), "expected an array");
    for (size_t i = 0; i < r.size(); ++i) {
      Fields e(r[i], f.at("results") + "[" + std::to_string(i) + "]");
      KeyResult x;
      x.code = enum_field<ErrorCode>(e, "code", parse_error_code, "error code");
      if (e.has("exists")) x.exists = e.boolean_or("exists", false);
      if (e.has("replicas")) x.replicas = e.u32_or("replicas", 0);
      if (e.has("checksum")) x.checksum = e.u64("checksum");
      e.finish();
      o.results.push_back(x);
    }
  }
  f.finish();
  return o;
}

// A config's dynamic_replication: every number at least 1, a window of at most a day.
static DynamicReplication decode_dynamic_replication(Fields& f) {
  Fields d(f.raw("dynamic_replication"), f.at("dynamic_replication"));
  DynamicReplication dr;
  dr.window_s = d.u32_or("window_s", dr.window_s);
  dr.min_hits = d.u32_or("min_hits", dr.min_hits);
  dr.max_memory_replicas = d.u32_or("max_memory_replicas", dr.max_memory_replicas);
  if (dr.window_s == 0 || dr.window_s > 86'400) Fields::fail(d.at("window_s"), "must be 1..86400");
  if (dr.min_hits == 0) Fields::fail(d.at("min_hits"), "must be at least 1");
  if (dr.max_memory_replicas == 0) Fields::fail(d.at("max_memory_replicas"), "must be at least 1");
  d.finish();
  return dr;
}

json encode_config(const Config& c) {
  json j;
  j["profile"] = std::string(to_string(c.profile));
  j["default_kv_soft_pin_ttl_ms"] = c.default_kv_soft_pin_ttl_ms;
  j["max_kv_soft_pin_ttl_ms"] = c.max_kv_soft_pin_ttl_ms;
  j["default_kv_lease_ttl_ms"] = c.default_kv_lease_ttl_ms;
  j["put_start_discard_timeout_ms"] = c.put_start_discard_timeout_ms;
  j["put_start_release_timeout_ms"] = c.put_start_release_timeout_ms;
  j["allow_evict_soft_pinned_objects"] = c.allow_evict_soft_pinned_objects;
  json segs = json::array();
  for (const SegmentConfig& s : c.segments)
    segs.push_back({{"kind", std::string(to_string(s.kind))}, {"capacity", s.capacity}});
  j["segments"] = segs;
  j["multi_tenant"] = c.multi_tenant;
  json quotas = json::object();
  for (const auto& [t, q] : c.tenant_quota_bytes) quotas[std::to_string(t)] = q;
  j["tenant_quota_bytes"] = quotas;
  if (c.disk_replica) j["disk_replica"] = true;  // written only when on: older traces stay as they were
  if (c.dfs_slots) j["dfs_slots"] = c.dfs_slots;
  if (c.local_disk) j["local_disk"] = true;
  if (c.ha_oplog) j["ha_oplog"] = true;
  if (c.oplog_lag) j["oplog_lag"] = true;
  if (const auto& dr = c.dynamic_replication)
    j["dynamic_replication"] = {{"window_s", dr->window_s}, {"min_hits", dr->min_hits},
                                {"max_memory_replicas", dr->max_memory_replicas}};
  j["max_retained_groups"] = c.max_retained_groups;
  j["max_group_retention_ttl_ms"] = c.max_group_retention_ttl_ms;
  return j;
}

Config decode_config(const json& j, const std::string& path) {
  Fields f(j, path);
  Config c;
  if (f.has("profile")) c.profile = enum_field<Profile>(f, "profile", parse_profile, "profile");
  c.default_kv_soft_pin_ttl_ms = f.u64_or("default_kv_soft_pin_ttl_ms", c.default_kv_soft_pin_ttl_ms);
  c.max_kv_soft_pin_ttl_ms = f.u64_or("max_kv_soft_pin_ttl_ms", c.max_kv_soft_pin_ttl_ms);
  c.default_kv_lease_ttl_ms = f.u64_or("default_kv_lease_ttl_ms", c.default_kv_lease_ttl_ms);
  c.put_start_discard_timeout_ms = f.u64_or("put_start_discard_timeout_ms", c.put_start_discard_timeout_ms);
  c.put_start_release_timeout_ms = f.u64_or("put_start_release_timeout_ms", c.put_start_release_timeout_ms);
  c.allow_evict_soft_pinned_objects = f.boolean_or("allow_evict_soft_pinned_objects", c.allow_evict_soft_pinned_objects);
  if (f.has("segments")) {
    const json& segs = f.raw("segments");
    if (!segs.is_array() || segs.empty()) Fields::fail(f.at("segments"), "expected a non-empty array");
    c.segments.clear();
    for (size_t i = 0; i < segs.size(); ++i) {
      Fields s(segs[i], f.at("segments") + "[" + std::to_string(i) + "]");
      const std::string kind = s.str("kind");
      if (kind == "memory") c.segments.push_back({ReplicaKind::Memory, s.u64("capacity")});
      else if (kind == "nof") c.segments.push_back({ReplicaKind::Nof, s.u64("capacity")});
      else Fields::fail(s.at("kind"), "unknown segment kind '" + kind + "'");
      s.finish();
    }
  }
  c.multi_tenant = f.boolean_or("multi_tenant", c.multi_tenant);
  c.disk_replica = f.boolean_or("disk_replica", c.disk_replica);
  c.dfs_slots = f.u32_or("dfs_slots", c.dfs_slots);
  c.local_disk = f.boolean_or("local_disk", c.local_disk);
  c.ha_oplog = f.boolean_or("ha_oplog", c.ha_oplog);
  c.oplog_lag = f.boolean_or("oplog_lag", c.oplog_lag);
  if (f.has("dynamic_replication")) c.dynamic_replication = decode_dynamic_replication(f);
  if (f.has("tenant_quota_bytes")) {
    const json& q = f.raw("tenant_quota_bytes");
    if (!q.is_object()) Fields::fail(f.at("tenant_quota_bytes"), "expected an object of tenant -> bytes");
    for (auto it = q.begin(); it != q.end(); ++it) {
      const std::string where = f.at("tenant_quota_bytes") + "." + it.key();
      size_t used = 0;
      unsigned long t = 0;
      try { t = std::stoul(it.key(), &used); } catch (...) { used = 0; }
      if (used != it.key().size() || t > UINT32_MAX) Fields::fail(where, "tenant must be a number");
      if (!it.value().is_number_unsigned()) Fields::fail(where, "expected a byte count");
      c.tenant_quota_bytes[static_cast<TenantId>(t)] = it.value().get<uint64_t>();
    }
  }
  c.max_retained_groups = f.u64_or("max_retained_groups", c.max_retained_groups);
  c.max_group_retention_ttl_ms = f.u64_or("max_group_retention_ttl_ms", c.max_group_retention_ttl_ms);
  f.finish();
  return c;
}

json encode_view(const View& v) {
  json j;
  if (v.shared_disk_files) j["shared_disk_files"] = v.shared_disk_files;
  json objs = json::array();
  for (const ObjectView& o : v.objects) {
    json x{{"tenant", o.id.tenant}, {"key", o.id.key}, {"size", o.size},
           {"complete_memory", o.complete_memory}, {"complete_nof", o.complete_nof},
           {"processing", o.processing}, {"group", o.group}, {"lease", o.lease}};
    x["deadline"] = o.deadline ? json(*o.deadline) : json(nullptr);
    if (o.complete_disk) x["complete_disk"] = o.complete_disk;
    if (o.complete_dfs) x["complete_dfs"] = o.complete_dfs;
    if (o.complete_local) x["complete_local"] = o.complete_local;
    if (o.hard_pinned) x["hard_pinned"] = true;
    if (o.copying) x["copying"] = true;
    if (o.offloading) x["offloading"] = true;
    if (o.promoting) x["promoting"] = true;
    if (o.pending)
      x["pending"] = {{"action", std::string(to_string(o.pending->action))},
                      {"ttl_ms", o.pending->ttl_ms}, {"viable", o.pending->viable}};
    else
      x["pending"] = nullptr;
    objs.push_back(x);
  }
  j["objects"] = objs;
  if (!v.retiring.empty()) {
    json retiring = json::array();
    for (const ObjectView& o : v.retiring)
      retiring.push_back({{"tenant", o.id.tenant}, {"key", o.id.key}, {"size", o.size}, {"memory", o.complete_memory},
                          {"deadline", o.deadline ? json(*o.deadline) : json(nullptr)}});
    j["retiring"] = retiring;
  }
  j["gauge"] = v.gauge;
  json ret = json::array();
  for (const RetentionView& r : v.retention)
    ret.push_back({{"tenant", r.tenant}, {"group", r.group}, {"deadline", r.deadline}});
  j["retention"] = ret;
  j["retained_group_count"] = v.retained_group_count;
  j["retention_entries"] = v.retention_entries;
  json usage = json::array();
  for (const UsageView& u : v.usage) usage.push_back({{"tenant", u.tenant}, {"bytes", u.bytes}});
  j["usage"] = usage;
  json quotas = json::array();
  for (const UsageView& q : v.quotas) quotas.push_back({{"tenant", q.tenant}, {"bytes", q.bytes}});
  j["quotas"] = quotas;
  j["memory_used"] = v.memory_used;
  json mounted = json::array();
  for (uint8_t m : v.mounted) mounted.push_back(m == kUnmounted ? "no" : m == kLeaving ? "leaving" : "yes");
  j["mounted"] = mounted;
  j["cached"] = v.cached;
  j["allocated"] = v.allocated;
  j["capacity"] = v.capacity;
  j["segment_allocated"] = v.segment_allocated;
  j["segment_capacity"] = v.segment_capacity;
  if (v.memory_hit_bytes) j["memory_hit_bytes"] = v.memory_hit_bytes;
  if (v.disk_hit_bytes) j["disk_hit_bytes"] = v.disk_hit_bytes;
  if (v.memory_hits) j["memory_hits"] = v.memory_hits;
  if (v.disk_hits) j["disk_hits"] = v.disk_hits;
  if (v.reads_served) j["reads_served"] = v.reads_served;
  if (v.quota_rejections) j["quota_rejections"] = v.quota_rejections;
  if (v.placement_failures) j["placement_failures"] = v.placement_failures;
  if (v.partial_placements) j["partial_placements"] = v.partial_placements;
  if (v.dfs_slots_used) j["dfs_slots_used"] = v.dfs_slots_used;
  return j;
}

namespace {

// A field that may be null: nullopt when absent, an inner nullopt for null.
template <typename T, typename Read>
std::optional<std::optional<T>> nullable(Fields& f, const char* key, Read read) {
  std::optional<std::optional<T>> out;
  if (!f.has(key)) return out;
  out.emplace();
  if (!f.raw(key).is_null()) out->emplace(read());
  return out;
}

ObjectExpectation decode_object_expectation(const json& j, const std::string& path) {
  Fields f(j, path);
  ObjectExpectation e;
  e.id.tenant = f.u32_or("tenant", 0);
  if (!f.has("key")) Fields::fail(path, "missing field 'key'");
  e.id.key = f.u32_or("key", 0);
  if (f.has("present")) e.present = f.boolean_or("present", true);
  e.deadline = nullable<Time>(f, "deadline", [&] {
    const uint64_t d = f.u64("deadline");
    if (d > static_cast<uint64_t>(kTimeMax)) Fields::fail(f.at("deadline"), "value too large");
    return static_cast<Time>(d);
  });
  if (f.has("lease")) e.lease = static_cast<Time>(f.u64("lease"));
  if (f.has("pending")) {
    e.pending.emplace();
    if (!f.raw("pending").is_null())
      *e.pending = enum_field<SoftPinAction>(f, "pending", parse_soft_pin_action, "action");
  }
  if (f.has("complete_memory")) e.complete_memory = f.u32_or("complete_memory", 0);
  if (f.has("complete_nof")) e.complete_nof = f.u32_or("complete_nof", 0);
  if (f.has("complete_disk")) e.complete_disk = f.u32_or("complete_disk", 0);
  if (f.has("complete_dfs")) e.complete_dfs = f.u32_or("complete_dfs", 0);
  if (f.has("complete_local")) e.complete_local = f.u32_or("complete_local", 0);
  if (f.has("processing")) e.processing = f.u32_or("processing", 0);
  if (f.has("group")) e.group = f.u32_or("group", 0);
  if (f.has("hard_pinned")) e.hard_pinned = f.boolean_or("hard_pinned", false);
  if (f.has("copying")) e.copying = f.boolean_or("copying", false);
  if (f.has("offloading")) e.offloading = f.boolean_or("offloading", false);
  if (f.has("promoting")) e.promoting = f.boolean_or("promoting", false);
  f.finish();
  return e;
}

const json& array_field(Fields& f, const char* key) {
  const json& a = f.raw(key);
  if (!a.is_array()) Fields::fail(f.at(key), "expected an array");
  return a;
}

// The counters a state expectation may name, decoded and encoded alike.
using Counter = std::optional<uint64_t> StateExpectation::*;
constexpr std::pair<const char*, Counter> kCounters[] = {
    {"keys", &StateExpectation::keys},
    {"memory_hit_bytes", &StateExpectation::memory_hit_bytes},
    {"disk_hit_bytes", &StateExpectation::disk_hit_bytes},
    {"memory_hits", &StateExpectation::memory_hits},
    {"disk_hits", &StateExpectation::disk_hits},
    {"reads_served", &StateExpectation::reads_served},
    {"quota_rejections", &StateExpectation::quota_rejections},
    {"placement_failures", &StateExpectation::placement_failures},
    {"partial_placements", &StateExpectation::partial_placements},
    {"dfs_slots_used", &StateExpectation::dfs_slots_used},
};

}  // namespace

StateExpectation decode_state_expectation(const json& j, const std::string& path) {
  Fields f(j, path);
  StateExpectation e;
  if (f.has("gauge")) e.gauge = static_cast<int64_t>(f.u64("gauge"));
  for (auto [name, field] : kCounters)
    if (f.has(name)) e.*field = f.u64(name);
  if (f.has("objects")) {
    const json& a = array_field(f, "objects");
    for (size_t i = 0; i < a.size(); ++i)
      e.objects.push_back(decode_object_expectation(a[i], f.at("objects") + "[" + std::to_string(i) + "]"));
  }
  if (f.has("retention")) {
    const json& a = array_field(f, "retention");
    for (size_t i = 0; i < a.size(); ++i) {
      Fields r(a[i], f.at("retention") + "[" + std::to_string(i) + "]");
      RetentionExpectation x;
      x.tenant = r.u32_or("tenant", 0);
      x.group = r.u32_or("group", 0);
      auto d = nullable<Time>(r, "deadline", [&] { return static_cast<Time>(r.u64("deadline")); });
      if (!d) Fields::fail(r.at("deadline"), "missing: a number, or null for no live entry");
      x.deadline = *d;
      r.finish();
      e.retention.push_back(x);
    }
  }
  for (auto [name, list] : {std::pair{"usage", &e.usage}, std::pair{"quotas", &e.quotas}}) {
    if (!f.has(name)) continue;
    const json& a = array_field(f, name);
    for (size_t i = 0; i < a.size(); ++i) {
      Fields u(a[i], f.at(name) + "[" + std::to_string(i) + "]");
      list->push_back({u.u32_or("tenant", 0), u.u64("bytes")});
      u.finish();
    }
  }
  f.finish();
  return e;
}

json encode_state_expectation(const StateExpectation& e) {
  json j = json::object();
  if (e.gauge) j["gauge"] = *e.gauge;
  for (auto [name, field] : kCounters)
    if (e.*field) j[name] = *(e.*field);
  if (!e.objects.empty()) {
    json a = json::array();
    for (const ObjectExpectation& o : e.objects) {
      json x{{"tenant", o.id.tenant}, {"key", o.id.key}};
      if (o.present) x["present"] = *o.present;
      if (o.deadline) x["deadline"] = *o.deadline ? json(**o.deadline) : json(nullptr);
      if (o.lease) x["lease"] = *o.lease;
      if (o.pending) x["pending"] = *o.pending ? json(std::string(to_string(**o.pending))) : json(nullptr);
      if (o.complete_memory) x["complete_memory"] = *o.complete_memory;
      if (o.complete_nof) x["complete_nof"] = *o.complete_nof;
      if (o.complete_disk) x["complete_disk"] = *o.complete_disk;
      if (o.complete_dfs) x["complete_dfs"] = *o.complete_dfs;
      if (o.complete_local) x["complete_local"] = *o.complete_local;
      if (o.processing) x["processing"] = *o.processing;
      if (o.group) x["group"] = *o.group;
      if (o.hard_pinned) x["hard_pinned"] = *o.hard_pinned;
      if (o.copying) x["copying"] = *o.copying;
      if (o.offloading) x["offloading"] = *o.offloading;
      if (o.promoting) x["promoting"] = *o.promoting;
      a.push_back(std::move(x));
    }
    j["objects"] = std::move(a);
  }
  if (!e.retention.empty()) {
    json a = json::array();
    for (const RetentionExpectation& r : e.retention)
      a.push_back({{"tenant", r.tenant}, {"group", r.group}, {"deadline", r.deadline ? json(*r.deadline) : json(nullptr)}});
    j["retention"] = std::move(a);
  }
  for (auto [name, list] : {std::pair{"usage", &e.usage}, std::pair{"quotas", &e.quotas}}) {
    if (list->empty()) continue;
    json a = json::array();
    for (const UsageView& u : *list) a.push_back({{"tenant", u.tenant}, {"bytes", u.bytes}});
    j[name] = std::move(a);
  }
  return j;
}

}  // namespace pinsim
