# What a Mooncake tree offers, for the Mooncake target (sim/targets/mooncake):
# the features its headers show (MC_HAS_<name>, collected in MC_FEATURES),
# the include directories and definitions of its own master_service.cpp
# (MC_INCS, MC_DEFS, from the build tree's compile_commands.json) and its
# sanitizer options (MC_SANITIZE), the
# libraries to link (MC_LIBS, MC_DEBIAN_LIBS) and the model profile and tree
# name (MC_PROFILE, MC_TREE, MC_TREE_ID). It reads PINSIM_MOONCAKE_SOURCE_DIR
# and PINSIM_MOONCAKE_BUILD_DIR, builds nothing and fails configuration with
# one line naming what is missing. It exists apart from the target's
# CMakeLists.txt so that the detection reads on its own.
set(MC_SRC "${PINSIM_MOONCAKE_SOURCE_DIR}")
set(MC_BUILD "${PINSIM_MOONCAKE_BUILD_DIR}")

function(pinsim_mooncake_fail reason)
  message(FATAL_ERROR "pinsim: Mooncake target: ${reason}")
endfunction()

# --- The tree: headers and what they offer ---------------------------------
set(MC_MS_HEADER "${MC_SRC}/mooncake-store/include/master_service.h")
set(MC_REPLICA_HEADER "${MC_SRC}/mooncake-store/include/replica.h")
if(NOT EXISTS "${MC_MS_HEADER}" OR NOT EXISTS "${MC_REPLICA_HEADER}")
  pinsim_mooncake_fail("${MC_SRC} is not a Mooncake source tree (no mooncake-store/include/master_service.h)")
endif()
set(MC_INC "${MC_SRC}/mooncake-store/include")
file(READ "${MC_MS_HEADER}" MC_MS_TEXT)
file(READ "${MC_REPLICA_HEADER}" MC_REPLICA_TEXT)
file(READ "${MC_INC}/master_metric_manager.h" MC_METRIC_TEXT)
set(MC_CODEC_TEXT "")
if(EXISTS "${MC_INC}/ha/snapshot/master_snapshot_codec.h")
  file(READ "${MC_INC}/ha/snapshot/master_snapshot_codec.h" MC_CODEC_TEXT)
endif()

# Each feature becomes MC_HAS_<name> (0 or 1) and the definition
# PINSIM_MC_HAS_<name> of the adapter.
set(MC_FEATURES "")
function(mc_feature name found)
  set(MC_HAS_${name} ${found} PARENT_SCOPE)
  set(MC_FEATURES ${MC_FEATURES} ${name} PARENT_SCOPE)
endfunction()
# The feature is there when the variable named `text_var` contains `needle`.
# A macro, so that its sets land in the calling function's scope.
macro(mc_feature_set name present)
  if(${present})
    set(MC_HAS_${name} 1 PARENT_SCOPE)
  else()
    set(MC_HAS_${name} 0 PARENT_SCOPE)
  endif()
  set(MC_FEATURES ${MC_FEATURES} ${name} PARENT_SCOPE)
endmacro()
function(mc_feature_if_text name text_var needle)
  string(FIND "${${text_var}}" "${needle}" _pos)
  set(_present FALSE)
  if(_pos GREATER -1)
    set(_present TRUE)
  endif()
  mc_feature_set(${name} _present)
endfunction()
# The feature is there when the file `path` exists.
function(mc_feature_if_file name path)
  set(_present FALSE)
  if(EXISTS "${path}")
    set(_present TRUE)
  endif()
  mc_feature_set(${name} _present)
endfunction()

# PR 2909 (main): soft-pin actions and the deadline index's cleanup cycle.
mc_feature_if_text(SOFT_PIN_ACTION MC_REPLICA_TEXT "enum class SoftPinAction")
mc_feature_if_text(CLEANUP MC_MS_TEXT "CleanupExpiredSoftPins")
# PR 2835: group retention.
mc_feature_if_text(RETAIN_GROUPS MC_MS_TEXT "RetainGroups")
# Main routes a grouped key to its group's shard (getMetadataShardIndex, the
# object_group_ids_ route under group_routing_mutex_). A tree that routes
# every key by hash(tenant, key) has neither (README.md, "Trees").
mc_feature_if_text(GROUP_ROUTE MC_MS_TEXT "getMetadataShardIndex")
# Mounted segments live in a SegmentPool (segment_pool_, read through its
# SegmentPoolView) instead of a SegmentManager (segment_manager_): the open
# PR 3529 merged on main (README.md, "Trees").
mc_feature_if_text(SEGMENT_POOL MC_MS_TEXT "SegmentPool segment_pool_")
# Members that differ between trees (the pre-#2909 tree 9187a2cf9 has no
# dynamic-replication admission thread, no replica-cleanup worker, and a
# snapshot state view without the local-SSD manager).
mc_feature_if_text(DYN_REPL_ADMISSION MC_MS_TEXT "dynamic_replication_admission_thread_")
# Dynamic replication's heat windows (per-key steady-clock windows and their
# cleanup order), which may come apart from the admission thread.
mc_feature_if_text(DYN_REPL_WINDOWS MC_MS_TEXT "dynamic_replication_next_window_cleanup_")
# Dynamic replication's proposal API and the copy calls' lease tokens (ops propose, copy with a proposal).
mc_feature_if_text(DYN_REPL_PROPOSAL MC_MS_TEXT "SubmitReplicaActionProposal")
mc_feature_if_text(REPLICA_CLEANUP_WORKER MC_MS_TEXT "replica_cleanup_worker_")
# A segment's graceful unmount (GRACEFULLY_UNMOUNTING until a timer or an unmount ends it),
# with the segment manager's accessors for a mounted segment's allocator and
# status, through which the View reads the bytes a leaving segment still holds
# and its state (the PR 2835 tree has the first and not the accessors:
# graceful_unmount is unsupported there).
set(MC_SEGMENT_TEXT "")
if(EXISTS "${MC_INC}/segment.h")
  file(READ "${MC_INC}/segment.h" MC_SEGMENT_TEXT)
endif()
mc_feature_if_text(GRACEFUL_UNMOUNT MC_MS_TEXT "graceful_unmount_scheduler_")
string(FIND "${MC_SEGMENT_TEXT}" "GetAllocator(" _get_allocator)
string(FIND "${MC_SEGMENT_TEXT}" "GetSegmentStatusById(" _get_status)
if(_get_allocator EQUAL -1 OR _get_status EQUAL -1)
  mc_feature(GRACEFUL_UNMOUNT 0)
endif()
# The segment manager's release of its capacity metrics, which ~MasterService
# calls last (the totals and the labels of the segments still mounted): the
# Mooncake target's restore stands for a restarted master and calls it first.
mc_feature_if_text(RELEASE_CAPACITY MC_SEGMENT_TEXT "void releaseCapacityMetrics()")
mc_feature_if_text(LOCAL_SSD_VIEW MC_CODEC_TEXT "LocalSsdManager& local_ssd_manager")
# The PR 2835 tree (based on main of 2026-07-10) predates more of main: tenant
# ids are plain strings, there is no snapshot codec, no eviction test hook,
# no soft-pin gauge and no seedable random engine.
mc_feature_if_file(TENANT_ID_CLASS "${MC_INC}/tenant_id.h")
mc_feature_if_file(SNAPSHOT_CODEC "${MC_INC}/ha/snapshot/master_snapshot_codec.h")
mc_feature_if_file(RANDOM_ENGINE "${MC_INC}/random.h")
mc_feature_if_text(EVICT_FOR_TESTING MC_MS_TEXT "RunBatchEvictForTesting")
mc_feature_if_text(GAUGE MC_METRIC_TEXT "get_soft_pin_key_count")
# The read-hit byte metrics (memory and file cache hits) and their getters.
mc_feature_if_text(HIT_BYTES MC_METRIC_TEXT "get_file_cache_hit_bytes")
# The valid-get metric (successful reads), compared with the read-hit bytes.
mc_feature_if_text(VALID_GETS MC_METRIC_TEXT "valid_get_nums_")
# The read-hit counts (memory and file; no getters), compared with the bytes.
mc_feature_if_text(HIT_NUMS MC_METRIC_TEXT "file_cache_hit_nums_")
# The refusal metrics, compared together: put-start allocation failures and
# partial allocations (their getters), tenant quota rejections (no getter).
mc_feature_if_text(REFUSALS MC_METRIC_TEXT "get_put_start_partial_allocations")
string(FIND "${MC_METRIC_TEXT}" "tenant_quota_reject_total_" _quota_rejects)
if(_quota_rejects EQUAL -1)
  mc_feature(REFUSALS 0)
endif()
# The batch lifecycle calls (BatchExistKey ... BatchRemove); BatchUpsertStart
# is the newest of them.
mc_feature_if_text(BATCH_UPSERT MC_MS_TEXT "BatchUpsertStart")
# An End's object checksum (ObjectMeta), returned by GetReplicaList.
mc_feature_if_text(OBJECT_CHECKSUM MC_MS_TEXT "object_checksum")
# Multi-tenant mode with tenant quotas (policies from a file connector) and
# the hard pin's accessor.
mc_feature_if_text(MULTI_TENANT MC_MS_TEXT "RebuildTenantQuotaUsageFromMetadata")
# Main's quota API: TenantId, and snapshots that report charged bytes (the
# PR 2835 tree predates TenantId; the pre-#2909 tree reports used_bytes).
set(MC_QUOTA_TEXT "")
if(EXISTS "${MC_INC}/tenant_quota.h")
  file(READ "${MC_INC}/tenant_quota.h" MC_QUOTA_TEXT)
endif()
string(FIND "${MC_QUOTA_TEXT}" "charged_bytes" _charged)
if(NOT MC_HAS_TENANT_ID_CLASS OR _charged EQUAL -1)
  mc_feature(MULTI_TENANT 0)
endif()
# Batch End calls take ObjectMeta (main) or plain keys (the PR 2835 tree).
set(MC_RPC_TEXT "")
if(EXISTS "${MC_INC}/rpc_types.h")
  file(READ "${MC_INC}/rpc_types.h" MC_RPC_TEXT)
endif()
mc_feature_if_text(OBJECT_META_BATCH MC_RPC_TEXT "struct ObjectMeta")
mc_feature_if_text(HARD_PIN MC_MS_TEXT "IsHardPinned")
# HA-OpLog mode (oplog_mode.h): a writer factory the adapter can hand MasterService.
mc_feature_if_text(OPLOG_WRITER_FACTORY MC_MS_TEXT "SetBatchOpLogWriterFactoryForTesting")
# Failover in that mode: a standby's snapshot restored into a new master.
mc_feature_if_text(STANDBY_RESTORE MC_MS_TEXT "RestoreFromStandbySnapshot")
# A replication task's expiry logged and awaiting its durable callback.
mc_feature_if_text(TASK_DURABLE_CLEANUP MC_MS_TEXT "durable_cleanup_pending")

# --- Compile flags of Mooncake's master_service.cpp --------------------------
set(MC_CC "${MC_BUILD}/compile_commands.json")
if(NOT EXISTS "${MC_CC}")
  pinsim_mooncake_fail("${MC_CC} not found: configure Mooncake with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON")
endif()
file(STRINGS "${MC_CC}" MC_CMD_LINES REGEX "\"command\".*mooncake-store/src/master_service\\.cpp\"")
list(LENGTH MC_CMD_LINES _n)
if(_n EQUAL 0)
  pinsim_mooncake_fail("no compile command for mooncake-store/src/master_service.cpp in ${MC_CC}")
endif()
list(GET MC_CMD_LINES 0 MC_CMD)
string(REGEX REPLACE "^[ \t]*\"command\"[ \t]*:[ \t]*\"(.*)\",?[ \t]*$" "\\1" MC_CMD "${MC_CMD}")
string(REPLACE "\\\"" "\"" MC_CMD "${MC_CMD}")
separate_arguments(MC_ARGS UNIX_COMMAND "${MC_CMD}")
set(MC_DEFS "")
set(MC_INCS "")
set(MC_SANITIZE "")
mc_feature(NOF 0)
set(_next "")
foreach(arg IN LISTS MC_ARGS)
  if(_next STREQUAL "inc")
    list(APPEND MC_INCS "${arg}")
    set(_next "")
  elseif(arg MATCHES "^-D(.*)$")
    list(APPEND MC_DEFS "${CMAKE_MATCH_1}")
    if(CMAKE_MATCH_1 STREQUAL "USE_NOF")
      set(MC_HAS_NOF 1)
    endif()
  elseif(arg MATCHES "^-I(.+)$")
    list(APPEND MC_INCS "${CMAKE_MATCH_1}")
  elseif(arg STREQUAL "-isystem" OR arg STREQUAL "-I")
    set(_next "inc")
  elseif(arg MATCHES "^-fsanitize=")
    list(APPEND MC_SANITIZE "${arg}")
  endif()
endforeach()
# A sanitizer build of Mooncake (its ENABLE_ASAN) needs the same -fsanitize
# options on the adapter and on every executable that links it.
list(REMOVE_DUPLICATES MC_SANITIZE)

# --- Libraries from the build tree -----------------------------------------
set(MC_MASTER_LIB "${MC_BUILD}/mooncake-store/src/libmooncake_store_master.a")
set(MC_MC_TARGET "mooncake_store_master")
set(MC_EXTRA_MC_LIBS "")
if(EXISTS "${MC_MASTER_LIB}")
  # Main (PR #2909 and later): the master library needs Mooncake's local-SSD
  # library beside it.
  list(APPEND MC_EXTRA_MC_LIBS "${MC_BUILD}/mooncake-store/src/local_ssd/libmooncake_local_ssd.a")
else()
  # Trees before PR #2909 have no mooncake_store_master target:
  # mooncake_store links the transfer engine and its base library instead,
  # and there is no local_ssd library in those trees.
  set(MC_MASTER_LIB "${MC_BUILD}/mooncake-store/src/libmooncake_store.a")
  set(MC_MC_TARGET "mooncake_store")
  list(APPEND MC_EXTRA_MC_LIBS
    "${MC_BUILD}/mooncake-transfer-engine/src/libtransfer_engine.a"
    "${MC_BUILD}/mooncake-transfer-engine/src/common/base/libbase.a")
endif()
set(MC_LIBS
  "${MC_MASTER_LIB}"
  ${MC_EXTRA_MC_LIBS}
  "${MC_BUILD}/mooncake-store/src/cachelib_memory_allocator/libcachelib_memory_allocator.a"
  "${MC_BUILD}/mooncake-common/src/libmooncake_common.a"
  "${MC_BUILD}/mooncake-common/libasio.so")
foreach(lib IN LISTS MC_LIBS)
  if(NOT EXISTS "${lib}")
    pinsim_mooncake_fail("${lib} not found: build Mooncake's ${MC_MC_TARGET} target (see sim/targets/mooncake/README.md)")
  endif()
endforeach()
set(MC_DEBIAN_LIBS glog gflags jsoncpp yaml-cpp zstd xxhash numa ibverbs curl)
foreach(lib IN LISTS MC_DEBIAN_LIBS)
  find_library(MC_LIB_${lib} NAMES ${lib})
  if(NOT MC_LIB_${lib})
    pinsim_mooncake_fail("lib${lib} not found (Debian packages: libgoogle-glog-dev libgflags-dev libjsoncpp-dev libyaml-cpp-dev libzstd-dev libxxhash-dev libnuma-dev libibverbs-dev libcurl4-openssl-dev)")
  endif()
endforeach()

# --- Profile -----------------------------------------------------------------
if(MC_HAS_SOFT_PIN_ACTION AND MC_HAS_CLEANUP)
  set(MC_PROFILE "mooncake-main")
  set(MC_TREE "post-PR-2909")
  set(MC_TREE_ID "main")
elseif(MC_HAS_RETAIN_GROUPS)
  set(MC_PROFILE "mooncake-main")
  set(MC_TREE "PR-2835 (group retention, pre-PR-2909 soft pin: boolean with_soft_pin, reads renew)")
  set(MC_TREE_ID "pr-2835")
else()
  set(MC_PROFILE "mooncake-main")
  set(MC_TREE "pre-PR-2909 (boolean with_soft_pin, reads renew)")
  set(MC_TREE_ID "pre-2909")
endif()
# What the tree lacks, as feature=words pairs for the configure line.
set(_unsupported "")
foreach(pair RETAIN_GROUPS=retain_groups NOF=nof CLEANUP=cleanup "SNAPSHOT_CODEC=snapshot restore" GAUGE=gauge
             "MULTI_TENANT=multi-tenant tenant_quota" HARD_PIN=hard_pin GRACEFUL_UNMOUNT=graceful_unmount
             OBJECT_CHECKSUM=checksum "HIT_BYTES=read-hit metrics")
  string(REPLACE "=" ";" pair "${pair}")
  list(GET pair 0 feature)
  list(GET pair 1 words)
  if(NOT MC_HAS_${feature})
    string(APPEND _unsupported " ${words}")
  endif()
endforeach()
if(MC_HAS_RETAIN_GROUPS)  # cleanup is then the task-cleanup cycle's retention prune
  string(REPLACE " cleanup" "" _unsupported "${_unsupported}")
endif()
set(_sanitized "")
if(MC_SANITIZE)
  list(JOIN MC_SANITIZE " " _sanitized)
  set(_sanitized "; built with ${_sanitized}")
endif()
message(STATUS "pinsim: Mooncake target: tree ${MC_SRC} (${MC_TREE}), profile ${MC_PROFILE}; unsupported:${_unsupported}${_sanitized}")
