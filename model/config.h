// Master configuration the lifecycle depends on, with Mooncake's defaults
// (RFC 3028 "Master configuration"; PR 2835's admission cap and TTL bound).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "op.h"
#include "profile.h"

namespace pinsim {

struct SegmentConfig {
  ReplicaKind kind = ReplicaKind::Memory;
  uint64_t capacity = 0;  // bytes
  bool operator==(const SegmentConfig&) const = default;
};

// The largest quota a policy may request (Mooncake's 2^63 - 1 charge bound).
inline constexpr uint64_t kMaxQuotaBytes = (uint64_t{1} << 63) - 1;

// Dynamic replication's settings: a key is hot once `min_hits` reads fall in
// one heat window of `window_s` seconds; an object is copied up to
// `max_memory_replicas` memory replicas (Mooncake: heat_window_seconds, the
// admission QPS threshold as min_hits = ceil(qps x window), max_memory_replicas).
struct DynamicReplication {
  uint32_t window_s = 10;
  uint32_t min_hits = 8;
  uint32_t max_memory_replicas = 2;
  bool operator==(const DynamicReplication&) const = default;
};

struct Config {
  Profile profile = Profile::Rfc;
  uint64_t default_kv_soft_pin_ttl_ms = 30ull * 60 * 1000;  // 30 min
  uint64_t max_kv_soft_pin_ttl_ms = 24ull * 3600 * 1000;    // 24 h
  uint64_t default_kv_lease_ttl_ms = 10'000;                // 10 s
  uint64_t put_start_discard_timeout_ms = 30'000;           // 30 s
  uint64_t put_start_release_timeout_ms = 600'000;          // 600 s
  bool allow_evict_soft_pinned_objects = true;
  std::vector<SegmentConfig> segments{{ReplicaKind::Memory, 1u << 20},
                                      {ReplicaKind::Memory, 1u << 20},
                                      {ReplicaKind::Nof, 1u << 20}};
  // Mooncake's multi-tenant mode (enable_multi_tenants). Off: tenants are
  // separate namespaces with no quota. On: a tenant writes only with a quota
  // policy, its requested byte quota in tenant_quota_bytes (1..kMaxQuotaBytes),
  // charged for size x memory replicas (docs/interpretations.md).
  bool multi_tenant = false;
  std::map<TenantId, uint64_t> tenant_quota_bytes;
  // Mooncake's disk replicas (a storage backend, root_fs_dir set): every
  // write gets one more replica, a file, PROCESSING until an End names it
  // (rules disk.replica, disk.survives; docs/interpretations.md "Disk replicas").
  bool disk_replica = false;
  // Mooncake's DFS replicas (MOONCAKE_ENABLE_DFS, one allocator shard): a
  // write may ask for one more replica, a slot of the allocator, of which
  // there are `dfs_slots`; 0 = no DFS (rules dfs.*; docs/interpretations.md
  // "DFS replicas").
  uint32_t dfs_slots = 0;
  // Mooncake's dynamic replication in enforce mode (rules dynrep.*;
  // docs/interpretations.md "Dynamic replication"): none = off.
  std::optional<DynamicReplication> dynamic_replication;
  // Mooncake's local-disk tier (enable_offload, promotion_on_hit): the setup
  // client mounts its own disk; an End queues an offload of the object's
  // memory to it, and a read of an object left on that disk alone queues a
  // promotion back to memory (rules local.*; docs/interpretations.md,
  // "The local-disk tier").
  bool local_disk = false;
  // Whether the local-disk tier combines with the rest of this config: it
  // is modelled on its own so far (docs/interpretations.md).
  bool local_disk_combines() const { return !multi_tenant && !disk_replica && !dfs_slots && !dynamic_replication; }
  // Mooncake's HA-OpLog mode (enable_ha, enable_oplog): the master logs each
  // change and applies some (a Remove's erase) once its log entry is
  // durable. No rule depends on it: a target settles the log after each op,
  // so what a request answers and leaves is what it is without the log
  // (docs/interpretations.md, "HA-OpLog mode"). Mooncake refuses it with DFS.
  bool ha_oplog = false;
  // HA-OpLog mode with the log lagging (the log's window): entries become
  // durable only when the log catches up, at an `advance` (time passes and
  // the writer drains) and before a failover. Until then a removal is
  // visible (a read answers OBJECT_NOT_FOUND) but its object is retiring:
  // its memory, charge, cached count and soft pin are held until the catch-up
  // (rule log.window; docs/interpretations.md, "The log's window").
  bool oplog_lag = false;
  // PR 2835 group retention.
  uint64_t max_retained_groups = 65'536;
  uint64_t max_group_retention_ttl_ms = 24ull * 3600 * 1000;
  bool operator==(const Config&) const = default;
};

// RFC 3028 rule C1: default_kv_soft_pin_ttl <= max_kv_soft_pin_ttl, checked
// when the master is constructed. Returns the reason when the config is bad.
std::optional<std::string> validate(const Config& config);

}  // namespace pinsim
