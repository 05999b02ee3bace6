#!/usr/bin/env python3
"""Checks tools/coverage_gaps.py on a small invented source (not Mooncake's):
each kind of unexecuted block is filed as docs/reach.md says, and the reach
goal counts what it should. Run by ctest (coverage_gaps)."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

SOURCE = """\
void MasterService::PutEnd(int x) {
    if (x > 0 &&
        Check(x)) {
        Done();
    }
    VLOG(1) << "x=" << x
            << ", action=end";
    if (nof_segments_) {
        Persist(x);
    }
    if (!ledger) {
        return tl::make_unexpected(ErrorCode::INTERNAL_ERROR);
    }
    if (x == 7) {
        Seven();
    }
}
void MasterService::PutStart(int x) {
    if (!cleanup_plan.removed_ids.empty()) {
        PersistStaleHandleCleanupForHA(x);
    }
}
void MasterService::Remove(int x) {
    if (enable_oplog_) {
        AppendOpLog(x);
    }
}
"""
# line: count (None = not code)
COUNTS = {1: 5, 2: 5, 3: 0, 4: 5, 6: 5, 7: 0, 8: 5, 9: 0, 11: 5, 12: 0, 14: 5, 15: 0}
PUT_START_COUNTS = {18: 5, 19: 5, 20: 0}
REMOVE_COUNTS = {23: 5, 24: 5, 25: 0}


def main():
    with tempfile.TemporaryDirectory() as src:
        os.makedirs(os.path.join(src, "mooncake-store/src"))
        with open(os.path.join(src, "mooncake-store/src/master_service.cpp"), "w") as f:
            f.write(SOURCE)
        cov = os.path.join(src, "coverage.json")
        with open(cov, "w") as f:
            json.dump({"functions": {
                "PutEnd": {"absent": False, "definitions": [[1, 17]],
                           "counts": {str(l): c for l, c in COUNTS.items()}},
                "PutStart": {"absent": False, "definitions": [[18, 22]],
                             "counts": {str(l): c for l, c in PUT_START_COUNTS.items()}},
                "Remove": {"absent": False, "definitions": [[23, 27]],
                           "counts": {str(l): c for l, c in REMOVE_COUNTS.items()}}}}, f)
        out = subprocess.run([sys.executable, os.path.join(HERE, "coverage_gaps.py"), src, cov],
                             check=True, capture_output=True, text=True).stdout
    expected = [
        "3 executed statement",          # the second operand of a condition that ran
        "7 verbose logging",             # a VLOG continuation
        "9 outside: NoF segments",       # a mechanism the harness does not run
        "25 reachable: no reason recorded",     # the primary's log is driven (HA-OpLog mode)
        "12 guard: internal-error",      # an INTERNAL_ERROR return
        "15 reachable: no reason recorded",
        # Only a concurrent request runs it: reachable, though its text names the HA persistence.
        "20 reachable: lane: the stale-handle cleanup",
        "reach goal: 12/15 reachable lines executed",  # 11 ran + line 3; lines 7, 9, 12 left out
    ]
    missing = [e for e in expected if e not in out]
    if missing:
        sys.exit("coverage_gaps_test: missing from the report: " + "; ".join(missing) + "\n" + out)
    print("coverage_gaps_test: passed")


if __name__ == "__main__":
    main()
