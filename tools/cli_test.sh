#!/usr/bin/env bash
# CLI contract: exit 0 on pass, 1 on a failed comparison or expectation, 2 on
# bad usage or bad input, with one line naming the place and the reason.
set -u
P=$1; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
check() {  # check <expected rc> <stderr pattern or -> <args...>
  local want=$1 pat=$2; shift 2
  "$P" "$@" >"$T/out" 2>"$T/err"; local rc=$?
  if [ "$rc" != "$want" ]; then echo "FAIL: pinsim $* -> rc $rc, want $want"; cat "$T/err"; fail=1; return; fi
  if [ "$pat" != - ] && ! grep -q -- "$pat" "$T/err"; then echo "FAIL: pinsim $*: stderr lacks '$pat'"; cat "$T/err"; fail=1; fi
  if [ "$want" = 2 ] && [ "$(wc -l <"$T/err")" != 1 ]; then echo "FAIL: pinsim $*: want one error line"; cat "$T/err"; fail=1; fi
}
check 0 - run --seeds 1..20 --steps 50 --swarm
check 0 - run --seed 4 --trace "$T/s4.json"
check 0 - replay "$T/s4.json"
check 2 "unrecognised option" run --bogus
check 2 "unknown target 'nope'" run --target nope
check 2 "first seed 5 is after last seed 2" run --seeds 5..2
check 2 "expected K/N" run --shard 3
check 2 "unknown profile" run --profile x
check 2 "cannot open file" replay "$T/missing.json"
check 2 "unknown command" frobnicate
check 0 - explore --depth 2 --keys 1 --actors 1
check 2 "expected numbers separated by commas" explore --steps 1,x
check 2 "unknown op 'bogus'" explore --ops put_start,bogus
check 2 "a target must be 1..100 percent" explore --evict 0
check 1 - explore --target embedded --fault F4 --depth 2 --keys 1 --actors 1 --out "$T/ex.json"
# --seconds without a universe flag climbs the ladder (docs/explorer.md); a universe flag keeps one universe.
check 1 - explore --target embedded --fault F4 --seconds 30 --out "$T/ex.json"
grep -q "found by rung 1/" "$T/out" || { echo "FAIL: explore --seconds: no ladder in the output"; fail=1; }
check 1 - explore --target embedded --fault F4 --seconds 30 --keys 2 --out "$T/ex.json"
grep -q "rung" "$T/out" && { echo "FAIL: explore --keys 2: the ladder ran"; fail=1; }
check 1 - replay "$T/ex.json" --target embedded --fault F4
printf '{' >"$T/bad.json"; check 2 "bad.json: invalid JSON" replay "$T/bad.json"
echo '{"format":"pinsim-trace","version":1,"config":{},"steps":[{"t":0,"op":"zap"}]}' >"$T/op.json"
check 2 "steps\[0\].op: unknown op 'zap'" replay "$T/op.json"
echo '{"format":"pinsim-trace","version":1,"config":{"max_kv_soft_pin_ttl_ms":1},"steps":[]}' >"$T/cfg.json"
check 2 "exceeds max_kv_soft_pin_ttl_ms" replay "$T/cfg.json"
echo '{"format":"pinsim-trace","version":1,"config":{"ha_oplog":true,"dfs_slots":1},"steps":[]}' >"$T/ha.json"
check 2 "ha_oplog is not combined with dfs_slots" replay "$T/ha.json"
echo '{"format":"pinsim-trace","version":1,"config":{"oplog_lag":true},"steps":[]}' >"$T/lag.json"
check 2 "oplog_lag needs ha_oplog" replay "$T/lag.json"
echo '{"format":"pinsim-trace","version":1,"config":{"ha_oplog":true,"oplog_lag":true},"steps":[]}' >"$T/lag2.json"
check 2 "embedded master keeps no operation log" replay "$T/lag2.json" --target embedded
# The log's window: drawn in half of the HA-OpLog seeds of a swarm or preset run for a target whose log can lag
# (swarm seed 11 draws it on the model), never for the embedded master.
check 0 - run --swarm --seed 11 --steps 50 --trace "$T/lag-run.json"
grep -q '"oplog_lag": *true' "$T/lag-run.json" || { echo "FAIL: swarm seed 11 drew no log window"; fail=1; }
check 0 - run --swarm --seed 11 --steps 50 --target embedded --trace "$T/lag-emb.json"
! grep -q '"oplog_lag"' "$T/lag-emb.json" || { echo "FAIL: the embedded master's seed 11 drew the log window"; fail=1; }
check 2 "unrecognised option '--log-window'" run --swarm --log-window  # session 52's opt-in flag is gone
echo '{"format":"pinsim-trace","version":1,"config":{},"steps":[{"t":0,"op":"get","key":1,"expect":{"code":"OK"}}]}' >"$T/exp.json"
check 1 - replay "$T/exp.json"
cat >"$T/planted.json" <<'J'
{"format":"pinsim-trace","version":1,"config":{},"steps":[
 {"t":0,"actor":3,"op":"put_start","tenant":1,"key":5,"size":64,"memory_replicas":2,"nof_replicas":1,"group":2,"soft_pin":{"action":"enable","ttl_ms":9000}},
 {"t":0,"actor":2,"op":"exist","tenant":0,"key":1},
 {"t":700,"actor":0,"op":"advance","ms":700},
 {"t":700,"actor":3,"op":"put_end","tenant":1,"key":5,"replicas":"memory"},
 {"t":700,"actor":0,"op":"cleanup"},
 {"t":1700,"actor":0,"op":"advance","ms":1000},
 {"t":1700,"actor":1,"op":"get","tenant":1,"key":5,"expect":{"code":"OBJECT_NOT_FOUND"}}]}
J
check 1 - shrink "$T/planted.json" --out "$T/min.json"
grep -q "7 steps -> 3 steps" "$T/out" || { echo "FAIL: shrink did not reach 3 steps"; cat "$T/out"; fail=1; }
check 1 - replay "$T/min.json"
check 2 "does not fail" shrink "$T/s4.json"
# Expectations on state are checked on the target too, even without the model
# comparison: a faulty target breaks a scenario's expected deadline and gauge.
S=$(dirname "$0")/../scenarios/upsert/failed-size-change-keeps-pin.json
check 0 - replay "$S" --target embedded
check 1 - replay "$S" --target embedded --fault F16 --no-compare
grep -q "embedded's state differs from the trace's expectation: gauge expected 1, got 0" "$T/out" "$T/err" ||
  { echo "FAIL: the broken state expectation is not named"; cat "$T/out" "$T/err"; fail=1; }
echo '{"format":"pinsim-trace","version":1,"config":{},"steps":[{"t":0,"op":"cleanup","expect":{"code":"OK","state":{"gauge":0,"bogus":1}}}]}' >"$T/st.json"
check 2 "steps\[0\].expect.state.bogus: unknown field" replay "$T/st.json"
check 2 "unknown preset 'nope'" run --preset nope
check 0 - run --preset pins --seeds 1..20 --steps 50 --target embedded
# The gate: green on a healthy target, red with a reproduce line under a fault,
# bad budgets refused, shard summaries merged (red if any shard is red).
check 0 - gate --target embedded --budget 2s --steps 50 --out "$T/g0" --json "$T/g0.json" --junit "$T/g0.xml"
grep -q "pinsim gate: green" "$T/out" || { echo "FAIL: gate not green"; fail=1; }
check 1 - gate --target embedded --fault F16 --budget 5s --stop-on-new --out "$T/g1" --json "$T/g1.json"
grep -q "Reproduce: .pinsim replay .* --target embedded --fault F16" "$T/out" || { echo "FAIL: no reproduce line"; cat "$T/out"; fail=1; }
# The Differs line describes the trace the Reproduce line names (the shrunk one): its first
# difference is a row of that trace's replay table.
check 1 - gate --target embedded --fault F1 --budget 5s --stop-on-new --out "$T/gd"
diff_line=$(grep -m1 "Differs:" "$T/out"); shrunk=$(grep -m1 -o "replay [^ ]*min.json" "$T/out" | cut -d" " -f2)
row=$(echo "$diff_line" | sed -E 's/^ *Differs: (`[^`]*` )?([^:]*): [^ ]+ ([^,]+), [^ ]+ ([^;]+).*/\2 +\3 +\4/')
"$P" replay "$shrunk" --target embedded --fault F1 >"$T/rd" 2>&1
grep -Eq "$row" "$T/rd" || { echo "FAIL: the gate's Differs ($diff_line) is not the shrunk trace's"; cat "$T/rd"; fail=1; }
check 2 "expected seconds like 120s" gate --target embedded --budget -1
check 2 "expected seconds like 120s" gate --target embedded --budget nan
check 1 - gate --merge "$T/g0.json" "$T/g1.json"
check 0 - gate --merge "$T/g0.json" "$T/g0.json"
# Help, version, list; strict numbers; runs that check nothing; hostile input.
check 0 - run --help
grep -q "Examples:" "$T/out" || { echo "FAIL: run --help has no examples"; fail=1; }
check 0 - --version
check 0 - list faults
grep -q "^F16 " "$T/out" || { echo "FAIL: list faults lacks F16"; fail=1; }
check 2 "expected one of faults" list nothing
check 2 "expected a non-negative whole number, got '-1'" run --steps -1
check 2 "expected a non-negative whole number, got '-1'" run --seed -1
check 2 "0 steps would check nothing" run --steps 0
check 2 "expected a non-negative whole number, got '-1'" explore --depth -1
check 2 "is out of range" explore --memory-mb 17592186044416
check 2 "got 'nan'" explore --seconds nan
check 2 "needs --target" explore --fault F1
check 2 "--no-compare: needs --target" explore --no-compare
check 2 "--property: unknown property 'P99'" explore --property P99
check 2 "0 workers would run nothing" explore --jobs 0
check 2 "only a target that cannot be copied" explore --depth 1 --jobs 2
# explore honours --property and --no-compare: F4 breaks P6, not P1, and differs from the model
check 0 - explore --target embedded --fault F4 --no-compare --property P1 --depth 2 --keys 1 --actors 1 --out "$T/ex0.json"
check 1 - explore --target embedded --fault F4 --no-compare --property P6 --depth 2 --keys 1 --actors 1 --out "$T/ex6.json"
check 2 "the model target takes no 'fault' option" run --target model --fault F1 --swarm
check 2 "unknown fault 'F99'" mutants --fault F99
check 3 - run --seed 1 --shard 0/2
check 3 - explore --depth 9 --seconds 1
check 2 "cannot write file" run --seed 1 --out "$T/no/such/dir/x.json"
echo '{"format":"pinsim-trace","version":1,"config":{},"steps":[{"t":0,"op":"get","key":1}],"steps":[]}' >"$T/dup.json"
check 2 'the key "steps" appears twice' replay "$T/dup.json"
printf '{"format":"pinsim-trace","version":1,"config":{},"steps":[]}\0x' >"$T/nul.json"
check 2 "a NUL byte at byte" replay "$T/nul.json"
check 2 "larger than 1 MiB" replay /dev/zero --max-trace-mb 1
printf '{"format":"pinsim-trace","version":1,"config":{},"steps":[],"\\u001b[31m":1}' >"$T/esc.json"
check 2 '\\x1b\[31m: unknown field' replay "$T/esc.json"
# pinsim show: one self-contained HTML file with an SVG lane per object, the
# failing step marked, and the model's and the target's values side by side.
check 0 - show "$S" --target embedded --fault F16 --no-compare -o "$T/show.html"
for want in '<svg xmlns="http://www.w3.org/2000/svg"' '</svg>' 'data-lane="t0/k1"' 'class="gauge"' \
            'data-failing="true"' 'Failed at step 2' '<th>model</th><th>embedded</th>'; do
  grep -qF "$want" "$T/show.html" || { echo "FAIL: show.html lacks $want"; fail=1; }
done
grep -qE '(src|href)="https?:' "$T/show.html" && { echo "FAIL: show.html loads an external asset"; fail=1; }
check 0 - show "$S" -o "$T/pass.html"
# A trace with concurrent rounds is drawn as the interleaving of its last round.
check 0 - show "$(dirname "$0")/../docs/examples/interleaving-f18.json" -o "$T/c.html"
grep -qF 'fails, ' "$T/c.html" || { echo "FAIL: show did not draw the failing round of interleaving-f18"; fail=1; }
grep -qF 'Every step matched.' "$T/pass.html" || { echo "FAIL: a passing trace is not shown as passing"; fail=1; }
# Every failing seed gets its own trace; a coverage requirement that is not met
# is not a pass.
check 1 - run --target embedded --fault F2 --seeds 1..3000 --swarm --out-dir "$T/fails" --max-failures 2 --out "$T/f.json"
[ "$(ls "$T/fails" | wc -l)" = 2 ] || { echo "FAIL: --out-dir did not get 2 traces"; ls "$T/fails"; fail=1; }
check 3 - run --seeds 1..20 --steps 20 --require-rules all
check 2 "give one of them" run --max-failures 2 --stop-on-failure
# Traces record the flags that shaped the run (target, faults, properties,
# compare mode): the README's example replays, shrinks and shows without
# repeating them; agreeing flags are fine, contradicting ones refused.
check 1 - run --target embedded --fault F2 --no-compare --property P3 --out "$T/p3.json"
grep -q '"run": {"compare":false,"faults":\["F2"\],"properties":\["P3"\],"target":"embedded"}' "$T/p3.json" ||
  { echo "FAIL: the trace does not record its run"; grep '"run"' "$T/p3.json"; fail=1; }
grep -q "reproduce: pinsim replay $T/p3.json\$" "$T/out" || { echo "FAIL: no flag-free reproduce line"; cat "$T/out"; fail=1; }
check 1 - replay "$T/p3.json"
grep -q "P3 (.*) on the target" "$T/out" || { echo "FAIL: replay does not reproduce P3"; cat "$T/out"; fail=1; }
check 1 - shrink "$T/p3.json" --out "$T/p3-min.json"
check 1 - replay "$T/p3-min.json"
grep -q '"target":"embedded"' "$T/p3-min.json" || { echo "FAIL: the shrunk trace lost its run"; fail=1; }
check 0 - show "$T/p3.json" -o "$T/p3.html"
grep -qF 'data-failing="true"' "$T/p3.html" || { echo "FAIL: show did not reproduce the failure"; fail=1; }
check 1 - replay "$T/p3.json" --target embedded --fault F2 --property P3 --no-compare --record "$T/p3-again.json"
cmp -s "$T/p3.json" "$T/p3-again.json" || { echo "FAIL: a replay does not re-record its trace exactly"; fail=1; }
check 2 "contradicts the trace's recorded target embedded" replay "$T/p3.json" --target model
check 2 "contradicts the trace's recorded faults F2" shrink "$T/p3.json" --target embedded --fault F3
check 2 "contradicts the trace's recorded properties P3" replay "$T/p3.json" --property P1
check 2 "contradicts the trace's recorded profile rfc" replay "$T/p3.json" --profile mooncake-main
check 2 "contradicts the trace's recorded target embedded" show "$T/p3.json" --target model -o "$T/x.html"
check 0 - replay "$T/p3.json" --ignore-recorded
sed 's/"properties":\["P3"\]/"properties":["P99"]/' "$T/p3.json" >"$T/p99.json"
check 2 'p99.json: $.run.properties: unknown property' replay "$T/p99.json"
# A field-level diff names the object, the field and each side's value.
check 1 - run --target embedded --fault F16 --seeds 1..300 --swarm --out "$T/f4.json"
grep -qE '^ +object +field +model +embedded$' "$T/out" || { echo "FAIL: no labelled field diff"; cat "$T/out"; fail=1; }
grep -qE '^ +t[0-9]+/k[0-9]+ +present +yes +no$' "$T/out" || { echo "FAIL: the diff lacks an object's present"; cat "$T/out"; fail=1; }
grep -q '^  embedded view: {' "$T/out" || { echo "FAIL: the one-line View is gone"; fail=1; }
# Machine-readable summaries: --format json on stdout, --junit FILE; the
# gate's JSON comes from the same writer.
summary() {  # summary <file> <python assertion over j (the JSON) and x (the JUnit root, if any)>
  /usr/bin/python3 - "$@" <<'PY' || { echo "FAIL: summary check: $2"; cat "$1"; fail=1; }
import json, sys, xml.etree.ElementTree as ET
j = json.load(open(sys.argv[1]))
x = ET.parse(sys.argv[3]).getroot() if len(sys.argv) > 3 else None
assert eval(sys.argv[2]), sys.argv[2]
PY
}
check 0 - run --seeds 1..5 --steps 20 --format json --junit "$T/run.xml"
cp "$T/out" "$T/run.json"
summary "$T/run.json" 'j["format"] == "pinsim-run" and j["verdict"] == "green" and j["exit_code"] == 0 and j["runs"][0]["seeds_run"] == 5 and j["failures"] == [] and x.get("failures") == "0"' "$T/run.xml"
check 1 - run --target embedded --fault F16 --seeds 1..50 --swarm --format json --junit "$T/red.xml" --out "$T/red.json"
cp "$T/out" "$T/red-summary.json"
summary "$T/red-summary.json" 'j["verdict"] == "red" and j["exit_code"] == 1 and j["failures"][0]["trace"].endswith("red.json") and int(x.get("failures")) >= 1' "$T/red.xml"
check 3 - run --seed 1 --shard 0/2 --format json
cp "$T/out" "$T/none.json"; summary "$T/none.json" 'j["verdict"] == "checked nothing" and j["exit_code"] == 3'
check 1 - explore --target embedded --fault F4 --depth 2 --keys 1 --actors 1 --out "$T/ex2.json" --format json --junit "$T/ex.xml"
cp "$T/out" "$T/ex-summary.json"
summary "$T/ex-summary.json" 'j["format"] == "pinsim-explore" and j["verdict"] == "red" and j["failures"][0]["trace"].endswith("ex2.json") and x.find("testcase/failure") is not None' "$T/ex.xml"
check 3 - explore --depth 9 --seconds 1 --format json
cp "$T/out" "$T/ex3.json"; summary "$T/ex3.json" 'j["stopped_by"] == "the time limit" and j["verdict"] == "checked nothing"'
check 0 - mutants --fault F16 --seeds 50 --format json --junit "$T/mut.xml"
cp "$T/out" "$T/mut.json"
summary "$T/mut.json" 'j["format"] == "pinsim-mutants" and j["killed"] == 1 and j["mutants"][0]["fault"] == "F16" and x.find("testcase").get("name") == "F16"' "$T/mut.xml"
summary "$T/g0.json" 'j["format"] == "pinsim-gate" and j["verdict"] == "green" and len(j["scenarios"]) > 0'
# Differential: the base's own failures on the same seeds are pre-existing (green), and each
# failure carries the fingerprint a later head is compared by.
check 1 - gate --target embedded --fault F16 --budget 2s --steps 50 --out "$T/gf" --json "$T/gf.json"
check 0 - gate --target embedded --fault F16 --steps 50 --base "$T/gf.json" --out "$T/gb" --json "$T/gb.json"
summary "$T/gb.json" 'j["verdict"] == "green" and j["failures"] and all(f["verdict"] == "pre-existing" and len(f["fingerprint"]) == 32 for f in j["failures"])'
# With worker processes the differential run takes exactly the base's seeds, in order, and fails them alike.
check 0 - gate --target embedded --fault F16 --steps 50 --base "$T/gf.json" --jobs 2 --out "$T/gj" --json "$T/gj.json"
python3 - "$T/gf.json" "$T/gj.json" <<'PY' || fail=1
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
same_seeds = [r["seeds"] for r in a["runs"]] == [r["seeds"] for r in b["runs"]]
same_failures = sorted((f["source"], f["fingerprint"]) for f in a["failures"]) == sorted((f["source"], f["fingerprint"]) for f in b["failures"])
if not (same_seeds and same_failures): print("FAIL: gate --jobs 2 --base ran other seeds or failed them otherwise"); sys.exit(1)
PY
check 2 "0 workers would run nothing" gate --target embedded --jobs 0
check 2 "expected text or json" run --format yaml
check 2 "cannot write file" explore --junit "$T/no/such/dir/x.xml"
# Every command has --help (exit 0) whose example files exist; --stop-on-failure
# stops at one failing seed; explore's memory cap is not a pass; explore's
# universe is bounded; a shrunk trace has its own description; progress
# lines (done/total, ETA) reach a log that is not a terminal.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
for cmd in "" run replay shrink explore mutants gate show list; do
  check 0 - $cmd --help
  grep -q "^Exit codes:" "$T/out" || { echo "FAIL: $cmd --help names no exit codes"; fail=1; }
  for f in $(grep -oE "scenarios/[A-Za-z0-9_/.-]+\.json" "$T/out"); do
    [ -f "$ROOT/$f" ] || { echo "FAIL: $cmd --help names $f, which does not exist"; fail=1; }
  done
done
check 1 - run --target embedded --fault F2 --seeds 1..3000 --swarm --stop-on-failure --out-dir "$T/stop" --out "$T/s1.json"
[ "$(ls "$T/stop" | wc -l)" = 1 ] || { echo "FAIL: --stop-on-failure went on"; ls "$T/stop"; fail=1; }
grep -q " 1 failures," "$T/out" || { echo "FAIL: --stop-on-failure counted more failures"; fail=1; }
check 3 - explore --depth 6 --memory-mb 1
grep -q "stopped by the memory cap" "$T/out" || { echo "FAIL: the memory cap is not named"; cat "$T/out"; fail=1; }
check 2 "--keys: 4000000000 is out of range" explore --keys 4000000000 --seconds 5
/usr/bin/python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); sys.exit(not (t["description"].startswith("minimal trace") and "seed" not in t and "rule" not in t))' "$T/p3-min.json" ||
  { echo "FAIL: the shrunk trace keeps the original's description, seed or rule"; fail=1; }
check 0 - run --seeds 1..3 --steps 10 --progress-every 0
grep -qE "^2/3 seeds, [0-9]+ steps/s, 0 failures, ETA [0-9]+ s$" "$T/err" || { echo "FAIL: no progress line"; cat "$T/err"; fail=1; }
# The concurrent lane (--actors): bad flags exit 2 with one line; the same
# seed writes the same trace, schedules included; replay (and --record)
# reproduce it; a found fault replays and shrinks, and the committed example
# fails as recorded and passes on the correct master.
check 2 "--actors: at least 1 client actor" run --target embedded --actors 0
check 2 "--background: unknown actor 'bogus'" run --target embedded --actors 2 --background bogus
check 2 "does not run in this lane" run --target model --actors 2
check 2 "needs --actors" run --target embedded --background cleanup
check 2 "--jobs: the concurrent lane" run --target embedded --actors 2 --jobs 2
LANE="--target embedded --actors 2 --background evict,cleanup"
check 0 - run $LANE --seeds 1..20
grep -qE "^concurrent: [0-9]+ schedules .*, [0-9]+ decisions, [0-9]+ preemptions, at most [0-9]+ lock-graph edges" "$T/out" ||
  { echo "FAIL: no concurrent figures"; cat "$T/out"; fail=1; }
check 0 - run $LANE --seed 5 --trace "$T/c1.json"
check 0 - run $LANE --seed 5 --trace "$T/c2.json"
cmp -s "$T/c1.json" "$T/c2.json" || { echo "FAIL: the same seed wrote two concurrent traces"; fail=1; }
check 0 - replay "$T/c1.json" --record "$T/c3.json"
cmp -s "$T/c1.json" "$T/c3.json" || { echo "FAIL: replay --record of a concurrent trace differs"; fail=1; }
# The unmount sweep after the round is the Mooncake lane's; a value neither
# lane knows is a malformed trace.
for v in after_round later; do
  /usr/bin/python3 - "$T/c1.json" "$v" "$T/c-$v.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["concurrent"]["settings"]["unmount_sweep"] = sys.argv[2]
json.dump(t, open(sys.argv[3], "w"))
PY
done
check 2 "unmount_sweep: after_round is the Mooncake lane's" replay "$T/c-after_round.json"
check 2 "unmount_sweep: expected in_call or after_round" replay "$T/c-later.json"
check 1 - run --target embedded --fault F19 --actors 2 --background cleanup --seeds 1..400 --swarm --ops 40 \
  --stop-on-failure --out "$T/f19.json"
check 1 - replay "$T/f19.json"
check 1 - shrink "$T/f19.json" --out "$T/f19-min.json"
check 1 - replay "$T/f19-min.json"
check 1 - replay "$ROOT/docs/examples/interleaving-f18.json"
check 0 - replay "$ROOT/docs/examples/interleaving-f18.json" --ignore-recorded --target embedded
exit $fail
