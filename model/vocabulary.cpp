// Names of the vocabulary's enums, as they appear in traces and reports.
#include <array>
#include <string_view>

#include "config.h"
#include "error_code.h"
#include "op.h"
#include "rules.h"

namespace pinsim {

namespace {

template <typename E, size_t N>
std::optional<E> parse_by_name(const std::array<std::string_view, N>& names,
                               std::string_view name) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<E>(i);
  return std::nullopt;
}

template <size_t N>
std::string_view name_at(const std::array<std::string_view, N>& names, size_t i) {
  return i < N ? names[i] : std::string_view("?");
}

constexpr std::array<std::string_view, 24> kErrorNames{
    "OK", "INVALID_PARAMS", "OBJECT_NOT_FOUND", "OBJECT_ALREADY_EXISTS",
    "OBJECT_HAS_LEASE", "OBJECT_REPLICA_BUSY", "REPLICA_IS_NOT_READY",
    "ILLEGAL_CLIENT", "INVALID_WRITE", "NO_AVAILABLE_HANDLE",
    "TENANT_QUOTA_EXCEEDED", "TENANT_NOT_REGISTERED", "TENANT_NOT_EMPTY", "UNAVAILABLE_IN_CURRENT_MODE",
    "UNAVAILABLE_IN_CURRENT_STATUS", "SEGMENT_NOT_FOUND", "OBJECT_HAS_REPLICATION_TASK",
    "OBJECT_NO_REPLICATION_TASK", "REPLICA_NOT_FOUND", "REPLICA_IS_GONE", "INVALID_VERSION",
    "DFS_SERVICE_UNAVAILABLE", "INTERNAL_ERROR", "UNSUPPORTED"};

constexpr std::array<std::string_view, kOpKindCount> kOpNames = [] {
  std::array<std::string_view, kOpKindCount> names{};
  for (size_t i = 0; i < kOpTable.size(); ++i) names[i] = kOpTable[i].name;
  return names;
}();

constexpr std::array<std::string_view, 3> kActionNames{"preserve", "enable", "disable"};
constexpr std::array<std::string_view, 5> kSelectorNames{"all", "memory", "nof", "disk", "dfs"};
constexpr std::array<std::string_view, 5> kKindNames{"memory", "nof", "disk", "dfs", "local_disk"};
constexpr std::array<std::string_view, 4> kGroupShapeNames{"by_group", "explicit", "empty_list", "two_ids"};

}  // namespace

std::string_view to_string(ErrorCode c) { return name_at(kErrorNames, static_cast<size_t>(c)); }
std::optional<ErrorCode> parse_error_code(std::string_view n) { return parse_by_name<ErrorCode>(kErrorNames, n); }
std::string_view to_string(OpKind k) { return name_at(kOpNames, static_cast<size_t>(k)); }
std::optional<OpKind> parse_op_kind(std::string_view n) { return parse_by_name<OpKind>(kOpNames, n); }
std::string_view to_string(SoftPinAction a) { return name_at(kActionNames, static_cast<size_t>(a)); }
std::optional<SoftPinAction> parse_soft_pin_action(std::string_view n) { return parse_by_name<SoftPinAction>(kActionNames, n); }
std::string_view to_string(ReplicaSelector s) { return name_at(kSelectorNames, static_cast<size_t>(s)); }
std::optional<ReplicaSelector> parse_replica_selector(std::string_view n) { return parse_by_name<ReplicaSelector>(kSelectorNames, n); }
std::string_view to_string(ReplicaKind k) { return name_at(kKindNames, static_cast<size_t>(k)); }
std::string_view to_string(GroupShape s) { return name_at(kGroupShapeNames, static_cast<size_t>(s)); }
std::optional<GroupShape> parse_group_shape(std::string_view n) {
  return parse_by_name<GroupShape>(kGroupShapeNames, n);
}

const std::array<RuleInfo, kRuleCount>& rule_catalogue() {
  static const std::array<RuleInfo, kRuleCount> catalogue{{
#define PINSIM_RULE_INFO(id, name, source, summary) {Rule::id, name, source, summary},
      PINSIM_RULES(PINSIM_RULE_INFO)
#undef PINSIM_RULE_INFO
  }};
  return catalogue;
}

std::optional<Rule> parse_rule(std::string_view name) {
  for (const auto& info : rule_catalogue())
    if (info.name == name) return info.rule;
  return std::nullopt;
}

// RFC 3028 rule C1: the master refuses default_kv_soft_pin_ttl > max.
std::optional<std::string> validate(const Config& c) {
  if (c.default_kv_soft_pin_ttl_ms > c.max_kv_soft_pin_ttl_ms)
    return "default_kv_soft_pin_ttl_ms " + std::to_string(c.default_kv_soft_pin_ttl_ms) +
           " exceeds max_kv_soft_pin_ttl_ms " + std::to_string(c.max_kv_soft_pin_ttl_ms);
  if (c.segments.empty()) return "no segment configured";
  if (!c.tenant_quota_bytes.empty() && !c.multi_tenant)
    return "tenant_quota_bytes needs multi_tenant: quotas exist only in multi-tenant mode";
  for (const auto& [t, q] : c.tenant_quota_bytes)
    if (q == 0 || q > kMaxQuotaBytes)
      return "tenant " + std::to_string(t) + ": quota " + std::to_string(q) + " is outside 1.." +
             std::to_string(kMaxQuotaBytes);
  // The local-disk tier is modelled on its own so far (docs/interpretations.md, "The local-disk tier").
  if (c.local_disk && !c.local_disk_combines())
    return "local_disk is not combined with multi_tenant, disk_replica, dfs_slots or dynamic_replication yet";
  if (c.ha_oplog && c.dfs_slots)  // Mooncake's constructor refuses DFS with oplog recovery
    return "ha_oplog is not combined with dfs_slots: Mooncake refuses DFS with its operation log";
  if (c.oplog_lag && !c.ha_oplog) return "oplog_lag needs ha_oplog: only the operation log can lag";
  return std::nullopt;
}

}  // namespace pinsim
