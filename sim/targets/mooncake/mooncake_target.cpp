// The Mooncake target's adapter: pinsim's vocabulary mapped onto
// mooncake::MasterService (ops to its calls, its metadata to Views). See
// mooncake_target.h and README.md beside this file.
//
// The real service runs deterministically through two other pieces beside
// this file: the virtual clock and shortened sleeps (virtual_clock.h), and
// friend access into MasterService (master_service_access.h), which stops the
// threads its constructor starts and reads what the View shows.
#include "mooncake_target.h"

#include <malloc.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <memory>
#include <set>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <vector>

#include <glog/logging.h>

#include "dfs_environment.h"
#include "dfs_records.h"
#include "inline_threads.h"
#include "local_disk_holder.h"
#include "master_metric_manager.h"
#include "master_service_access.h"
#include "oplog_mode.h"
#include "unexported_metrics.h"
#if PINSIM_MC_HAS_RANDOM_ENGINE
#include "random.h"
#endif
#include "virtual_clock.h"

namespace pinsim {

namespace {

namespace mc = ::mooncake;
using Access = mc::test::MasterServiceSnapshotTestBase;
using Clock = std::chrono::system_clock;

// Largest virtual time the real clock can express (system_clock counts ns).
constexpr Time kMaxRepresentableMs = std::numeric_limits<int64_t>::max() / 1'000'000 - 1;

Clock::time_point to_tp(Time t) { return Clock::time_point(std::chrono::milliseconds(t)); }

Time from_tp(Clock::time_point tp) {
  if (tp == Clock::time_point::max()) return kTimeMax;
  return std::chrono::duration_cast<std::chrono::milliseconds>(tp.time_since_epoch()).count();
}

void set_now(Time t) { mooncake_clock::set_virtual_ms(t); }

ErrorCode map_error(mc::ErrorCode code) {
  const std::string& name = mc::toString(code);
  if (auto mapped = parse_error_code(name)) return *mapped;
  static std::mutex mu;
  static std::set<std::string> reported;
  std::lock_guard<std::mutex> lock(mu);
  if (reported.insert(name).second)
    std::fprintf(stderr, "mooncake target: Mooncake ErrorCode %s has no pinsim name; reported as INTERNAL_ERROR\n",
                 name.c_str());
  return ErrorCode::INTERNAL_ERROR;
}

template <typename T>
Outcome outcome_of(const tl::expected<T, mc::ErrorCode>& r) {
  return r ? Outcome{} : Outcome::of(map_error(r.error()));
}

std::string key_name(KeyId k) { return "k" + std::to_string(k); }
std::string group_name(GroupId g) { return "g" + std::to_string(g); }

std::optional<uint32_t> parse_id(const std::string& s, std::string_view prefix) {
  if (s.size() <= prefix.size() || !s.starts_with(prefix)) return std::nullopt;
  uint32_t v = 0;
  auto [p, ec] = std::from_chars(s.data() + prefix.size(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// Tenant 0 is Mooncake's "default"; tenant n > 0 is "t" and n in ten digits,
// so that names sort as the ids do (the effective-quota tie-break orders
// tenants by name, the model by id).
std::string tenant_name(TenantId t) {
  if (t == 0) return "default";
  std::string digits = std::to_string(t);
  return "t" + std::string(10 - digits.size(), '0') + digits;
}

std::optional<TenantId> parse_tenant(const std::string& s) {
  if (s == "default") return 0;
  return parse_id(s, "t");
}

// The setup's client mounts the config's segments (the model's kSetupClient);
// a trace that names it acts as that client.
const mc::UUID kSegmentOwner{0x70696e73696d5345ull, 0x676d656e74ull};
mc::UUID client_uuid(ClientId c) {
  if (c == kSetupClient) return kSegmentOwner;
  return {0x70696e73696d0000ull | c, 0x636c69656e74ull};
}

// MasterService's configuration for ours; the segments are mounted after
// construction, the quota policies come from `policy_file` (multi-tenant mode).
mc::MasterServiceConfig service_config(const Config& c, const std::string& policy_file) {
  mc::MasterServiceConfig m;
#if PINSIM_MC_HAS_DYN_REPL_PROPOSAL
  if (const auto& dr = c.dynamic_replication) {  // enforce mode; min_hits = ceil(qps x window) for this qps
    m.dynamic_replication_mode = "enforce";
    m.dynamic_replication_heat_window_seconds = dr->window_s;
    m.dynamic_replication_admission_qps_threshold = (dr->min_hits - 0.5) / dr->window_s;
    m.dynamic_replication_max_memory_replicas = dr->max_memory_replicas;
  }
#endif
  m.default_kv_lease_ttl = c.default_kv_lease_ttl_ms;
  m.default_kv_soft_pin_ttl = c.default_kv_soft_pin_ttl_ms;
#if PINSIM_MC_HAS_SOFT_PIN_ACTION
  m.max_kv_soft_pin_ttl = c.max_kv_soft_pin_ttl_ms;
#endif
  m.allow_evict_soft_pinned_objects = c.allow_evict_soft_pinned_objects;
  m.put_start_discard_timeout_sec = c.put_start_discard_timeout_ms / 1000;
  m.put_start_release_timeout_sec = c.put_start_release_timeout_ms / 1000;
  // Disk mode: a storage backend's root. MasterService only names files
  // under it (ResolvePathFromKey); the clients write them, so nothing is
  // created or read there.
  if (c.disk_replica) m.root_fs_dir = "/pinsim-disk-replicas";
#if PINSIM_MC_HAS_LOCAL_DISK
  if (c.local_disk) mooncake_local::configure(m);  // the local-disk tier (local_disk_holder.h)
#endif
#if PINSIM_MC_HAS_OPLOG_WRITER_FACTORY
  if (c.ha_oplog) mooncake_oplog::configure(m);  // HA-OpLog mode (oplog_mode.h)
#endif
#if PINSIM_MC_HAS_RETAIN_GROUPS
  m.max_retained_groups = c.max_retained_groups;
  m.max_group_retention_ttl_ms = c.max_group_retention_ttl_ms;
#endif
#if PINSIM_MC_HAS_MULTI_TENANT
  if (c.multi_tenant) {
    m.enable_multi_tenants = true;
    m.tenant_quota_connector_type = "file";
    m.tenant_quota_connector_uri = policy_file;
  }
#else
  (void)policy_file;
#endif
  return m;
}

// The DFS settings of `c`: all zero without DFS slots (refusal() turns away
// a configuration whose slots fit in no shard).
mooncake_dfs::Settings dfs_settings(const Config& c) {
  return mooncake_dfs::settings(c).value_or(mooncake_dfs::Settings{});
}

// Whether `service` has DFS exactly when `c` asks for it (false with `error`
// set otherwise): MasterService turns DFS off, silently, when its allocator
// fails to start under `root`.
bool dfs_as_configured(const mc::MasterService& service, const Config& c, const std::string& root,
                       std::string* error) {
#if PINSIM_MC_HAS_DFS
  const bool on = Access::DfsOn(service);
#else
  const bool on = false;
  (void)service;
#endif
  if (on == (c.dfs_slots > 0)) return true;
  const mooncake_dfs::Settings dfs = dfs_settings(c);
  *error = on ? std::string("MasterService has DFS on in a configuration without DFS slots")
              : "Mooncake's DFS allocator did not start (posix adapter under " + root + ", one shard of " +
                    std::to_string(dfs.shard_capacity) + " bytes, alignment " + std::to_string(dfs.alignment) +
                    "), so MasterService turned DFS off";
  return false;
}

// A constructed master with its background threads stopped, at virtual time
// `at` (0 but for a failover's new primary); nullptr with `error` set when MasterService refuses the configuration.
// A configuration with DFS slots is constructed with DFS on (the
// environment of dfs_environment.h around the constructor), any other with
// DFS off; both are checked after.
std::unique_ptr<mc::MasterService> construct(const Config& c, const std::string& policy_file, std::string* error,
                                             Time at = 0) {
  set_now(at);
  mooncake_clock::use_virtual_time();
  std::unique_ptr<mc::MasterService> service;
  std::string root;
  try {
    const mooncake_dfs::ScopedEnvironment env(dfs_settings(c));
    if (!env.error().empty()) {
      *error = env.error();
      return nullptr;
    }
    root = env.root();
    service = std::make_unique<mc::MasterService>(service_config(c, policy_file));
  } catch (const std::exception& e) {
    *error = std::string("MasterService refused the configuration: ") + e.what();
    return nullptr;
  }
  Access::Quiesce(*service);
  if (!dfs_as_configured(*service, c, root, error)) {
    const mooncake_clock::SleepsCut cut;
    service.reset();
    return nullptr;
  }
  return service;
}

// Multi-tenant mode reads its quota policies from a connector: the file
// connector's YAML, written where the process keeps temporary files, there
// while a run uses it and removed after. A kept master keeps its path (its
// connector's), and each run that takes it writes its own policies there.
std::string new_policy_path() {
  static std::atomic<uint64_t> counter{0};
  return (std::filesystem::temp_directory_path() /
          ("pinsim-tenants-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + ".yaml"))
      .string();
}

// Writes `c`'s policies to `path`; false with `error` set (and no file) when it cannot.
bool write_policy_file(const Config& c, const std::string& path, std::string* error) {
  std::ofstream out(path);
  out << "version: 1\ntenants:\n";
  for (const auto& [t, q] : c.tenant_quota_bytes)
    out << "  - name: \"" << tenant_name(t) << "\"\n    quota: \"" << q << "\"\n";
  out.close();
  if (!out) {
    *error = "cannot write the tenant quota policy file " + path;
    std::remove(path.c_str());
    return false;
  }
  return true;
}

// Masters kept for reuse. Construction is nearly all the setting up of a
// 128 Ki-entry lock-free client-ping queue (its nodes from node_pool.cpp), the same for every configuration,
// but MasterService takes its configuration as constants, so a master is
// reused only for the same constructor configuration. A finished run's
// master is reset with Mooncake's own ResetStateAfterFailedRestoreAttempt
// (what its restore does between snapshot candidates: metadata, deadline
// index, group routes, discarded replicas, replica ids, segments and their
// allocators, tasks, clients, the memory metrics), rid of what that leaves
// and a run can set (graceful unmounts' timers; dynamic replication's heat
// windows and admission queue, on the steady clock, which starts again at the
// same base each run) and kept, one per configuration; the next run of that configuration takes it and mounts its
// segments. A multi-tenant master is kept with its policy file's path; the
// run that takes it writes its own policies there and has the master load
// them and rebuild every tenant's charge, as its constructor does (start).
// PINSIM_MOONCAKE_FRESH_MASTERS=1 constructs every master, for comparison.
struct Kept {
  Config key;
  mooncake_dfs::Settings dfs;  // what the DFS allocator starts with (it depends on the segments, not in key)
  std::unique_ptr<mc::MasterService> service;
  std::string policy_file;  // multi-tenant mode: the connector's path ("" otherwise)
};
// About 20 MB a master. The swarm draws more constructor configurations than
// that; 1,000 seeds with --jobs 1 (session 22): 16 kept 51 s and 360 MB,
// 32 kept 45 s and 670 MB, 64 kept 41 s and 1.3 GB. HA-OpLog mode doubles
// the configurations (session 49, 1,000 swarm seeds x 200 steps, --jobs 1):
// 32 kept 24.6 s, 64 kept 18.7 s and 660 MB at most.
constexpr size_t kMaxKept = 64;

// A forked process (a --jobs worker) does not take the masters its parent
// kept: their policy files and DFS roots are the parent's, and two workers
// writing one policy file read each other's quotas. It abandons them, never
// destroying them (their files are not its own), and constructs its own.
void abandon_kept_masters_in_child();

std::vector<Kept>& kept_masters() {
  static auto* kept = [] {
    pthread_atfork(nullptr, nullptr, abandon_kept_masters_in_child);
    return new std::vector<Kept>;  // never destroyed: Mooncake's singletons may go first at exit
  }();
  return *kept;
}

void abandon_kept_masters_in_child() {
  for (Kept& k : kept_masters()) (void)k.service.release();
  kept_masters().clear();
}

bool reuse_masters() {
  static const bool fresh = [] {
    const char* v = std::getenv("PINSIM_MOONCAKE_FRESH_MASTERS");
    return v && *v && std::string(v) != "0";
  }();
  return PINSIM_MC_HAS_SNAPSHOT_CODEC && !fresh;
}

// What MasterService's constructor sees of a configuration (service_config):
// the segments are mounted later, the quota policies are loaded from the
// file (again when a master is reused), retention settings exist only with PR 2835.
Config constructor_key(Config c) {
  c.segments.clear();
  c.tenant_quota_bytes.clear();
#if !PINSIM_MC_HAS_RETAIN_GROUPS
  c.max_retained_groups = 0;
  c.max_group_retention_ttl_ms = 0;
#endif
  return c;
}

// Whether a master kept as `k` was constructed as `c` would construct it.
bool constructed_as(const Kept& k, const Config& c) {
  return k.key == constructor_key(c) && k.dfs == dfs_settings(c);
}

// A kept master for `c`, reset, with its policy file's path; none when there is none.
std::optional<Kept> take_kept(const Config& c) {
  if (!reuse_masters()) return std::nullopt;
  auto& kept = kept_masters();
  auto it = std::find_if(kept.begin(), kept.end(), [&](const Kept& k) { return constructed_as(k, c); });
  if (it == kept.end()) return std::nullopt;
  Kept k = std::move(*it);
  kept.erase(it);
  return k;
}

// A kept DFS master's allocator started again, empty, as its constructor
// started it (the reset leaves the old one's slots held); false when it did
// not start, and the master is not kept.
bool restart_dfs(const Config& c, mc::MasterService& service, const std::string& policy_file) {
#if PINSIM_MC_HAS_DFS
  if (c.dfs_slots == 0) return true;
  try {
    const mooncake_dfs::ScopedEnvironment env(dfs_settings(c));
    if (!env.error().empty()) return false;
    Access::RestartDfs(service, service_config(c, policy_file));
  } catch (const std::exception&) {
    return false;
  }
  return Access::DfsOn(service);
#else
  (void)c, (void)service, (void)policy_file;
  return true;
#endif
}

// Resets and keeps `service` (true), or leaves it to be destroyed.
bool keep(const Config& c, std::unique_ptr<mc::MasterService>& service, const std::string& policy_file) {
#if PINSIM_MC_HAS_SNAPSHOT_CODEC
  if (!reuse_masters()) return false;
  auto& kept = kept_masters();
  if (kept.size() >= kMaxKept ||
      std::any_of(kept.begin(), kept.end(), [&](const Kept& k) { return constructed_as(k, c); }))
    return false;
  Access::ResetState(*service);
  Access::DropGraceTimers(*service);
  Access::ResetDynamicReplication(*service);
  if (!restart_dfs(c, *service, policy_file)) return false;
#if PINSIM_MC_HAS_LOCAL_DISK
  Access::ResetPromotionSketch(*service);  // the reset cleared the holder's registration, mailboxes and tasks
#endif
  kept.push_back({constructor_key(c), dfs_settings(c), std::move(service), policy_file});
  return true;
#else
  (void)c, (void)service, (void)policy_file;
  return false;
#endif
}

// The master's cached-objects gauge, allocated-memory and memory-capacity
// metrics are process-wide (MasterMetricManager) and kept by hand by
// Mooncake. A master starts empty, so they are zeroed where no Mooncake code
// does it: after a master is constructed and after one is destroyed. A kept master is reset by
// ResetStateAfterFailedRestoreAttempt, which zeroes them itself, and the
// adapter does not do it again there.
void zero_memory_metrics() {
  mc::MasterMetricManager::instance().reset_cache_total_nums();
  mc::MasterMetricManager::instance().reset_allocated_mem_size();
  mc::MasterMetricManager::instance().reset_total_mem_capacity();
}

// The adapter's own bookkeeping (the touched shards, the snapshots kept) is
// guarded by a spin lock on an atomic flag rather than a mutex: no critical
// section calls anything that synchronises, so under the deterministic
// scheduler no actor is switched out inside one (the lock is never found
// taken there and adds no scheduling points or lock-graph edges of its own),
// and between real threads it is an ordinary short spin lock.
class BookkeepingLock {
 public:
  void lock() {
    while (flag_.test_and_set(std::memory_order_acquire)) {
    }
  }
  void unlock() { flag_.clear(std::memory_order_release); }

 private:
  std::atomic_flag flag_ = ATOMIC_FLAG_INIT;
};

// One object as the View shows it, appended to `out` (nothing for a key this
// adapter did not write): the object, and an entry of View::retiring for the
// replicas a logged removal marked REMOVED (and the targets of a copy whose
// expiry is logged), which the master frees once the log has the removal
// (rule log.window). An object with nothing else is gone
// for its clients: only its retiring entry shows, with the soft pin the
// gauge still counts.
void object_views(const Access::Object& o, std::vector<ObjectView>* out) {
  auto key = parse_id(o.key, "k");
  auto tenant = parse_tenant(o.tenant);
  if (!key || !tenant) return;
  ObjectView ov;
  ov.id = {*tenant, *key};
  ov.size = o.size;
  ov.hard_pinned = o.hard_pinned;
  ov.copying = o.copying;
  // A replica on an unmounted segment is not shown: ClearInvalidHandles
  // leaves a PROCESSING one in the metadata, but every access to the key
  // erases it first (MetadataAccessorRW) and IsValid never counts it.
  uint32_t removed = 0, removed_memory = 0, invalid = 0;  // a REMOVED replica on an unmounted segment holds no bytes
  for (const auto& r : o.replicas) {
    const auto& expired = o.expiring_targets;
    const bool expiring = std::find(expired.begin(), expired.end(), r.id) != expired.end();
    if (r.status == mc::ReplicaStatus::REMOVED || expiring) ++removed, removed_memory += r.memory && !r.invalid;
    if (expiring) continue;
    if (r.invalid) ++invalid;
    if (r.invalid) continue;
    if (r.status == mc::ReplicaStatus::PROCESSING) ++ov.processing;
    else if (r.status != mc::ReplicaStatus::COMPLETE) continue;
    else if (r.memory) ++ov.complete_memory;
    else if (r.disk) ++ov.complete_disk;
    else if (r.dfs) ++ov.complete_dfs;
    else if (r.local) ++ov.complete_local;
    else ++ov.complete_nof;
  }
  const bool gone = !ov.processing && !ov.complete_memory && !ov.complete_nof && !ov.complete_disk &&
                    !ov.complete_dfs && !ov.complete_local;
  if (removed || (gone && invalid)) {  // an object left with nothing valid awaits its logged erase
    ObjectView retiring;
    retiring.id = ov.id;
    retiring.size = ov.size;
    retiring.complete_memory = removed_memory;
    if (gone && o.deadline) retiring.deadline = from_tp(*o.deadline);
    retiring.retiring = true;
    out->push_back(retiring);
    if (gone) return;
  }
  ov.offloading = o.offloading;
  ov.promoting = o.promoting;
  if (o.deadline) ov.deadline = from_tp(*o.deadline);
  if (o.has_pending) {
    PendingView p;
    p.action = static_cast<SoftPinAction>(o.pending_action);
    p.ttl_ms = o.pending_ttl;
    for (const auto& r : o.replicas)
      if (!r.invalid && r.status == mc::ReplicaStatus::PROCESSING &&
          std::find(o.eligible.begin(), o.eligible.end(), r.id) != o.eligible.end())
        ++p.viable;
    ov.pending = p;
  }
  if (!o.group.empty()) ov.group = parse_id(o.group, "g").value_or(0);
  ov.lease = from_tp(o.lease);
  out->push_back(ov);
}

class MooncakeTarget final : public Target {
 public:
  explicit MooncakeTarget(const Config& config) : config_(config), owner_(std::this_thread::get_id()) {
    for (const auto& [t, quota] : config.tenant_quota_bytes) named_tenants_.insert(t);
    dirty_tenants_ = named_tenants_;  // their policies, read at the first View
  }

  ~MooncakeTarget() override {
    set_now(last_now_.load());
    if (service_) settle();  // a kept master starts its next run swept
    if (service_ && (failed_over_ || !keep(config_, service_, policy_file_))) {
      const mooncake_clock::SleepsCut cut;
      service_.reset();
      zero_memory_metrics();  // what it held, for a kept master taken next
    }
    if (!policy_file_.empty()) std::remove(policy_file_.c_str());
  }

  bool start(std::string* error) {
    if (std::optional<Kept> kept = take_kept(config_)) {
      // Mooncake's own reset zeroed its memory metrics when the master was
      // kept (a mutant that drops that is seen at the first View).
      service_ = std::move(kept->service);
      policy_file_ = std::move(kept->policy_file);
      if (config_.multi_tenant && !reload_policies(error)) return false;
    } else {
      if (config_.multi_tenant && !write_policy_file(config_, policy_file_ = new_policy_path(), error)) return false;
      if (!(service_ = construct(config_, policy_file_, error))) return false;
      zero_memory_metrics();  // process-wide: the constructor does not zero them
    }
#if PINSIM_MC_HAS_OPLOG_WRITER_FACTORY
    if (config_.ha_oplog && !(oplog_ = mooncake_oplog::install(*service_, error))) return false;
#endif
#if PINSIM_MC_HAS_RANDOM_ENGINE
    // Every run starts from the same engine state, whatever ran before it here.
    mc::threadLocalRandomEngine().seed(0x72756eull);
#endif
#if PINSIM_MC_HAS_GAUGE
    baseline_ = mc::MasterMetricManager::instance().get_soft_pin_key_count();
#endif
#if PINSIM_MC_HAS_HIT_BYTES
    // The read-hit counters only grow (no reset): the View shows them from here.
    hit_baseline_ = {mc::MasterMetricManager::instance().get_mem_cache_hit_bytes(),
                     mc::MasterMetricManager::instance().get_file_cache_hit_bytes()};
#endif
#if PINSIM_MC_HAS_VALID_GETS
    reads_baseline_ = mooncake_metrics::valid_get_nums();  // it only grows too
#endif
#if PINSIM_MC_HAS_HIT_NUMS
    hit_nums_baseline_ = mooncake_metrics::cache_hit_nums();  // and these
#endif
#if PINSIM_MC_HAS_REFUSALS
    refusals_baseline_ = refusal_metrics();  // so do these
#endif
    for (size_t i = 0; i < config_.segments.size(); ++i)
      if (config_.segments[i].kind == ReplicaKind::Memory) memory_segments_.push_back(i);
    zero_segment_metrics();
    if (!mount_segments(error) || !mount_local_disk(error)) return false;
    settle_log();
    return true;
  }

  // The metrics labelled by segment are process-wide too, and the segments'
  // names are the same in every run: a run starts them at zero, whatever the
  // master before it (or a kept master's reset, which leaves them) counted.
  void zero_segment_metrics() {
    for (size_t i : memory_segments_) {
      mc::MasterMetricManager::instance().reset_segment_allocated_mem_size(segment_name(i));
      mc::MasterMetricManager::instance().reset_segment_total_mem_capacity(segment_name(i));
    }
  }

  std::string_view name() const override { return "mooncake"; }
  std::string_view variant() const override { return PINSIM_MC_TREE_ID; }

  bool supports(const Op& op) const override { return mooncake_target_supports(op, config_); }
  // BatchEvict's second pass scans shards from randomIndex(kNumShards): which
  // of several admissible objects it takes is Mooncake's choice.
  bool eviction_order_unspecified() const override { return true; }
  const mc::MasterService& service() const { return *service_; }
  Capabilities capabilities() const override {
    Capabilities caps = kCapObjects | kCapDeadline | kCapLease;
    if (config_.multi_tenant) caps |= kCapUsage;
    caps |= kCapSegments | kCapCached | kCapEvictionInSteps;
    // No kCapThreadSafe: the adapter is thread-safe (MasterService is, and its
    // bookkeeping is under a spin lock, see touch), but `pinsim run --actors`
    // also schedules the locks of shared libraries (glog's first use of a log
    // line), so a seed's schedule would depend on the seeds before it in the
    // process. Its concurrent lane is mooncake_concurrency (README).
#if PINSIM_MC_HAS_GAUGE
    caps |= kCapGauge;
#endif
#if PINSIM_MC_HAS_HIT_BYTES && PINSIM_MC_HAS_VALID_GETS && PINSIM_MC_HAS_HIT_NUMS  // the read counters, together
    caps |= kCapHits;
#endif
#if PINSIM_MC_HAS_REFUSALS
    caps |= kCapRefusals;
#endif
#if PINSIM_MC_HAS_SOFT_PIN_ACTION
    caps |= kCapPending;
#endif
#if PINSIM_MC_HAS_RETAIN_GROUPS
    caps |= kCapRetention;
#endif
    return caps;
  }

  Outcome apply(const Op& op, Time now) override {
    if (now > kMaxRepresentableMs || now < 0 || !mooncake_target_supports(op, config_))
      return Outcome::of(ErrorCode::UNSUPPORTED);
    set_now(now);
    last_now_ = now;
    seed_actor_thread();
    if (is_start(op.kind) && config_.multi_tenant) seed_quota_eviction();
#if PINSIM_MC_HAS_TENANT_ID_CLASS
    const mc::TenantId tenant(tenant_name(op.object.tenant));
#else
    const std::string tenant = "default";
#endif
    touch(op, tenant, now);  // where the op's keys were
    const Outcome out = perform(op, now, tenant);
    // A lagging log catches up only as time passes (rule log.catch-up; a failover settles it first).
    if (!config_.oplog_lag || op.kind == OpKind::Advance) settle_log();
    touch(op, tenant, now);  // where they are now
    return out;
  }

  void settle() override {
    if (sweep_pending_.exchange(false)) Access::SweepAfterUnmount(*service_);
  }
  void defer_unmount_sweep(bool deferred) { defer_sweep_ = deferred; }

  // HA-OpLog mode: the op's log entries durable and their callbacks run.
  void settle_log() {
#if PINSIM_MC_HAS_OPLOG_WRITER_FACTORY
    if (oplog_) mooncake_oplog::settle(*oplog_);
#endif
  }

  // The metadata shard an object's key routes to now (its group's, on a tree
  // with group routes).
  size_t shard_of(ObjectId id) const {
#if PINSIM_MC_HAS_TENANT_ID_CLASS
    const mc::TenantId tenant(tenant_name(id.tenant));
#else
    const std::string tenant = "default";
#endif
    return Access::ShardOf(*service_, tenant, key_name(id.key));
  }

  void view_whole_next() override {
    const std::lock_guard lock(bookkeeping_);
    all_dirty_ = true;
    list_tenants_ = true;
  }

  View view(Time now) const override {
    set_now(now);
    View v;
    refresh();
    for (const auto& [shard, objects] : shard_objects_)
      for (const ObjectView& o : objects) (o.retiring ? v.retiring : v.objects).push_back(o);
    auto by_id = [](const ObjectView& a, const ObjectView& b) { return a.id < b.id; };
    std::sort(v.objects.begin(), v.objects.end(), by_id);
    std::sort(v.retiring.begin(), v.retiring.end(), by_id);
    add_globals(now, v);
    return v;
  }

 private:
  // The run-time quota policy calls of multi-tenant mode (UNAVAILABLE outside it).
  template <typename Tenant>
  Outcome quota_policy(const Op& op, const Tenant& tenant) {
#if PINSIM_MC_HAS_MULTI_TENANT
    if (op.kind == OpKind::SetQuota) return outcome_of(service_->UpsertTenantQuotaPolicy(tenant, op.quota_bytes));
    return outcome_of(service_->DeleteTenantQuotaPolicy(tenant));
#else
    (void)op, (void)tenant;
    return Outcome::of(ErrorCode::UNSUPPORTED);
#endif
  }

#if PINSIM_MC_HAS_SNAPSHOT_CODEC
  // MasterSnapshotCodec::Encode, kept in memory for a later restore.
  Outcome snapshot() {
    auto r = Access::Encode(*service_);
    if (!r) {
      std::fprintf(stderr, "mooncake target: snapshot encode failed: %s\n", r.error().message.c_str());
      return Outcome::of(map_error(r.error().code));
    }
    auto kept = std::make_shared<const mc::ha::MasterSnapshotPayloads>(std::move(*r));
    const std::lock_guard lock(bookkeeping_);
    snapshots_.push_back(std::move(kept));
    return Outcome{};
  }
#endif

  // PutEnd / UpsertEnd, with the object checksum the End declares (ObjectMeta)
  // on a tree that has one.
  template <typename Tenant>
  Outcome end(const Op& op, const std::string& key, const Tenant& tenant) {
#if PINSIM_MC_HAS_OBJECT_CHECKSUM
    const mc::ObjectMeta meta{key, op.checksum};
#else
    const std::string& meta = key;
#endif
    if (op.kind == OpKind::PutEnd)
      return outcome_of(service_->PutEnd(client_uuid(op.client), meta, tenant, replica_type(op.selector)));
    return outcome_of(service_->UpsertEnd(client_uuid(op.client), meta, tenant, replica_type(op.selector)));
  }

  template <typename Tenant>
  Outcome get(const std::string& key, const Tenant& tenant) {
    auto r = service_->GetReplicaList(key, tenant);
    if (!r) return Outcome::of(map_error(r.error()));
    Outcome out;
    out.replicas = static_cast<uint32_t>(r->replicas.size());
#if PINSIM_MC_HAS_OBJECT_CHECKSUM
    out.checksum = r->object_checksum;
#endif
    return out;
  }

  // CopyStart (source seg<segment>, targets seg<i>), CopyEnd, CopyRevoke. A
  // copy of a proposal's lease sends the token the proposal was answered
  // with, its source and target, as the client of the source segment (to
  // whom the master gives the copy); with no token for it, the op's own
  // source and targets and a lease id no grant made (rule dynrep.copy).
  struct CopyCall {
    mc::UUID client;
    std::string source;
    std::vector<std::string> targets;
    mc::UUID lease{};
    uint64_t epoch = 0;
  };
  CopyCall copy_call(const Op& op) const {
    CopyCall call{client_uuid(op.client), segment_name(op.segment), {}, {}, 0};
    for (uint32_t s : op.targets) call.targets.push_back(segment_name(s));
    if (!op.proposal) return call;
    auto t = tokens_.find({op.object.tenant, *op.proposal});
    if (t == tokens_.end()) {
      call.lease = mc::UUID{0x6e6f2d6c65617365ull, *op.proposal + 1ull};
      return call;
    }
    call = CopyCall{client_uuid(op.client), t->second.source, {t->second.target}, t->second.lease, t->second.epoch};
    if (auto owner = Access::SegmentOwner(*service_, call.source)) call.client = *owner;
    return call;
  }

  template <typename Tenant>
  Outcome copy(const Op& op, const std::string& key, const Tenant& tenant) {
    const CopyCall c = copy_call(op);
#if PINSIM_MC_HAS_DYN_REPL_PROPOSAL
    if (op.kind == OpKind::CopyEnd) return outcome_of(service_->CopyEnd(c.client, key, tenant, c.lease, c.epoch));
    if (op.kind == OpKind::CopyRevoke) return outcome_of(service_->CopyRevoke(c.client, key, tenant, c.lease, c.epoch));
    return outcome_of(service_->CopyStart(c.client, key, tenant, c.source, c.targets, c.lease, c.epoch));
#else  // no tokens in this tree: supports() refuses a copy op with a proposal
    if (op.kind == OpKind::CopyEnd) return outcome_of(service_->CopyEnd(c.client, key, tenant));
    if (op.kind == OpKind::CopyRevoke) return outcome_of(service_->CopyRevoke(c.client, key, tenant));
    return outcome_of(service_->CopyStart(c.client, key, tenant, c.source, c.targets));
#endif
  }

  // SubmitReplicaActionProposal: an ADD for the key with the op's proposal id
  // (unique per tenant and id), no preferred target, no expiry of its own.
  // The lease's token is kept for the copy ops of that proposal.
  Outcome propose(const Op& op, const std::string& key) {
#if PINSIM_MC_HAS_DYN_REPL_PROPOSAL
    mc::ReplicaActionProposal p;
    p.proposal_id = mc::UUID{0x70726f706f73616cull, (uint64_t{op.object.tenant} << 32) | *op.proposal};
    p.tenant_id = tenant_name(op.object.tenant);
    p.key = key;
    auto r = service_->SubmitReplicaActionProposal(p);
    if (!r) return Outcome::of(map_error(r.error()));
    tokens_[{op.object.tenant, *op.proposal}] = Token{r->lease_id, r->version_epoch, r->source_segment,
                                                      r->target_segment};
    Outcome out;
    out.segment = parse_id(r->target_segment, "seg").value_or(UINT32_MAX);  // one this adapter did not mount: max
    return out;
#else
    (void)op, (void)key;
    return Outcome::of(ErrorCode::UNSUPPORTED);
#endif
  }

  // The local-disk tier's ops, all the holder's (the setup client's; README,
  // "The local-disk tier"). An offload_take marks the shards of the keys it
  // took: their offloads are now in the holder's hand.
  template <typename Tenant>
  Outcome local_disk(const Op& op, const std::string& key, const Tenant& tenant) {
#if PINSIM_MC_HAS_LOCAL_DISK
    switch (op.kind) {
      case OpKind::OffloadTake: {
        std::vector<mooncake_local::Key> taken;
        const auto r = holder_.take(*service_, &taken);
        std::vector<ObjectId> ids;
        std::vector<size_t> routed;
        for (const auto& [t, k] : taken) {
          auto tenant_id = parse_tenant(t);
          auto key_id = parse_id(k, "k");
          if (!tenant_id || !key_id) continue;  // no key this adapter wrote
          ids.push_back({*tenant_id, *key_id});
          routed.push_back(Access::ShardOf(*service_, Tenant(t), k));
        }
        const std::lock_guard lock(bookkeeping_);
        mark_objects(op.object.tenant, ids, routed);
        return outcome_of(r);
      }
      case OpKind::OffloadEnd:
        return outcome_of(holder_.end(*service_, tenant, key, op.fail));
      case OpKind::PromotionStart:
        return outcome_of(holder_.promotion_start(*service_, tenant, key, preferred_segments()));
      default:
        return outcome_of(holder_.promotion_end(*service_, tenant, key, op.fail));
    }
#else  // supports() refuses them: no local-disk tier in this tree
    (void)op, (void)key, (void)tenant;
    return Outcome::of(ErrorCode::UNSUPPORTED);
#endif
  }

  // The holder's local disk, mounted with offloading on (a configuration
  // with the tier), and the holder a live client, as its first heartbeat
  // makes it: Ping answers NEED_REMOUNT to a client that never remounted and
  // the client calls ReMountSegment with its segments, which puts it among
  // the OK clients. Without that, every sweep (ClearInvalidHandles after an
  // unmount, a write's stale-handle cleanup) takes its LOCAL_DISK replicas
  // for a dead client's.
  bool mount_local_disk(std::string* error) {
#if PINSIM_MC_HAS_LOCAL_DISK
    if (!config_.local_disk) return true;
    if (const auto r = holder_.mount(*service_); !r) {
      *error = "MountLocalDiskSegment of the setup client failed: " + mc::toString(r.error());
      return false;
    }
    (void)service_->Ping(kSegmentOwner);
    std::vector<mc::Segment> segments;
    for (size_t i : memory_segments_) segments.push_back(segment(i));
    if (const auto r = service_->ReMountSegment(segments, kSegmentOwner); !r) {
      *error = "ReMountSegment of the setup client failed: " + mc::toString(r.error());
      return false;
    }
#else
    (void)error;
#endif
    return true;
  }

  Outcome evict(const Op& op) {
    seed_batch_evict();
    const mooncake_lane::InlineThreads census_on_this_thread;  // BatchEvict joins them all
    Access::Evict(*service_, op.evict_target_pct / 100.0, op.evict_lowerbound_pct / 100.0);
    return Outcome{};
  }

  template <typename Tenant>
  Outcome perform(const Op& op, Time now, const Tenant& tenant) {
    const std::string key = key_name(op.object.key);
    switch (op.kind) {
      case OpKind::PutStart:
        return outcome_of(service_->PutStart(client_uuid(op.client), key, tenant, op.size, replicate_config(op)));
      case OpKind::UpsertStart:
        return outcome_of(service_->UpsertStart(client_uuid(op.client), key, tenant, op.size, replicate_config(op)));
      case OpKind::PutEnd:
      case OpKind::UpsertEnd:
        return end(op, key, tenant);
      case OpKind::PutRevoke:
        return outcome_of(service_->PutRevoke(client_uuid(op.client), key, tenant, replica_type(op.selector)));
      case OpKind::UpsertRevoke:
        return outcome_of(service_->UpsertRevoke(client_uuid(op.client), key, tenant, replica_type(op.selector)));
      case OpKind::Get:
        return get(key, tenant);
      case OpKind::Exist: {
        auto r = service_->ExistKey(key, tenant);
        if (!r) return Outcome::of(map_error(r.error()));
        Outcome out;
        out.exists = *r;
        return out;
      }
      case OpKind::Remove:
        return outcome_of(service_->Remove(key, tenant, op.force));
      case OpKind::RemoveAll:
      case OpKind::RemoveByRegex:
        return remove_many(op, tenant);
      case OpKind::SetQuota:
      case OpKind::DeleteQuota:
        return quota_policy(op, tenant);
      case OpKind::Evict:
        return evict(op);
      case OpKind::Cleanup:
        Access::Cleanup(*service_, to_tp(now));
        return Outcome{};
#if PINSIM_MC_HAS_SNAPSHOT_CODEC
      case OpKind::Snapshot:
        return snapshot();
      case OpKind::Restore:
        return restore(op, now);
#else
      case OpKind::Snapshot:
      case OpKind::Restore:
        return Outcome::of(ErrorCode::UNSUPPORTED);
#endif
      case OpKind::Failover:
        return failover(now);
      case OpKind::Advance:
        return Outcome{};
      case OpKind::Unmount:
      case OpKind::Mount:
      case OpKind::GracefulUnmount:
        return segment_call(op);
      case OpKind::RetainGroups:
        return retain_groups(op);
      case OpKind::CopyStart:
      case OpKind::CopyEnd:
      case OpKind::CopyRevoke:
        return copy(op, key, tenant);
      case OpKind::Propose:
        return propose(op, key);
      case OpKind::OffloadTake: case OpKind::OffloadEnd: case OpKind::PromotionStart: case OpKind::PromotionEnd:
        return local_disk(op, key, tenant);
      case OpKind::BatchExist:
      case OpKind::BatchGet:
      case OpKind::BatchPutEnd:
      case OpKind::BatchPutRevoke:
      case OpKind::BatchUpsertStart:
      case OpKind::BatchUpsertEnd:
      case OpKind::BatchUpsertRevoke:
      case OpKind::BatchRemove:
#if PINSIM_MC_HAS_BATCH_UPSERT
        return batch(op, tenant);
#else
        return Outcome::of(ErrorCode::UNSUPPORTED);
#endif
    }
    return Outcome::of(ErrorCode::UNSUPPORTED);
  }

  // The View reads only the shards an op may have changed. An op changes
  // only the shards of its keys when it is a single-key or batch call on
  // those keys: Mooncake routes a grouped key to its group's shard, where the
  // whole group lives (a read granting the group's leases stays there), so
  // the shards are the ones each key was in before the op (as last read) and
  // is in after it (Mooncake's own routing). A write in multi-tenant mode may
  // also evict other objects of its tenant for quota (EvictTenantMemoryForQuota
  // takes only that tenant's), so it adds every shard that held one of them.
  // A cleanup (CleanupExpiredSoftPins) expires only pins whose deadline is
  // due, so it reads the shards holding an object whose deadline was at or
  // before now. Eviction, the removals by pattern, a snapshot, the quota
  // calls and the segment calls can erase or change objects but never create
  // one (a mount changes none), so they read every shard that held an object
  // as last read. A restore reads all shards; an advance calls nothing in the
  // master. Every kFullViewEvery-th View, and the one the runner asks to be
  // whole (view_whole_next: a run's last, a concurrent round's), read all
  // shards. The first reads only what the ops touched: a run's master starts
  // empty (constructed, or reset by Mooncake's own reset), and whatever a
  // reset left shows at the run's last View at the latest.
  // PINSIM_MOONCAKE_CHECK_VIEW=1 compares every View with a full read.
  static constexpr uint64_t kFullViewEvery = 128;

  // What an op can change among the objects, which decides the shards its View reads.
  enum class Touches {
    Keys,  // its own keys' objects (a cleanup: the due pins')
    Held,  // only objects that exist: it can erase or change them, never create one
    All,   // it may create objects anywhere (a restore)
  };

  Touches touched_by(const Op& op) const {
    switch (op.kind) {
      case OpKind::Get: case OpKind::Exist: case OpKind::PutEnd: case OpKind::PutRevoke: case OpKind::UpsertEnd:
      case OpKind::UpsertRevoke: case OpKind::Remove: case OpKind::BatchExist: case OpKind::BatchGet:
      case OpKind::BatchPutEnd: case OpKind::BatchPutRevoke: case OpKind::BatchUpsertEnd:
      case OpKind::BatchUpsertRevoke: case OpKind::BatchRemove:
      case OpKind::PutStart: case OpKind::UpsertStart: case OpKind::BatchUpsertStart:
      case OpKind::CopyStart: case OpKind::CopyEnd: case OpKind::CopyRevoke: case OpKind::Propose:
      case OpKind::OffloadEnd: case OpKind::PromotionStart: case OpKind::PromotionEnd:
      case OpKind::OffloadTake:  // the keys it took (local_disk marks them)
        return Touches::Keys;
      case OpKind::Cleanup:  // its objects are the due pins' (touch)
        return PINSIM_MC_HAS_CLEANUP && !PINSIM_MC_HAS_RETAIN_GROUPS ? Touches::Keys : Touches::All;
      case OpKind::RemoveAll: case OpKind::RemoveByRegex: case OpKind::Evict: case OpKind::Snapshot:
      case OpKind::SetQuota: case OpKind::DeleteQuota: case OpKind::Unmount: case OpKind::Mount:
      case OpKind::GracefulUnmount:
        return Touches::Held;
      case OpKind::Advance:  // a lagging log catches up: its callbacks finalise the retiring objects
        return config_.oplog_lag ? Touches::Held : Touches::Keys;
      case OpKind::RetainGroups: case OpKind::Restore: case OpKind::Failover:
        return Touches::All;
    }
    return Touches::All;
  }

  // Safe from several threads at once: Mooncake's routing (which may lock)
  // is read first, the marks are made under the bookkeeping lock, and
  // shard_objects_ changes only in view(), which runs with no op in flight.
  template <typename Tenant>
  void touch(const Op& op, const Tenant& tenant, Time now) {
    const Touches what = std::string_view(PINSIM_MC_TREE_ID) == "main" ? touched_by(op) : Touches::All;
    if (what == Touches::All) {
      const std::lock_guard lock(bookkeeping_);
      all_dirty_ = true;  // other trees: the routing argument above is made for main only
      named_tenants_.insert(op.object.tenant);
      if (op.kind == OpKind::Restore || op.kind == OpKind::Failover) list_tenants_ = true;
      return;
    }
    if (what == Touches::Held) return touch_held(op.object.tenant);
    if (op.kind == OpKind::Advance || op.kind == OpKind::OffloadTake) return;  // a take: its keys, in local_disk
    if (op.kind == OpKind::Cleanup) return touch_due_pins(now);
    std::vector<ObjectId> ids;
    for (KeyId k : is_batch(op.kind) ? op.keys : std::vector<KeyId>{op.object.key})
      ids.push_back({op.object.tenant, k});
    std::vector<size_t> routed;
    for (const ObjectId& id : ids) routed.push_back(Access::ShardOf(*service_, tenant, key_name(id.key)));
    const std::lock_guard lock(bookkeeping_);
    if (config_.multi_tenant && is_start(op.kind))  // its quota eviction: the tenant's objects
      mark_shards_holding([&](const ObjectView& o) { return o.id.tenant == op.object.tenant; });
    mark_objects(op.object.tenant, ids, routed);
  }

  // Marks for reading the shards `ids` are routed to now and those holding
  // them as last read (bookkeeping_ held); `tenant` is the op's.
  void mark_objects(TenantId tenant, const std::vector<ObjectId>& ids, const std::vector<size_t>& routed) {
    dirty_tenants_.insert(tenant);
    named_tenants_.insert(tenant);
    for (size_t i = 0; i < ids.size(); ++i) {
      dirty_.insert(routed[i]);
      dirty_tenants_.insert(ids[i].tenant);
      named_tenants_.insert(ids[i].tenant);
      mark_shards_holding([&](const ObjectView& o) { return o.id == ids[i]; });
    }
  }

  // Every shard that held an object or named a disk file, as last read, and
  // every named tenant's charge and quota: all an op that creates no object
  // can change.
  void touch_held(TenantId tenant) {
    const std::lock_guard lock(bookkeeping_);
    named_tenants_.insert(tenant);
    dirty_tenants_.insert(named_tenants_.begin(), named_tenants_.end());
    for (const auto& [shard, objects] : shard_objects_) dirty_.insert(shard);
    for (const auto& [shard, files] : shard_disk_files_) dirty_.insert(shard);
  }

  // The shards holding an object whose committed deadline is at or before `now` (as last read).
  void touch_due_pins(Time now) {
    const std::lock_guard lock(bookkeeping_);
    mark_shards_holding([&](const ObjectView& o) { return o.deadline && *o.deadline <= now; });
  }

  // Marks for reading every shard that held an object `held` is true of, as
  // last read (bookkeeping_ held).
  template <typename Pred>
  void mark_shards_holding(Pred held) {
    for (const auto& [shard, objects] : shard_objects_)
      if (std::any_of(objects.begin(), objects.end(), held)) dirty_.insert(shard);
  }

  // Shard `i`'s objects, and the files its disk replicas name into `files`.
  std::vector<ObjectView> read_shard(size_t i, std::vector<std::string>* files) const {
    std::vector<ObjectView> out;
    for (const Access::Object& o : Access::Objects(*service_, i)) {
      object_views(o, &out);
      files->insert(files->end(), o.disk_files.begin(), o.disk_files.end());
    }
    return out;
  }

  std::map<size_t, std::vector<ObjectView>> read_all(std::map<size_t, std::vector<std::string>>* files) const {
    std::map<size_t, std::vector<ObjectView>> all;
    files->clear();
    for (size_t i = 0; i < Access::kShards; ++i) {
      std::vector<std::string> named;
      if (auto objects = read_shard(i, &named); !objects.empty()) all[i] = std::move(objects);
      if (!named.empty()) (*files)[i] = std::move(named);
    }
    return all;
  }

  // Disk replicas whose file another disk replica names too.
  uint64_t shared_disk_files() const {
    std::map<std::string, uint64_t> named;
    for (const auto& [shard, files] : shard_disk_files_)
      for (const std::string& f : files) ++named[f];
    uint64_t shared = 0;
    for (const auto& [file, n] : named) shared += n > 1 ? n : 0;
    return shared;
  }

  // Each segment's metrics (the labels Mooncake keeps beside the totals),
  // read again only when what moves them may have moved: Mooncake changes a
  // label with its total (inc/dec name both), or resets or removes it at a
  // restore (a whole View), an unmount (the segment's state changes) or a
  // mount (the capacity total). So the labels are read when the totals, a
  // segment's bytes or state changed since the last read, on a whole View
  // and on every kFullViewEvery-th; a cheap op that moves none of them reuses
  // them. PINSIM_MOONCAKE_CHECK_VIEW=1 compares them with a read every View.
  void segment_labels(View& v) const {
    auto& metrics = mc::MasterMetricManager::instance();
    auto read = [&](std::vector<int64_t>* allocated, std::vector<int64_t>* capacity) {
      allocated->clear(), capacity->clear();
      for (size_t i : memory_segments_) {
        allocated->push_back(metrics.get_segment_allocated_mem_size(segment_name(i)));
        capacity->push_back(metrics.get_segment_total_mem_capacity(segment_name(i)));
      }
    };
    const bool moved = labels_stale_ || v.allocated != labels_.allocated_total ||
                       v.capacity != labels_.capacity_total || v.memory_used != labels_.memory_used ||
                       v.mounted != labels_.mounted;
    if (moved) {
      read(&labels_.allocated, &labels_.capacity);
      labels_.allocated_total = v.allocated, labels_.capacity_total = v.capacity;
      labels_.memory_used = v.memory_used, labels_.mounted = v.mounted;
      labels_stale_ = false;
    } else if (check_view()) {
      std::vector<int64_t> allocated, capacity;
      read(&allocated, &capacity);
      if (allocated != labels_.allocated || capacity != labels_.capacity)
        throw std::logic_error("mooncake target: the segments' metrics moved with nothing that moves them");
    }
    v.segment_allocated = labels_.allocated;
    v.segment_capacity = labels_.capacity;
  }

  static bool check_view() {
    static const bool check = [] {
      const char* v = std::getenv("PINSIM_MOONCAKE_CHECK_VIEW");
      return v && *v && std::string(v) != "0";
    }();
    return check;
  }

  void refresh() const {
    const bool check = check_view();
    const bool full = all_dirty_ || ++views_since_full_ >= kFullViewEvery;
    if (full) {
      shard_objects_ = read_all(&shard_disk_files_);
      views_since_full_ = 0;
      labels_stale_ = true;
    } else {
      for (size_t i : dirty_) {
        std::vector<std::string> files;
        if (auto objects = read_shard(i, &files); !objects.empty()) shard_objects_[i] = std::move(objects);
        else shard_objects_.erase(i);
        if (!files.empty()) shard_disk_files_[i] = std::move(files);
        else shard_disk_files_.erase(i);
      }
      std::map<size_t, std::vector<std::string>> files;
      if (check && (shard_objects_ != read_all(&files) || files != shard_disk_files_))
        throw std::logic_error("mooncake target: the View read from the touched shards differs from a full read");
    }
    refresh_charges(check);
    dirty_.clear();
    dirty_tenants_.clear();
    all_dirty_ = false;
  }

  // Tenant charges and effective quotas (multi-tenant mode). Every tenant's
  // are listed (ListTenantQuotaSnapshots walks 1,024 shards) after a restore,
  // on every kFullViewEvery-th View and on a whole one; the first View reads
  // the configuration's tenants (a new master charges none). After another
  // op that is not on its keys, those of each tenant the run has named (the
  // configuration's and the ops': no other tenant can own an object or a
  // policy) are read; after an op on keys, those of its tenant (a charge is
  // the tenant's own objects' bytes, and a write's quota eviction takes only
  // its tenant's). PINSIM_MOONCAKE_CHECK_VIEW=1 compares them with a listing.
  void refresh_charges(bool check) const {
#if PINSIM_MC_HAS_MULTI_TENANT
    if (!config_.multi_tenant) return;
    if (list_tenants_ || ++views_since_listing_ >= kFullViewEvery) {
      std::tie(charges_, quotas_) = all_charges_and_quotas();
      list_tenants_ = false;
      views_since_listing_ = 0;
      return;
    }
    for (TenantId t : all_dirty_ ? named_tenants_ : dirty_tenants_) {
      const std::string name = tenant_name(t);
      const auto q = Access::TenantQuotaOf(*service_, name);
      if (q && q->charged != 0) charges_[name] = q->charged;
      else charges_.erase(name);
      if (q && q->has_policy) quotas_[name] = q->effective_quota;
      else quotas_.erase(name);
    }
    if (!check) return;
    if (const auto listed = all_charges_and_quotas(); charges_ != listed.first || quotas_ != listed.second)
      throw std::logic_error("mooncake target: the tenants' charges or quotas read differ from a listing");
#else
    (void)check;
#endif
  }

#if PINSIM_MC_HAS_MULTI_TENANT
  // Every tenant's charged bytes (when not 0) and effective quota (tenants
  // with a policy), by tenant name: one ListTenantQuotaSnapshots.
  std::pair<std::map<std::string, uint64_t>, std::map<std::string, uint64_t>> all_charges_and_quotas() const {
    std::pair<std::map<std::string, uint64_t>, std::map<std::string, uint64_t>> out;
    for (const Access::TenantQuota& q : Access::TenantQuotas(*service_)) {
      if (q.charged != 0) out.first[q.name] = q.charged;
      if (q.has_policy) out.second[q.name] = q.effective_quota;
    }
    return out;
  }
#endif

  // The View's parts that are not objects: a few values, read every time.
  void add_globals(Time now, View& v) const {
#if PINSIM_MC_HAS_GAUGE
    v.gauge = mc::MasterMetricManager::instance().get_soft_pin_key_count() - baseline_;
#endif
    v.cached = static_cast<uint64_t>(mc::MasterMetricManager::instance().get_mem_cache_nums());
#if PINSIM_MC_HAS_HIT_BYTES
    v.memory_hit_bytes =
        static_cast<uint64_t>(mc::MasterMetricManager::instance().get_mem_cache_hit_bytes() - hit_baseline_.first);
    v.disk_hit_bytes =
        static_cast<uint64_t>(mc::MasterMetricManager::instance().get_file_cache_hit_bytes() - hit_baseline_.second);
#endif
#if PINSIM_MC_HAS_VALID_GETS
    v.reads_served = static_cast<uint64_t>(mooncake_metrics::valid_get_nums() - reads_baseline_);
#endif
#if PINSIM_MC_HAS_HIT_NUMS
    const auto [memory_hits, disk_hits] = mooncake_metrics::cache_hit_nums();
    v.memory_hits = static_cast<uint64_t>(memory_hits - hit_nums_baseline_.first);
    v.disk_hits = static_cast<uint64_t>(disk_hits - hit_nums_baseline_.second);
#endif
#if PINSIM_MC_HAS_REFUSALS
    const std::array<int64_t, 3> refusals = refusal_metrics();
    v.quota_rejections = static_cast<uint64_t>(refusals[0] - refusals_baseline_[0]);
    v.placement_failures = static_cast<uint64_t>(refusals[1] - refusals_baseline_[1]);
    v.partial_placements = static_cast<uint64_t>(refusals[2] - refusals_baseline_[2]);
#endif
    v.allocated = static_cast<uint64_t>(mc::MasterMetricManager::instance().get_allocated_mem_size());
    v.capacity = static_cast<uint64_t>(mc::MasterMetricManager::instance().get_total_mem_capacity());
#if PINSIM_MC_HAS_DFS
    // Under each shard's handle lock (dfs_records.h); the metadata's DFS
    // replicas are in the objects, read under the metadata shards' locks.
    if (const mc::DfsGlobalAllocator* dfs = Access::DfsAllocator(*service_))
      v.dfs_slots_used = mooncake_dfs::live_records(*dfs);
#endif
    if (config_.disk_replica) v.shared_disk_files = shared_disk_files();
#if PINSIM_MC_HAS_GRACEFUL_UNMOUNT
    {  // through each mounted segment's allocator: a leaving one's is out of the manager
      std::vector<mc::UUID> ids;
      for (size_t i : memory_segments_) ids.push_back(segment_id(i));
      for (const auto& [held, mounted] : Access::SegmentStates(*service_, ids)) {
        v.memory_used.push_back(held);
        v.mounted.push_back(mounted);
      }
    }
#else
    {
      std::vector<std::string> names;
      for (size_t i : memory_segments_) names.push_back(segment_name(i));
      for (const auto& [used, capacity] : Access::Usage(*service_, names)) {
        v.memory_used.push_back(used);
        v.mounted.push_back(capacity > 0 ? kMounted : kUnmounted);  // no segment leaves gracefully here
      }
    }
#endif
    segment_labels(v);
#if PINSIM_MC_HAS_MULTI_TENANT
    for (const auto& [name, bytes] : charges_)
      if (auto t = parse_tenant(name)) v.usage.push_back({*t, bytes});
    for (const auto& [name, bytes] : quotas_)
      if (auto t = parse_tenant(name)) v.quotas.push_back({*t, bytes});
    auto by_tenant = [](const UsageView& a, const UsageView& b) { return a.tenant < b.tenant; };
    std::sort(v.usage.begin(), v.usage.end(), by_tenant);
    std::sort(v.quotas.begin(), v.quotas.end(), by_tenant);
#endif
#if PINSIM_MC_HAS_RETAIN_GROUPS
    for (const auto& [name, deadline] : Access::Retention(*service_)) {
      ++v.retention_entries;
      const Time d = from_tp(deadline);
      if (d > now) v.retention.push_back({0, parse_id(name, "g").value_or(0), d});
    }
    std::sort(v.retention.begin(), v.retention.end(), [](const RetentionView& a, const RetentionView& b) {
      return std::tie(a.tenant, a.group) < std::tie(b.tenant, b.group);
    });
    v.retained_group_count = Access::RetainedGroupCount(*service_);
#endif
    (void)now;
  }

  // BatchEvict's second pass scans shards from randomIndex(kNumShards), drawn
  // from this thread's engine: seed it per pass so that the same trace
  // evicts the same objects every time.
  void seed_batch_evict() {
#if PINSIM_MC_HAS_RANDOM_ENGINE
    mc::threadLocalRandomEngine().seed(0x70696e73696dull + evictions_++);
#endif
  }
  // A write refused for quota evicts the tenant's objects from a random
  // shard start (EvictTenantMemoryForQuota): seed the engine per write.
  void seed_quota_eviction() {
#if PINSIM_MC_HAS_RANDOM_ENGINE
    mc::threadLocalRandomEngine().seed(0x71756f7461ull + writes_++);
#endif
  }
  // Mooncake's engine is per thread and seeded from random_device: a thread
  // other than the one that started the target (an actor of the concurrency
  // lane) gets a fixed seed before its first op, so that a schedule replays.
  void seed_actor_thread() {
#if PINSIM_MC_HAS_RANDOM_ENGINE
    thread_local const MooncakeTarget* seeded_for = nullptr;
    if (seeded_for == this || std::this_thread::get_id() == owner_) return;
    seeded_for = this;
    mc::threadLocalRandomEngine().seed(0x6163746f72ull + actor_threads_++);
#endif
  }

  static mc::ReplicaType replica_type(ReplicaSelector s) {
    switch (s) {
      case ReplicaSelector::All: return mc::ReplicaType::ALL;
      case ReplicaSelector::Memory: return mc::ReplicaType::MEMORY;
      case ReplicaSelector::Nof: return mc::ReplicaType::NOF_SSD;
      case ReplicaSelector::Disk: return mc::ReplicaType::DISK;
#if PINSIM_MC_HAS_DFS
      case ReplicaSelector::Dfs: return mc::ReplicaType::DFS;
#else
      case ReplicaSelector::Dfs: break;  // supports() refuses it: no DFS in this tree
#endif
    }
    return mc::ReplicaType::ALL;
  }

  mc::ReplicateConfig replicate_config(const Op& op) {
    mc::ReplicateConfig rc;
    rc.replica_num = op.memory_replicas;
    rc.nof_replica_num = op.nof_replicas;
#if PINSIM_MC_HAS_DFS
    rc.dfs_replica_num = op.dfs_replicas;
#endif
#if PINSIM_MC_HAS_HARD_PIN
    rc.with_hard_pin = op.hard_pin;
#endif
#if PINSIM_MC_HAS_SOFT_PIN_ACTION
    rc.soft_pin_action = static_cast<mc::SoftPinAction>(op.soft_pin.action);
    rc.soft_pin_ttl_ms = op.soft_pin.ttl_ms;
#else
    // Pre-#2909 translation: Enable (with or without a TTL) is the boolean
    // with_soft_pin, which always uses the master's default TTL.
    rc.with_soft_pin = op.soft_pin.action == static_cast<uint8_t>(SoftPinAction::Enable);
#endif
    rc.group_ids = group_ids(op, 1);
    rc.preferred_segments = preferred_segments();
    return rc;
  }

  // Deterministic placement, the model's rule: most free space first, then
  // the lowest segment index. Mooncake tries preferred segments in order
  // before its random walk, and every memory segment is listed (a write's
  // and a promotion start's).
  std::vector<std::string> preferred_segments() const {
    std::vector<std::string> names;
    for (size_t i : memory_segments_) names.push_back(segment_name(i));
    const auto usage = Access::Usage(*service_, names);
    std::vector<size_t> order(names.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return usage[a].second - usage[a].first > usage[b].second - usage[b].first;
    });
    std::vector<std::string> preferred;
    for (size_t i : order) preferred.push_back(names[i]);
    return preferred;
  }

  static std::string segment_name(size_t index) { return "seg" + std::to_string(index); }

  // The ECMAScript regex that matches exactly the names of `keys` ("^k(?:1|3)$";
  // no key at all: a pattern no key name matches).
  static std::string key_regex(const std::vector<KeyId>& keys) {
    if (keys.empty()) return "^$";
    std::string alternatives;
    for (KeyId k : keys) alternatives += (alternatives.empty() ? "" : "|") + std::to_string(k);
    return "^k(?:" + alternatives + ")$";
  }

  // RemoveAll, and RemoveByRegex with the pattern matching exactly op.keys.
  // Outside multi-tenant mode every object is the default tenant's, so
  // RemoveAll goes through the all-tenants overload (same conditions), which
  // the tenant overload's campaigns would otherwise never enter.
  template <typename Tenant>
  Outcome remove_many(const Op& op, const Tenant& tenant) {
    Outcome out;
#if PINSIM_MC_HAS_TENANT_ID_CLASS
    if (op.kind == OpKind::RemoveByRegex) {
      auto r = service_->RemoveByRegex(key_regex(op.keys), tenant, op.force);
      if (!r) return Outcome::of(map_error(r.error()));
      out.removed = static_cast<uint64_t>(*r);
      return out;
    }
    out.removed = static_cast<uint64_t>(config_.multi_tenant ? service_->RemoveAll(tenant, op.force)
                                                             : service_->RemoveAll(op.force));
#else
    (void)tenant;
    if (op.kind == OpKind::RemoveByRegex) return Outcome::of(ErrorCode::UNSUPPORTED);
    out.removed = static_cast<uint64_t>(service_->RemoveAll(op.force));
#endif
    return out;
  }

  // ReplicateConfig::group_ids for `keys` keys, in the op's shape.
  static std::optional<std::vector<std::string>> group_ids(const Op& op, size_t keys) {
    const std::string id = op.group == 0 ? std::string() : group_name(op.group);
    switch (op.group_shape) {
      case GroupShape::ByGroup: return op.group == 0 ? std::nullopt : std::optional(std::vector<std::string>(keys, id));
      case GroupShape::Explicit: return std::vector<std::string>(keys, id);
      case GroupShape::EmptyList: return std::vector<std::string>{};
      case GroupShape::TwoIds: return std::vector<std::string>(keys + 1, id);
    }
    return std::nullopt;
  }

#if PINSIM_MC_HAS_BATCH_UPSERT
  // The batch ops: Mooncake's own Batch* calls, one result per key.
  template <typename Tenant>
  Outcome batch(const Op& op, const Tenant& tenant) {
    std::vector<std::string> keys;
    for (KeyId k : op.keys) keys.push_back(key_name(k));
#if PINSIM_MC_HAS_OBJECT_META_BATCH
    std::vector<mc::ObjectMeta> metas;
    for (const std::string& k : keys) metas.push_back(mc::ObjectMeta{k, std::nullopt});
#else
    const std::vector<std::string>& metas = keys;
#endif
    const mc::UUID client = client_uuid(op.client);
    Outcome out;
    auto codes = [&out](const auto& results) {
      for (const auto& r : results) out.results.push_back(outcome_of(r).as_key_result());
      return out;
    };
    switch (op.kind) {
      case OpKind::BatchExist:
        for (const auto& r : service_->BatchExistKey(keys, tenant)) {
          KeyResult x = outcome_of(r).as_key_result();
          if (r) x.exists = *r;
          out.results.push_back(x);
        }
        return out;
      case OpKind::BatchGet:
        for (const auto& r : service_->BatchGetReplicaList(keys, tenant)) {
          KeyResult x = outcome_of(r).as_key_result();
          if (r) x.replicas = static_cast<uint32_t>(r->replicas.size());
#if PINSIM_MC_HAS_OBJECT_CHECKSUM
          if (r) x.checksum = r->object_checksum;
#endif
          out.results.push_back(x);
        }
        return out;
      case OpKind::BatchPutEnd:
        return codes(service_->BatchPutEnd(client, metas, tenant, replica_type(op.selector)));
      case OpKind::BatchPutRevoke:
        return codes(service_->BatchPutRevoke(client, keys, tenant, replica_type(op.selector)));
      case OpKind::BatchUpsertStart: {
        mc::ReplicateConfig rc = replicate_config(op);
        // One group id per key (ReplicateConfig::ForSingleKey), the batch's group for each.
        rc.group_ids = group_ids(op, keys.size());
        return codes(service_->BatchUpsertStart(client, keys, tenant, op.sizes, rc));
      }
      case OpKind::BatchUpsertEnd:
        return codes(service_->BatchUpsertEnd(client, metas, tenant));
      case OpKind::BatchUpsertRevoke:
        return codes(service_->BatchUpsertRevoke(client, keys, tenant));
      case OpKind::BatchRemove:
        return codes(service_->BatchRemove(keys, tenant, op.force));
      case OpKind::PutStart: case OpKind::PutEnd: case OpKind::PutRevoke: case OpKind::UpsertStart:
      case OpKind::UpsertEnd: case OpKind::UpsertRevoke: case OpKind::Get: case OpKind::Exist:
      case OpKind::Remove: case OpKind::RemoveAll: case OpKind::RemoveByRegex: case OpKind::RetainGroups:
      case OpKind::Evict:
      case OpKind::Cleanup: case OpKind::Snapshot: case OpKind::Restore: case OpKind::Failover: case OpKind::Advance:
      case OpKind::SetQuota: case OpKind::DeleteQuota: case OpKind::Unmount: case OpKind::Mount:
      case OpKind::GracefulUnmount: case OpKind::CopyStart: case OpKind::CopyEnd: case OpKind::CopyRevoke:
      case OpKind::Propose: case OpKind::OffloadTake: case OpKind::OffloadEnd: case OpKind::PromotionStart:
      case OpKind::PromotionEnd:
        break;
    }
    return Outcome::of(ErrorCode::UNSUPPORTED);
  }
#endif

  // PR 2835 RetainGroups: group 0 is the empty group id (INVALID_PARAMS per
  // element); true is admitted, false is "cap reached".
  Outcome retain_groups(const Op& op) {
#if PINSIM_MC_HAS_RETAIN_GROUPS
    std::vector<std::string> names;
    for (GroupId g : op.groups) names.push_back(g == 0 ? std::string() : group_name(g));
    Outcome out;
    for (const auto& r : service_->RetainGroups(names, op.ttl_ms, "default")) {
      if (r) out.retained.push_back(*r ? RetainResult::Accepted : RetainResult::Full);
      else if (r.error() == mc::ErrorCode::INVALID_PARAMS) out.retained.push_back(RetainResult::InvalidParams);
      else return Outcome::of(map_error(r.error()));
    }
    return out;
#else
    (void)op;
    return Outcome::of(ErrorCode::UNSUPPORTED);
#endif
  }

  // The id of segment `i` (every View reads it: no strings built).
  static mc::UUID segment_id(size_t i) { return {0x5345474dull, i + 1}; }

  // Memory segment `i` of the config as a client mounts it.
  mc::Segment segment(size_t i) const {
    mc::Segment seg;
    seg.id = segment_id(i);
    seg.name = segment_name(i);
    seg.base = 0x100000000ull * (i + 1);
    seg.size = config_.segments[i].capacity;
    seg.te_endpoint = seg.name;
    seg.protocol = "tcp";
    return seg;
  }

  // unmount, mount and graceful_unmount: UnmountSegment, MountSegment and
  // GracefulUnmountSegment of the actor's client, with the segment's own id.
  // An unmount schedules the sweep of invalid handles on the replica-cleanup
  // worker, which is run here. A graceful unmount's grace (kGraceMs, on
  // Mooncake's steady clock, virtual like the rest) ends past every steady
  // time the virtual clock answers, so its timer never expires, however far a
  // run advances: an unmount or a restore ends it, as in the model.
  static constexpr uint64_t kGraceMs = mooncake_clock::kBeyondSteadyMs;
  Outcome segment_call(const Op& op) {
    const mc::Segment seg = segment(op.segment);
    if (op.kind == OpKind::Mount) return outcome_of(service_->MountSegment(seg, client_uuid(op.client)));
#if PINSIM_MC_HAS_GRACEFUL_UNMOUNT
    if (op.kind == OpKind::GracefulUnmount)
      return outcome_of(service_->GracefulUnmountSegment(seg.id, client_uuid(op.client), kGraceMs));
#endif
    const Outcome out = outcome_of(service_->UnmountSegment(seg.id, client_uuid(op.client)));
    if (defer_sweep_) sweep_pending_ = true;
    else Access::SweepAfterUnmount(*service_);
    return out;
  }

  // A reused multi-tenant master takes this run's policies as its constructor
  // took its first run's: the connector's file, loaded, then every tenant's
  // charge rebuilt from the (empty) metadata.
  bool reload_policies(std::string* error) {
#if PINSIM_MC_HAS_MULTI_TENANT
    if (!write_policy_file(config_, policy_file_, error)) return false;
    try {
      Access::LoadPolicies(*service_);
    } catch (const std::exception& e) {
      *error = std::string("MasterService refused the configuration: ") + e.what();
      return false;
    }
    Access::RebuildCharges(*service_);
#else
    (void)error;
#endif
    return true;
  }

  bool mount_segments(std::string* error) {
    for (size_t i : memory_segments_) {
      const mc::Segment seg = segment(i);
      auto r = service_->MountSegment(seg, kSegmentOwner);
      if (!r) {
        *error = "MountSegment(" + seg.name + ", " + std::to_string(seg.size) +
                 " bytes) failed: " + mc::toString(r.error());
        return false;
      }
    }
    return true;
  }

#if PINSIM_MC_HAS_SNAPSHOT_CODEC
  // RestoreState's loop: candidates newest first, each decoded and applied
  // after a reset; one that fails, or throws (RestoreState catches every
  // exception and calls the candidate unusable), gives way to the next older
  // one. A failing first candidate (`fail_first_candidate`) is decoded and
  // dropped. With no usable candidate the master starts empty, the clients
  // mount their segments again, and the op reports INTERNAL_ERROR, as the
  // model does. RestoreState returns nothing, so the outcome is the harness's
  // reading: the model restores the newest candidate the op did not fail on
  // purpose, and a master that could not (it fell back to an older one, or
  // started empty) answers INTERNAL_ERROR at this step, whatever state it
  // restored.
  Outcome restore(const Op& op, Time now) {
    std::vector<std::shared_ptr<const mc::ha::MasterSnapshotPayloads>> snapshots;
    {
      const std::lock_guard lock(bookkeeping_);
      snapshots = snapshots_;
    }
    // The restarted master is a new MasterService: the old one's destructor
    // released its segments' capacity metrics (totals and labels) before
    // its objects and allocators went, which ResetState does here.
#if PINSIM_MC_HAS_RELEASE_CAPACITY && !PINSIM_MC_HAS_SEGMENT_POOL
    Access::ReleaseCapacityMetrics(*service_);
#endif
    bool fell_back = false;
    for (size_t i = snapshots.size(), tried = 0; i-- > 0; ++tried) {
      Access::ResetState(*service_);
      if (op.fail_first_candidate && tried == 0) {
        (void)Access::Decode(*service_, *snapshots[i]);
        continue;
      }
      if (!apply_candidate(*snapshots[i], now)) {
        fell_back = true;
        continue;
      }
      Access::SweepAfterUnmount(*service_);  // a segment not ready at the snapshot was unmounted (worker's sweep)
      rebuild_charges();
      return fell_back ? Outcome::of(ErrorCode::INTERNAL_ERROR) : Outcome{};
    }
    Access::ResetState(*service_);
    std::string error;
    if (!mount_segments(&error)) std::fprintf(stderr, "mooncake target: %s\n", error.c_str());
    rebuild_charges();
    return Outcome::of(ErrorCode::INTERNAL_ERROR);
  }

  // One candidate's Decode and ApplySnapshotState; false when it is unusable
  // (reported once per process and reason kind on stderr).
  bool apply_candidate(const mc::ha::MasterSnapshotPayloads& payloads, Time now) {
    auto unusable = [](const char* what, const std::string& why) {
      static std::set<std::string> reported;
      if (reported.insert(what).second)
        std::fprintf(stderr, "mooncake target: a snapshot candidate is unusable (%s: %s); further ones not shown\n",
                     what, why.c_str());
      return false;
    };
    try {
      if (auto r = Access::Decode(*service_, payloads); !r) return unusable("decode failed", r.error().message);
      if (auto r = Access::Apply(*service_, to_tp(now)); !r)
        return unusable("ApplySnapshotState failed", r.error().message);
    } catch (const std::exception& e) {
      return unusable("exception", e.what());
    }
    return true;
  }
#endif

#if PINSIM_MC_HAS_STANDBY_RESTORE && PINSIM_MC_HAS_OPLOG_WRITER_FACTORY
  // Failover (README, "Failover"): a standby reads the whole log; the
  // primary goes; a new MasterService of the same configuration, at this
  // virtual time, continues the log in the same store, takes the standby's
  // export (RestoreFromStandbySnapshot) and each client remounts the
  // segments it had mounted (ReMountSegment), as a client does on finding a
  // new master; a segment leaving is not remounted. The process-wide memory
  // metrics start at zero, as a new process's; the View's counters are the
  // run's, across masters. The new master is never kept for another run:
  // the standby restore leaves state a kept master's reset does not clear.
  Outcome failover(Time now) {
    if (!oplog_) return Outcome::of(ErrorCode::UNAVAILABLE_IN_CURRENT_MODE);
    settle_log();  // the standby reads the whole log: a lagging one catches up first (rule log.catch-up)
    mc::StandbySnapshot standby;
    std::string error;
    if (!mooncake_oplog::read_standby(*oplog_, &standby, &error)) throw std::runtime_error("mooncake target: " + error);
    const std::map<mc::UUID, std::vector<mc::Segment>> remounts = mounted_by_owner();
    {
      const mooncake_clock::SleepsCut cut;
      service_.reset();
    }
    failed_over_ = true;
    sweep_pending_ = false;
    if (!(service_ = construct(config_, policy_file_, &error, now)) ||
        !(oplog_ = mooncake_oplog::install_continuing(*service_, *oplog_, &error)))
      throw std::runtime_error("mooncake target: the new primary did not start: " + error);
    zero_memory_metrics();
    zero_segment_metrics();
    auto restored = service_->RestoreFromStandbySnapshot(standby.objects, standby.oplog_sequence_id, standby.segments);
    Outcome out = outcome_of(restored);
    for (const auto& [client, segments] : remounts) {
      const Outcome r = outcome_of(service_->ReMountSegment(segments, client));
      if (out.code == ErrorCode::OK) out = r;
    }
    return out;
  }

  // The memory segments mounted and not leaving, by the client that mounted them.
  std::map<mc::UUID, std::vector<mc::Segment>> mounted_by_owner() {
    std::vector<mc::UUID> ids;
    for (size_t i : memory_segments_) ids.push_back(segment_id(i));
    const auto states = Access::SegmentStates(*service_, ids);
    std::map<mc::UUID, std::vector<mc::Segment>> out;
    for (size_t j = 0; j < ids.size(); ++j) {
      if (states[j].mounted != kMounted) continue;
      if (auto owner = Access::SegmentOwner(*service_, segment_name(memory_segments_[j])))
        out[*owner].push_back(segment(memory_segments_[j]));
    }
    return out;
  }
#else
  Outcome failover(Time) { return Outcome::of(ErrorCode::UNSUPPORTED); }
#endif

  void rebuild_charges() {
#if PINSIM_MC_HAS_MULTI_TENANT
    if (config_.multi_tenant) Access::RebuildCharges(*service_);
#endif
  }

  Config config_;
  std::unique_ptr<mc::MasterService> service_;
#if PINSIM_MC_HAS_OPLOG_WRITER_FACTORY
  std::shared_ptr<mooncake_oplog::Log> oplog_;  // HA-OpLog mode's log (oplog_mode.h)
#endif
  bool failed_over_ = false;                // a failover's new primary: never kept (failover)
  bool defer_sweep_ = false;                // mooncake_defer_unmount_sweep
  std::atomic<bool> sweep_pending_{false};  // an unmount's sweep left for settle (set on an actor's thread)
  std::vector<size_t> memory_segments_;
#if PINSIM_MC_HAS_SNAPSHOT_CODEC
  std::vector<std::shared_ptr<const mc::ha::MasterSnapshotPayloads>> snapshots_;  // under bookkeeping_
#endif
  int64_t baseline_ = 0;
  std::pair<int64_t, int64_t> hit_baseline_{0, 0};  // the read-hit byte metrics (memory, file) at the run's start
  int64_t reads_baseline_ = 0;                       // the valid-get metric at the run's start
  std::pair<int64_t, int64_t> hit_nums_baseline_{0, 0};  // the read-hit counts (memory, file) at the run's start
#if PINSIM_MC_HAS_REFUSALS
  // The quota-rejection, put-start allocation-failure and partial-allocation
  // metrics (rules tenant.quota, alloc.no-handle, alloc.partial): they only grow.
  static std::array<int64_t, 3> refusal_metrics() {
    auto& m = mc::MasterMetricManager::instance();
    return {mooncake_metrics::tenant_quota_rejects(), m.get_put_start_alloc_failures(),
            m.get_put_start_partial_allocations()};
  }
  std::array<int64_t, 3> refusals_baseline_{};  // at the run's start
#endif
  const std::thread::id owner_;  // the thread that started the target
  struct Token {  // a proposal's lease, as the client keeps it (rule dynrep.copy)
    mc::UUID lease;
    uint64_t epoch = 0;
    std::string source, target;
  };
  std::map<std::pair<TenantId, uint32_t>, Token> tokens_;  // by tenant and proposal id
#if PINSIM_MC_HAS_LOCAL_DISK
  mooncake_local::Holder holder_{kSegmentOwner};  // the local-disk tier's holder: this run's hand and sizes
#endif
  std::atomic<Time> last_now_{0};
  std::atomic<uint64_t> evictions_{0};
  std::atomic<uint64_t> writes_{0};
  std::atomic<uint64_t> actor_threads_{0};
  mutable BookkeepingLock bookkeeping_;  // dirty_, dirty_tenants_, all_dirty_, named_tenants_, list_tenants_,
                                         // snapshots_
  std::string policy_file_;  // multi-tenant mode's quota policies
  // The View's objects, by shard, and the shards to read again (see touch).
  mutable std::map<size_t, std::vector<ObjectView>> shard_objects_;
  mutable std::map<size_t, std::vector<std::string>> shard_disk_files_;  // by shard, as last read
  mutable std::set<size_t> dirty_;
  mutable std::set<TenantId> dirty_tenants_;
  mutable std::map<std::string, uint64_t> charges_;  // tenant name -> charged bytes, when not 0
  mutable std::map<std::string, uint64_t> quotas_;   // tenant name -> effective quota, tenants with a policy
  // segment_labels: the labels as last read, and the totals, bytes and states they were read with.
  struct SegmentLabels {
    std::vector<int64_t> allocated, capacity;
    uint64_t allocated_total = 0, capacity_total = 0;
    std::vector<uint64_t> memory_used;
    std::vector<uint8_t> mounted;
  };
  mutable SegmentLabels labels_;
  mutable bool labels_stale_ = true;  // read them at the next View
  mutable bool all_dirty_ = false;  // a run's master starts empty (see kFullViewEvery)
  mutable uint64_t views_since_full_ = 0;
  mutable std::set<TenantId> named_tenants_;  // the configuration's and every op's tenant (under bookkeeping_)
  mutable bool list_tenants_ = false;          // the next View lists every tenant's charge and quota
  mutable uint64_t views_since_listing_ = 0;
};

// Once per process, before the first master: Mooncake's logging off, and no
// glibc fastbins. MasterService's constructor allocates large blocks (a
// count-min sketch, the DFS allocator, the policy file), and each made glibc
// consolidate every fastbin chunk, a fifth of a Mooncake campaign's time;
// tcache still serves small sizes. Only this target sets it: the model and the
// embedded master allocate small blocks all the time, and lose a fifth of
// their speed without fastbins (session 23). Outputs never depend on the allocator.
void process_setup() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* log = std::getenv("PINSIM_MOONCAKE_LOG");  // 1: Mooncake's own log lines on stderr, to debug
    const bool logging = log && *log && std::string(log) != "0";
    FLAGS_minloglevel = logging ? google::GLOG_INFO : google::GLOG_FATAL;
    FLAGS_logtostderr = true;
    FLAGS_v = -1;
    mallopt(M_MXFAST, 0);
    // Freed memory stays in the heap: every mount builds its segment's
    // allocator (a vector of up to 64 Ki nodes, megabytes), and a reset frees
    // it, so trimming the heap's top and growing it again made page faults
    // and brk calls a third of an exploration's time once the process had run
    // other configurations (the explorer's ladder resets and mounts once per
    // transition), and a tenth of a swarm's.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  });
}

}  // namespace

std::string_view mooncake_target_profile() { return PINSIM_MC_PROFILE; }

std::string mooncake_lock_name(const Target& target, const void* lock) {
  const auto* t = dynamic_cast<const MooncakeTarget*>(&target);
  return t ? Access::LockName(t->service(), lock) : "";
}

std::optional<size_t> mooncake_shard_of(const Target& target, ObjectId id) {
  const auto* t = dynamic_cast<const MooncakeTarget*>(&target);
  return t ? std::optional<size_t>(t->shard_of(id)) : std::nullopt;
}

void mooncake_defer_unmount_sweep(Target& target, bool deferred) {
  if (auto* t = dynamic_cast<MooncakeTarget*>(&target)) t->defer_unmount_sweep(deferred);
}

void mooncake_lock_order_fault(const Target& target) {
  if (const auto* t = dynamic_cast<const MooncakeTarget*>(&target)) Access::LockShardThenSnapshot(t->service());
}

std::string_view mooncake_target_description() {
  return "Mooncake " PINSIM_MC_TREE " tree; profile " PINSIM_MC_PROFILE
         "; unsupported: NoF segments"
#if !PINSIM_MC_HAS_MULTI_TENANT
         ", multi-tenant mode and tenant quotas"
#endif
#if !PINSIM_MC_HAS_HARD_PIN
         ", hard pin"
#endif
#if !PINSIM_MC_HAS_RETAIN_GROUPS
         ", retain_groups (no PR 2835)"
#endif
#if !PINSIM_MC_HAS_CLEANUP && !PINSIM_MC_HAS_RETAIN_GROUPS
         ", cleanup (no deadline index, no retention prune)"
#endif
#if !PINSIM_MC_HAS_SNAPSHOT_CODEC
         ", snapshot and restore (no snapshot codec)"
#endif
#if !PINSIM_MC_HAS_GAUGE
         ", the soft-pin gauge (no such metric)"
#endif
#if !PINSIM_MC_HAS_OBJECT_CHECKSUM
         ", object checksums (no ObjectMeta)"
#endif
#if !PINSIM_MC_HAS_DFS
         ", DFS replicas"
#endif
#if !PINSIM_MC_HAS_LOCAL_DISK
         ", the local-disk tier"
#endif
#if !PINSIM_MC_HAS_OPLOG_WRITER_FACTORY
         ", HA-OpLog mode"
#endif
      ;
}

bool mooncake_evict_is_seedable() { return PINSIM_MC_HAS_RANDOM_ENGINE != 0; }

// NoF segments are not mounted by this adapter yet. A tree built with NoF
// (USE_NOF) may still be asked for NoF replicas where the config has no NoF
// segment: none is placed, as in the model, and placement judges the request
// (a flexible 1 + 1 write keeps its memory replica, any other fails
// NO_AVAILABLE_HANDLE). A tree built without it refuses any NoF request
// INVALID_PARAMS (its NoF pool is off), which no rule of the model states.
static bool nof_request_ok(const Op& op, const Config& config) {
  return op.nof_replicas == 0 ||
         (PINSIM_MC_HAS_NOF && std::none_of(config.segments.begin(), config.segments.end(),
                                            [](const SegmentConfig& s) { return s.kind == ReplicaKind::Nof; }));
}

// A DFS request (DFS replicas asked for, the DFS selector) needs a tree with
// DFS replicas: an older ReplicateConfig and ReplicaType cannot express it.
static bool dfs_request_ok(const Op& op) {
  return PINSIM_MC_HAS_DFS || (op.dfs_replicas == 0 && op.selector != ReplicaSelector::Dfs);
}

bool mooncake_target_supports(const Op& op, const Config& config) {
  // Tenants other than 0 exist only in multi-tenant mode (Mooncake folds every
  // tenant into "default" outside it); the PR 2835 tree has no such mode.
  const bool tenant_ok = op.object.tenant == 0 || (config.multi_tenant && PINSIM_MC_HAS_MULTI_TENANT);
  const bool batch_ok = PINSIM_MC_HAS_BATCH_UPSERT != 0 && tenant_ok;
  const bool pin_ok = !op.hard_pin || PINSIM_MC_HAS_HARD_PIN;  // writes
  switch (op.kind) {
    case OpKind::Advance:
    case OpKind::Evict:
      return true;
    case OpKind::Snapshot:
    case OpKind::Restore:
      // Mooncake states DFS incompatible with snapshot recovery (its
      // constructor refuses both together; the allocator's slots are in no
      // snapshot), so a DFS configuration's master has no snapshots.
      // The local-disk tier is not combined with snapshots yet (README).
      return PINSIM_MC_HAS_SNAPSHOT_CODEC != 0 && config.dfs_slots == 0 && !config.local_disk;
    case OpKind::Failover:  // HA-OpLog mode's standby (outside it: UNAVAILABLE_IN_CURRENT_MODE, as the model)
      return PINSIM_MC_HAS_STANDBY_RESTORE != 0 && PINSIM_MC_HAS_OPLOG_WRITER_FACTORY != 0 && !config.local_disk;
    case OpKind::Cleanup:  // the task-cleanup cycle: soft-pin expiry, retention prune
      return PINSIM_MC_HAS_CLEANUP != 0 || PINSIM_MC_HAS_RETAIN_GROUPS != 0;
    case OpKind::RetainGroups:
      return PINSIM_MC_HAS_RETAIN_GROUPS != 0 && op.object.tenant == 0;
    case OpKind::PutStart:
    case OpKind::UpsertStart:
      return nof_request_ok(op, config) && dfs_request_ok(op) && pin_ok && tenant_ok;
    case OpKind::PutEnd:
    case OpKind::UpsertEnd:
      if (op.checksum && !PINSIM_MC_HAS_OBJECT_CHECKSUM) return false;  // no object checksum in this tree
      [[fallthrough]];
    case OpKind::PutRevoke:
    case OpKind::UpsertRevoke:
      // A NoF selector is fine: no object here has a NoF replica (no NoF
      // segment is mounted, so none is placed), so it targets
      // nothing, which Mooncake answers like any other empty selection.
      return tenant_ok && dfs_request_ok(op);
    case OpKind::Get:
    case OpKind::Exist:
    case OpKind::Remove:
    case OpKind::RemoveAll:
    case OpKind::CopyStart:  // a NoF segment, named as a source or target, is not mounted: as any unknown one
    case OpKind::CopyEnd:
    case OpKind::CopyRevoke:
      return tenant_ok && (!op.proposal || PINSIM_MC_HAS_DYN_REPL_PROPOSAL);
    case OpKind::Propose:
      return tenant_ok && PINSIM_MC_HAS_DYN_REPL_PROPOSAL;
    case OpKind::OffloadTake:  // the local-disk tier: a configuration with it, on a tree with it
    case OpKind::OffloadEnd:
    case OpKind::PromotionStart:
    case OpKind::PromotionEnd:
      return tenant_ok && config.local_disk && PINSIM_MC_HAS_LOCAL_DISK;
    case OpKind::RemoveByRegex:
      return PINSIM_MC_HAS_TENANT_ID_CLASS != 0 && tenant_ok;
    case OpKind::GracefulUnmount:
      if (!PINSIM_MC_HAS_GRACEFUL_UNMOUNT) return false;
      [[fallthrough]];
    case OpKind::Unmount:  // the memory segments this adapter mounts (no NoF segment)
    case OpKind::Mount:
      return op.segment < config.segments.size() && config.segments[op.segment].kind == ReplicaKind::Memory;
    case OpKind::SetQuota:  // the run-time policy API of multi-tenant mode (UNAVAILABLE outside it)
    case OpKind::DeleteQuota:
      return PINSIM_MC_HAS_MULTI_TENANT != 0;
    // The batch calls, like their single-key elements: no NoF.
    case OpKind::BatchUpsertStart:
      return nof_request_ok(op, config) && dfs_request_ok(op) && pin_ok && batch_ok;
    case OpKind::BatchPutEnd:
    case OpKind::BatchPutRevoke:
      return batch_ok && dfs_request_ok(op);
    case OpKind::BatchExist:
    case OpKind::BatchGet:
    case OpKind::BatchUpsertEnd:
    case OpKind::BatchUpsertRevoke:
    case OpKind::BatchRemove:
      return batch_ok;
  }
  return false;
}

namespace {

// Why the adapter cannot express `config` ("" when it can).
std::string refusal(const Config& config) {
  if (to_string(config.profile) != mooncake_target_profile())
    return "this Mooncake tree is checked against profile " + std::string(mooncake_target_profile()) +
           "; run with --profile " + std::string(mooncake_target_profile());
  if (config.multi_tenant && !PINSIM_MC_HAS_MULTI_TENANT)
    return "this Mooncake tree has no multi-tenant mode (tenant quotas)";
  if (config.dynamic_replication && !PINSIM_MC_HAS_DYN_REPL_PROPOSAL)
    return "this Mooncake tree has no dynamic replication (SubmitReplicaActionProposal)";
  if (config.put_start_discard_timeout_ms % 1000 != 0 || config.put_start_release_timeout_ms % 1000 != 0)
    return "Mooncake's put-start timeouts are whole seconds";
  if (config.dfs_slots > 0 && !PINSIM_MC_HAS_DFS) return "this Mooncake tree has no DFS replicas";
  if (config.local_disk && !PINSIM_MC_HAS_LOCAL_DISK)
    return "this Mooncake tree has no local-disk tier (PromotionAllocStart)";
  if (config.ha_oplog && !PINSIM_MC_HAS_OPLOG_WRITER_FACTORY)
    return "this Mooncake tree's MasterService takes no operation-log writer (SetBatchOpLogWriterFactoryForTesting)";
  if (!mooncake_dfs::settings(config))
    return std::to_string(config.dfs_slots) + " DFS slots as large as the largest memory segment do not fit "
                                              "in one DFS shard";
  return "";
}

}  // namespace

std::unique_ptr<Target> make_mooncake_target(const Config& config, const TargetOptions& options,
                                             std::string* error) {
  if (!options.empty()) {
    *error = untaken_option("mooncake", options, {});
    return nullptr;
  }
  if (std::string why = refusal(config); !why.empty()) {
    *error = why;
    return nullptr;
  }
  process_setup();
  auto target = std::make_unique<MooncakeTarget>(config);
  if (!target->start(error)) return nullptr;
  return target;
}

}  // namespace pinsim
