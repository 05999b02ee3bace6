#!/usr/bin/env python3
"""Why each unreached line of Mooncake's lifecycle functions is unreached,
and the reach goal measured on what the public API can reach.

`mooncake_coverage.py --json` records, per lifecycle function, the gcov count
of every code line. This script cuts the lines never executed into blocks
(maximal runs) and files each block under one kind, judged from the Mooncake
source given, at run time:

- **executed statement**: the block lies inside a statement (or condition)
  whose other lines ran; gcov attributes the code to another line of it.
  Counted as executed.
- **outside the harness**: DFS eviction, NoF, the disk tier's
  offload-on-evict mode, the snapshot catalogue, the eviction thread
  (the harness calls BatchEvict itself), kv events, allocator and placement
  options, metrics. (DFS writes and reads, the disk tier's offloads and
  promotions, copies, dynamic replication, since session 49 the primary's
  operation log (HA-OpLog mode) and since session 50 the standby's restore
  and the remount after it (the op `failover`) are driven: their blocks are
  reachable.)
  The block's own text or the condition of a branch that encloses it names
  the mechanism. Left out of the goal's denominator.
- **guard**: a path that runs only when an invariant of Mooncake's is already
  broken (internal errors, ledger mismatches, overflow guards, defensive
  early returns that callers make unreachable). Left out of the denominator.
  A double check that only a concurrent request can make true is reachable
  (its reason starts "lane:"): the concurrency lane drives such requests.
- **verbose logging**: the continuation of a VLOG(1) statement (verbose
  logging is off, as in production; the VLOG check itself runs). Left out.
- **reachable**: everything else, each with the reason recorded in REASONS
  below, or "no reason recorded": those are the blocks to drive or explain.

Nothing of Mooncake's text is printed, only function names and line numbers.

usage: coverage_gaps.py SRC COVERAGE_JSON
"""
import collections
import json
import re
import sys

from cpp_source import blank

FILE = "mooncake-store/src/master_service.cpp"

OUTSIDE = [  # (kind, marks in the block or an enclosing condition)
    # The harness drives DFS writes, reads and slots (a DFS allocator of its
    # own); the allocator's eviction runs on the eviction thread only.
    ("DFS eviction (the eviction thread's)", r"RunDfsEviction|dfs_allocator_->IsEvictionEnabled"),
    ("NoF segments", r"\bnof|NoF|Nof|NOF"),
    # The harness drives the disk tier with offload-on-evict off (a client's
    # offload and promotion reports; docs/reach.md): that mode's blocks stay out.
    ("offload-on-evict mode (not configured)", r"offload_on_evict_|offload_cap_forced_count|offload_push_failed_forced"
     r"|has_local_disk_replica"),
    ("snapshot catalogue (HA)", r"SnapshotCatalog|snapshot_catalog"),
    ("eviction thread (stopped; the harness calls BatchEvict)",
     r"EVICT-TRIGGER|eviction_high_watermark_ratio_|last_discard_time|RunPromotionCandidateRetry"),
    ("kv events", r"kv_event|PublishKv"),
    ("allocator and placement options", r"CACHELIB|kMaxSliceSize|prefer_alloc_in_same_node|writer_host_id|LOCAL_FIRST"
     r"|preferred_segment|GetUnreadySegments"),
    ("metrics", r"MasterMetricManager|EVICT-DIAG"),
]
STRICTLY_OUTSIDE = {"DFS eviction (the eviction thread's)", "NoF segments", "snapshot catalogue (HA)"}
GUARD = (r"INTERNAL_ERROR|AccountingMismatch|LogTenantQuota|mismatch|throw |overflow"
         r"|numeric_limits<uint64_t>::max\(\)|assert\(")

# Two reasons several rows give: the window HA-OpLog mode's settling closes,
# and a log the in-memory store never refuses.
HA_WINDOW = ("HA-OpLog mode, between an op and its log entries' durable callbacks: the Mooncake target settles the "
             "log after every op, so no call meets the window (exploring it is a later step)")
LOG_REFUSED = ("a write to the operation log that fails: the harness's in-memory log store never fails and no call "
               "reserves 1,024 entries (a failing store is a later step)")

# Blocks of the public API's reach that a campaign did not execute, by
# function and a mark of the block (or its enclosing condition): the reason.
# A reason that starts with "guard:" files the block as a guard.
REASONS = [  # (function names, mark in the block's first statement or nearest condition, reason)
    # Guards: true only when an invariant is already broken. "lane:" rows:
    # true only under concurrent requests, which the concurrency lane drives.
    ("PutStart|UpsertStart|AllocateAndInsertMetadata", r"object_already_exists|!inserted",
     "guard: the object-exists check repeated under the target shard's lock: every start of a key holds the key's "
     "object operation lock across both shard locks, and only starts insert metadata (restore and NoF aside)"),
    ("PutStart|UpsertStart", r"^\s*return tl::make_unexpected\(ErrorCode::TENANT_QUOTA_EXCEEDED\);",
     "guard: after the retry loop, whose last attempt always returns"),
    ("EvictTenantMemoryForQuota", r"target_bytes == 0",
     "guard: the only callers are the quota retries, which run in multi-tenant mode with a deficit"),
    ("LoadTenantQuotaPoliciesFromStoreOrThrow|RebuildTenantQuotaUsageFromMetadata", r"!enable_multi_tenants_",
     "guard: callers check multi-tenant mode first"),
    ("PutEnd|PutRevoke|UpsertStart|DiscardExpiredProcessingReplicas",
     r"return tl::make_unexpected\(settle_result|\+\+key_it",
     "guard: SettlePrimaryWriteQuotaIfReady fails only on a broken ledger or invalid metadata"),
    ("ChargeTenantQuota|ReleaseTenantQuota|LogTenantQuotaLedgerError|GetTenantQuotaAllocatableCapacityBytes"
     "|SettlePrimaryWriteQuotaIfReady", r"LOG\(ERROR\)|return 0;|INTERNAL_ERROR",
     "guard: a handle, ledger or segment-table error (internal)"),
    ("BatchEvict", r"evict_ratio_target < evict_ratio_lowerbound",
     "guard: callers pass lowerbound <= target (the eviction thread computes both)"),
    ("BatchEvict", r"Error in second pass",
     "guard: pass 2 found fewer objects than its own count said it would"),
    ("BatchEvict", r"total_eviction_base == 0",
     "guard: an empty eviction base returned early above"),
    ("BatchEvict",
     r"Re-validate|!it->second.IsLeaseExpired\(now\)|refill_candidates|candidates\.size\(\) >= primary_count",
     "lane: state changed between the candidate scan and the eviction (a concurrent request; "
     "BatchEvict holds no lock across its phases)"),
    ("BatchEvict", r"reserve_count <= frontier_limit",
     "a frontier reserve above the frontier limit: 65,536 candidates or more; pinsim's tables hold a few objects"),
    ("BatchEvict", r"target_evict_num <= static_cast<long>\(no_pin_objects",
     "lane: pass 2A, over the candidates pass 1 skipped: one a concurrent request changed since the census "
     "(BatchEvict holds no lock across its phases), or, sequentially, perhaps one left once a group's eviction "
     "reached pass 1's count early (not aimed at)"),
    ("DiscardExpiredProcessingReplicas", r"was removed while in processing",
     "guard: a processing-set entry without metadata (erasing metadata removes its entry)"),
    ("ApplySnapshotState", r"Failed to get all segments",
     "guard: the segment table cannot fail to list"),
    ("PutRevoke", r"ReleaseCommitted",
     "guard: Revoke erases PROCESSING replicas only, so the COMPLETE memory charge cannot fall"),
    ("UpsertStart", r"ReleaseReplacement",
     "guard: the key just inserted under the same lock is missing"),
    ("GrantLeaseForGroup|EvictTenantMemoryForQuota", r"GrantReadLease|group_it == tenant_state.group_members.end\(\)",
     "guard: a grouped object missing from its group's member set (members are registered with the object)"),
    ("GetReplicaList|ExistKey", r"GrantReadLease",
     "guard: the accessor of an object that exists always has its tenant state"),
    ("CleanupExpiredSoftPins", r"continue;",
     "lane: an index entry whose object a concurrent request erased after PopExpired took the entry"),
    ("AllocateAndInsertMetadata", r"Failed to allocate DFS replica",
     "guard: PutStart and UpsertStart refuse a DFS request of a master without DFS before (DFS_SERVICE_UNAVAILABLE)"),
    ("DiscardExpiredProcessingReplicas", r"removed with ongoing replication task",
     "guard: a replication task without metadata (erasing metadata erases its task)"),
    ("EvictTenantMemoryForQuota", r"member_it == tenant_state.metadata.end\(\)",
     "guard: a group's member set naming a key without metadata (erasing metadata unregisters the member)"),
    # The failover's restore (the op `failover`): what Mooncake's own standby
    # export never holds, and the checks of an empty new primary.
    ("RestoreFromStandbySnapshot", r"enable_dfs_",
     "guard: MasterService's constructor refuses DFS with the operation log, so no failover meets a DFS master"),
    ("RestoreFromStandbySnapshot", r"seg.segment_name.empty\(\)|!add_alias|!tenant_id.IsValid\(\)|object_ids.insert",
     "failover: an export with a segment without name, endpoint or capacity, two segments sharing an alias, an invalid "
     "tenant or a key twice: Mooncake's own applier and registry never write one"),
    ("RestoreFromStandbySnapshot",
     r"scoped_tenant_id|!seg.is_memory_segment|seg.segment_name != seg.transport_endpoint",
     "failover: an export with a tenant only in the key's scope, a segment that is not memory, or a segment named "
     "other than its endpoint: the applier writes each entry's tenant, the harness mounts memory segments only and "
     "names each by its endpoint"),
    ("RestoreFromStandbySnapshot", r"metadata.contains",
     "failover: an object the master already holds: the new primary is an empty MasterService when it restores"),
    ("RestoreFromStandbySnapshot", r"buffer.size_ != standby_meta.size|disk_desc.object_size != standby_meta.size",
     "failover: a descriptor whose size is not its object's: PUT_END writes the object's own buffers"),
    ("RestoreFromStandbySnapshot", r"get_local_disk_descriptor",
     "failover: a LOCAL_DISK replica: failover is not combined with the local-disk tier yet"),
    ("CopyStart", r"!task_insert.second",
     "guard: the task insert repeats the replication-task check made above under the same shard lock"),
    # Reachable by the public API, not driven by pinsim: why.
    ("IsTenantQuotaEnabled|GetTenantQuotaSnapshot|BuildTenantQuotaPolicySnapshot", r"",
     "read-only accessors of the policy API: the View reads ListTenantQuotaSnapshots instead"),
    ("PutEnd", r"return replica.type\(\) == replica_type",
     "outside: a selector naming the disk or DFS replica kind"),
    ("PutEnd", r"all_target_replicas_complete = false",
     "an End retried while a targeted replica is still PROCESSING outside a write (a promotion's replica): disk tier"),
    ("PutRevoke", r"invalid_replica_status|return false;|auto settle_result|EraseFromProcessing|fn_is_completed\) &&",
     "a Revoke that leaves part of the object: needs replicas of two kinds in different states "
     "(memory with NoF or disk), outside the harness"),
    ("UpsertStart|DiscardExpiredProcessingReplicas", r"auto settle_result",
     "COMPLETE replicas that survive the loss of the PROCESSING ones: needs replicas of two kinds "
     "in different states (memory with NoF or disk), outside the harness"),
    ("BatchEvict", r"soft_target_timeout",
     "pass 2B with more soft-pinned candidates than its quota and leases above the cutoff: "
     "reachable, not yet aimed at"),
    ("BatchEvict|EvictTenantMemoryForQuota", r"^\s*\+\+it;",
     "an object still valid after its memory is evicted: it keeps a replica of another kind (NoF: outside; disk: "
     "the tier is not combined with multi-tenant mode yet; DFS: default tenant only)"),
    ("UpsertStart", r"OBJECT_REPLICA_BUSY|object_replica_busy",
     "an Upsert of an object whose replica is busy with an offload or a copy: both are driven, not yet aimed at"),
    ("CopyEnd|CopyRevoke", r"durable_cleanup_pending",
     HA_WINDOW),
    ("CopyEnd|CopyRevoke", r"MOVE instead of COPY",
     "a Copy End or Revoke of a key whose task is a Move: the harness drives no Move (MoveStart, MoveEnd, MoveRevoke)"),
    ("RemoveAll", r"get_local_disk_client_id",
     "a tenant's RemoveAll (multi-tenant mode) of an object with a local-disk replica: the local-disk tier is not "
     "combined with multi-tenant mode yet (Config::local_disk_combines)"),
    ("PutEnd|UpsertEnd", r"const std::string& key,",
     "the overload that takes a bare key: the adapter calls the ObjectMeta one, which carries an End's checksum"),
    ("BatchEvictDiskReplica", r"",
     "a client's report that it evicted disk replicas: the harness's local-disk holder never evicts"),
    ("GetReplicaList|BatchGetReplicaList", r"REMOVED",
     HA_WINDOW),
    ("PutStart|UpsertStart|BatchRemove", r"cleanup_plan\.removed_ids",
     "lane: the stale-handle cleanup of an object an unmount left without a valid replica, before the unmount's "
     "sweep (the replica-cleanup worker's): the sequential adapter sweeps inside UnmountSegment, so only a call "
     "that overlaps the unmount meets it"),
    (".*", r"persist_result|persist_err|OpLog persist|OpLog queue failed|!reservation\b|persist_evict_oplog_or_skip",
     LOG_REFUSED),
    ("PutStart", r"if \(!err\) \{",  # PersistRemoveForHA's refusal
     LOG_REFUSED),
    ("PutStart|UpsertStart", r"OBJECT_ALREADY_EXISTS\);[\s\S]*enable_oplog_",
     "HA-OpLog mode: a Start that meets an object whose stale handles the unmount's sweep has not taken yet (a "
     "call that overlaps the unmount): the concurrency lane reaches it without the log, and does not run the mode"),
    ("Finalize.*AfterDurable", r"^\s*return;",
     "HA-OpLog mode: a durable callback that finds its tenant or object gone, or its replicas or task changed, "
     "since its entry: only a call between the op and its callback does that, and the target settles the log "
     "after every op (exploring that window is a later step)"),
    ("BatchEvict", r"tenant_it = shard->tenants\.erase\(tenant_it\)",
     "a tenant that pass 2A leaves without objects: where the lane ran pass 2A, its tenant kept other objects"),
    ("BatchRemove", r"IsValid|OBJECT_NOT_FOUND",
     "an object without a valid replica that the stale-handle cleanup did not erase: not established how one "
     "arises (an unmount's lost objects are erased by that cleanup or by the sweep)"),
    ("RemoveByRegex", r"regex_error|Invalid regex",
     "an invalid pattern: pinsim's remove_by_regex names the keys it matches and the adapter writes a valid pattern"),
    ("AllocateAndInsertMetadata", r"INVALID_PARAMS",
     "the allocator refusing a request as invalid: request validation refuses every such request before"),
    ("ApplySnapshotState", r"continue;|UnmountSegment",
     "a restored replica that is not memory, or a segment not ready at restore: snapshots are not combined "
     "with the disk tier or DFS against Mooncake, and NoF is outside"),
    ("EvictTenantMemoryForQuota", r"return \{\};|EraseMetadata|IsHardPinned\(\) \|\|",
     "quota eviction of a group (a leased member keeps the group; the others are erased): "
     "groups in quota-bound tenants are rare in the swarm, not yet aimed at"),
    ("RebuildTenantQuotaUsageFromMetadata", r"orphan",
     "a restore that brings back objects of a tenant whose policy was deleted after the snapshot"),
    ("DiscardExpiredProcessingReplicas", r"ClearPendingSoftPinIfNoViableReplica",
     "lane: a processing-set entry whose object an unmount left without a valid replica, met before the "
     "unmount's sweep; or whose object is already complete (not established how: End and the erase paths take "
     "the key out of the set)"),
    ("CleanupExpiredSoftPins", r"\+\+end",
     "two due soft pins in one metadata shard (1,024 shards, at most 8 keys per seed: rare)"),
    ("DeleteTenantQuotaPolicy", r"restore_policy|TenantHasObjects|TENANT_NOT_EMPTY",
     "a tenant with an object but no charge: only NoF-only objects are uncharged (outside the harness)"),
    ("DeleteTenantQuotaPolicy|UpsertTenantQuotaPolicy", r"PERSISTENT_FAIL|failed to save|LOG\(ERROR\)",
     "guard: the policy file cannot be written"),
]

KINDS_ORDER = ["executed statement", "verbose logging", "outside", "guard", "reachable"]


def indent(line):
    return len(line) - len(line.lstrip(" "))


def ends_statement(line):
    s = line.rstrip()
    return not s or s[-1] in ";{}:" or s.endswith("else")


def statement(code, line):
    """(first, last) line numbers of the statement holding `line` (1-based)."""
    first = line
    while first > 1 and not ends_statement(code[first - 2]) and code[first - 2].strip():
        first -= 1
    last = line
    while last < len(code) and not ends_statement(code[last - 1]):
        last += 1
    return first, last


def opening_line(code, line):
    """The first line of the construct that `line` closes: walk back until
    the parentheses opened make up for those closed (a condition holding a
    lambda spans several statements)."""
    balance = 0
    for l in range(line, 0, -1):
        balance += code[l - 1].count(")") - code[l - 1].count("(")
        if balance <= 0:
            return statement(code, l)[0]
    return line


def enclosing_conditions(code, source, first, top):
    """The headers (if / else if / while / for / case / switch) of every
    branch enclosing line `first`, innermost first, up to the function's
    first line `top`; an `else` branch stands for the `if` it is the else of."""
    headers, level = [], indent(code[first - 1])
    for l in range(first - 1, top - 1, -1):
        text = code[l - 1]
        if not text.strip() or indent(text) >= level:
            continue
        a = opening_line(code, l)  # a header may span lines (a lambda inside): judge its first
        level = min(indent(text), indent(code[a - 1]))
        head = code[a - 1].strip().lstrip("} ")
        if head.startswith("else") and not head.startswith("else if"):
            for k in range(a - 1, top - 1, -1):  # the `if` of this else, at the same depth
                if indent(code[k - 1]) == level and re.match(r"(\} )?(else )?if\b", code[k - 1].strip()):
                    headers.append("\n".join(source[k - 1:statement(code, k)[1]]))
                    break
        elif re.match(r"(if|else if|while|for|case|switch)\b", head):
            end, balance = a, 0  # the header runs to the brace after its last parenthesis
            while end < first - 1:
                balance += code[end - 1].count("(") - code[end - 1].count(")")
                if balance <= 0 and code[end - 1].rstrip().endswith("{"):
                    break
                end += 1
            headers.append("\n".join(source[a - 1:end]))
    return headers


def classify(fn, block, counts, code, source, top):
    a, b = block
    executed = lambda l: counts.get(str(l), 0) > 0
    spans = {statement(code, l) for l in range(a, b + 1)}
    if all(any(executed(l) for l in range(s, e + 1)) for s, e in spans):
        first_lines = " ".join(source[s - 1] for s, _ in spans)
        return ("verbose logging", "") if "VLOG(" in first_lines else ("executed statement", "")
    headers = enclosing_conditions(code, source, a, top)
    text = "\n".join(source[a - 1:b]) + "\n" + "\n".join(headers)
    # The block's first statement and the nearest enclosing condition: what a
    # guard or a reason is judged on (not everything the block goes on to do).
    s, e = statement(code, a)
    focus = "\n".join(source[s - 1:e]) + "\n" + (headers[0] if headers else "")
    reasons = [(r[7:], True) if r.startswith("guard: ") else (r, False)  # "outside: KIND" files it there
               for names, mark, r in REASONS if re.fullmatch(names, fn) and re.search(mark, focus, re.M)]
    if reasons and reasons[0][1]:
        return "guard", reasons[0][0]
    if reasons and reasons[0][0].startswith("lane: "):  # reachable, whatever else its text names
        return "reachable", reasons[0][0]
    if reasons and reasons[0][0].startswith("outside: "):
        return "outside", reasons[0][0][9:]
    for kind, marks in OUTSIDE:
        if re.search(marks, fn) or re.search(marks, text):
            return "outside", kind
    if re.search(GUARD, focus):
        return "guard", "internal-error or invariant path"
    return ("reachable", reasons[0][0]) if reasons else ("reachable", "no reason recorded")


def blocks(counts):
    lines = sorted(int(l) for l in counts)
    run = None
    for l in lines:
        if counts[str(l)]:
            if run:
                yield tuple(run)
            run = None
        elif run:
            run[1] = l
        else:
            run = [l, l]
    if run:
        yield tuple(run)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    with open(f"{sys.argv[1]}/{FILE}", encoding="utf-8", errors="replace") as f:
        raw = f.read()
    source, code = raw.split("\n"), blank(raw).split("\n")
    functions = json.load(open(sys.argv[2]))["functions"]
    lines_of, executed, seen = collections.Counter(), 0, set()
    gaps = collections.OrderedDict()
    for fn, data in functions.items():
        if data.get("absent"):
            continue
        counts = {l: c for l, c in data["counts"].items() if l not in seen}
        seen.update(counts)
        executed += sum(1 for c in counts.values() if c)
        top = min(d[0] for d in data["definitions"])
        for block in blocks(counts):
            kind, why = classify(fn, block, counts, code, source, top)
            n = sum(1 for l in range(block[0], block[1] + 1) if counts.get(str(l)) == 0)
            lines_of[kind] += n
            lines_of[(kind, why)] += n
            gaps.setdefault(fn, []).append((block, kind, why))
    report(lines_of, executed, len(seen), gaps)


def report(lines_of, executed, total, gaps):
    ran = executed + lines_of["executed statement"]
    reachable = total - lines_of["outside"] - lines_of["guard"] - lines_of["verbose logging"]
    print(f"lifecycle functions: {total} code lines, {executed} executed by gcov's count")
    print(f"  + {lines_of['executed statement']:5d} lines inside statements that ran (counted as executed)")
    for kind in ("outside", "guard", "verbose logging"):
        print(f"  - {lines_of[kind]:5d} {kind} (not reachable by the harness's public-API calls)")
        for (k, why), n in sorted(((k, n) for k, n in lines_of.items() if isinstance(k, tuple) and k[0] == kind),
                                  key=lambda kn: -kn[1]):
            if why:
                print(f"        {n:5d}  {why}")
    pct = 100.0 * ran / reachable if reachable else 0.0
    print(f"reach goal: {ran}/{reachable} reachable lines executed = {pct:.1f}% (goal 90%)")
    # The goal as first stated leaves out only HA, the oplog, DFS and NoF; the
    # primary's log is driven since session 49 and the standby's restore since
    # session 50 (of DFS, only its eviction is still outside the harness):
    # counted that way, the other features outside the harness are misses.
    strict = reachable + sum(n for k, n in lines_of.items() if isinstance(k, tuple) and k[0] == "outside"
                             and k[1] not in STRICTLY_OUTSIDE)
    print(f"  counting only the snapshot catalogue, DFS eviction and NoF as outside: {ran}/{strict} = "
          f"{100.0 * ran / strict:.1f}%")
    print(f"reachable, not reached: {lines_of['reachable']} lines")
    for fn, items in gaps.items():
        shown = [f"{a}-{b}: {why}" if a != b else f"{a}: {why}" for (a, b), kind, why in items if kind == "reachable"]
        if shown:
            print(f"  {fn}: " + "; ".join(shown))
    print("\nevery block (line ranges of the tree given):")
    for fn, items in gaps.items():
        print(f"  {fn}: " + "; ".join(f"{a}-{b} {kind}{': ' + why if why else ''}" if a != b else
                                      f"{a} {kind}{': ' + why if why else ''}" for (a, b), kind, why in items))


if __name__ == "__main__":
    main()
