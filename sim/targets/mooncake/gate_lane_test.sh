#!/bin/bash
# `pinsim gate --target mooncake` runs the concurrency lane's seeds, and a
# lane failure's trace written by the gate replays under mooncake_concurrency
# with the schedule it recorded (pinsim carries the sched interposer, which
# the lane turns off, so both executables schedule the same calls). A base
# summary naming only lane seed 1 makes the gate run exactly that seed (its
# presets then run nothing); on main seed 1 fails as a known race, so there
# the trace must exist and the failure be known.
# Usage: gate_lane_test.sh PINSIM MOONCAKE_CONCURRENCY TREE_ID
set -u
pinsim=$1 lane=$2 tree=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo '{"format": "pinsim-gate", "runs": [{"preset": "lane", "seeds": [1]}], "failures": []}' > "$work/base.json"
"$pinsim" gate --target mooncake --base "$work/base.json" --budget 600s --out "$work/out" --json "$work/gate.json" \
  --markdown "$work/gate.md" > "$work/log" 2>&1
rc=$?
[ "$rc" -le 1 ] || { echo "FAIL: the gate ended with exit $rc"; tail -5 "$work/log"; exit 1; }
# The lane's run and its failures, one line each: "run SEEDS" and "failure VERDICT TRACE".
python3 - "$work/gate.json" > "$work/lane" <<'PY' || { echo "FAIL: cannot read the gate summary"; exit 1; }
import json, sys
g = json.load(open(sys.argv[1]))
for r in g["runs"]:
    if r["preset"] == "lane":
        print("run", ",".join(str(s) for s in r["seeds"]))
for f in g["failures"]:
    if f["source"].startswith("lane seed "):
        print("failure", f["verdict"], f["trace"])
PY
fail=0
grep -qx "run 1" "$work/lane" || { echo "FAIL: the lane did not run exactly seed 1"; cat "$work/lane"; fail=1; }
while read -r kind verdict trace; do
  [ "$kind" = failure ] || continue
  "$lane" --replay "$trace" > "$work/replay" 2>&1
  grep -q "the recorded schedule was followed" "$work/replay" ||
    { echo "FAIL: $trace ($verdict) did not replay under its schedule"; cat "$work/replay"; fail=1; }
done < "$work/lane"
if [ "$tree" = main ] && ! grep -q "^failure known " "$work/lane"; then
  echo "FAIL: on main lane seed 1 fails as a known race"; cat "$work/lane"; fail=1
fi
grep -q "^| lane | 1 |" "$work/gate.md" || { echo "FAIL: the report has no lane row"; fail=1; }
exit $fail
