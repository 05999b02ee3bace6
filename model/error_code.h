// The outcome codes a caller of MasterService sees, with Mooncake's names
// (mooncake-store/include/types.h ErrorCode), reduced to the lifecycle ones.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace pinsim {

enum class ErrorCode : uint8_t {
  OK,
  INVALID_PARAMS,
  OBJECT_NOT_FOUND,
  OBJECT_ALREADY_EXISTS,
  OBJECT_HAS_LEASE,
  OBJECT_REPLICA_BUSY,
  REPLICA_IS_NOT_READY,
  ILLEGAL_CLIENT,
  INVALID_WRITE,
  NO_AVAILABLE_HANDLE,
  TENANT_QUOTA_EXCEEDED,
  TENANT_NOT_REGISTERED,  // multi-tenant mode: a write by a tenant without a quota policy
  TENANT_NOT_EMPTY,       // delete_quota: the tenant still holds a charge or an object
  UNAVAILABLE_IN_CURRENT_MODE,  // set_quota, delete_quota outside multi-tenant mode
  UNAVAILABLE_IN_CURRENT_STATUS,  // mount: the segment is still leaving (a graceful unmount under way)
  SEGMENT_NOT_FOUND,              // graceful_unmount: the caller has no such segment mounted
  OBJECT_HAS_REPLICATION_TASK,    // a copy is under way on the object (rules copy.*)
  OBJECT_NO_REPLICATION_TASK,     // copy_end, copy_revoke: no copy is under way
  REPLICA_NOT_FOUND,              // copy_start: no COMPLETE replica on the source segment
  REPLICA_IS_GONE,                // copy_end: the source or a target was lost meanwhile
  INVALID_VERSION,                // a dynamic copy whose lease token is not the object's pending one
  DFS_SERVICE_UNAVAILABLE,        // a Start asking for a DFS replica of a master without DFS (rule dfs.request)
  INTERNAL_ERROR,
  UNSUPPORTED,  // a target that cannot perform the op (never the model)
};

std::string_view to_string(ErrorCode code);
std::optional<ErrorCode> parse_error_code(std::string_view name);

}  // namespace pinsim
