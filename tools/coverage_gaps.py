#!/usr/bin/env python3
"""Why each unreached block of master_service.cpp is unreached, by kind.

The 90% reach goal asks that every block a campaign leaves unexecuted be
explained. `mooncake_coverage.py --uncovered` lists the unexecuted line ranges
per lifecycle function; this script reads those ranges and the Mooncake
source they point into, and files each range under the first kind whose
marks it contains (HA/oplog, DFS, NoF, disk/offload/replication tasks, client
liveness, allocator options, group re-routing, invariant/error paths,
metrics). A range with none of the marks is "other": a branch the public API
can reach that no campaign drove yet, or one the marks miss; those are the
ones to read. Nothing of Mooncake's text is printed, only line numbers.

usage: coverage_gaps.py SRC UNCOVERED_REPORT   (the output of mooncake_coverage.py --uncovered)
"""
import collections
import re
import sys

FILE = "mooncake-store/src/master_service.cpp"
KINDS = [
    ("HA / oplog", r"enable_oplog_|enable_ha_|OpLog|oplog|Persist|Durable|mark_removed|REMOVED"),
    ("DFS replicas", r"dfs|Dfs|DFS"),
    ("NoF segments", r"\bnof|NoF|Nof|NOF"),
    ("disk, offload, promotion, replication tasks",
     r"local_disk|LocalDisk|offload|Offload|promotion|Promotion|replication_task|ReplicationTask|Copy|Move|DiskReplica"),
    ("client liveness, stale handles", r"alive_clients|ok_client|[Ss]tale|client_monitor|Ping"),
    ("allocator and placement options", r"CACHELIB|cachelib|kMaxSliceSize|prefer_alloc_in_same_node|host_id|LOCAL_FIRST"),
    ("group re-routing to another shard", r"retry_shard|case_a_retry|GetGroupRoute"),
    ("invariant and internal-error paths", r"INTERNAL_ERROR|AccountingMismatch|LOG\(ERROR\)|LOG\(WARNING\)|LogTenantQuota|mismatch"),
    ("metrics and events", r"Metric|metric|kv_event|Publish"),
]
RANGES = re.compile(r"\s+(\w+) \(defined [^)]*\): (.*)")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    source = open(f"{sys.argv[1]}/{FILE}").read().split("\n")
    per_function = collections.OrderedDict()
    for line in open(sys.argv[2]):
        m = RANGES.match(line)
        if not m:
            continue
        for r in m.group(2).split(", "):
            first, _, last = r.partition("-")
            first, last = int(first), int(last or first)
            text = "\n".join(source[first - 1:last])
            kind = next((name for name, marks in KINDS if re.search(marks, text)), "other")
            per_function.setdefault(m.group(1), []).append((first, last, kind))
    totals = collections.Counter()
    for ranges in per_function.values():
        for first, last, kind in ranges:
            totals[kind] += last - first + 1
    print("source lines unexecuted, by kind:")
    for kind, n in totals.most_common():
        print(f"  {n:5d}  {kind}")
    print("\nper function (line ranges of the tree given):")
    for fn, ranges in per_function.items():
        print(f"  {fn}: " + "; ".join(f"{a}-{b} {k}" if a != b else f"{a} {k}" for a, b, k in ranges))


if __name__ == "__main__":
    main()
