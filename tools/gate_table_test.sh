#!/usr/bin/env bash
# `pinsim gate --table`: one table over the gate summaries of several trees,
# checked on canned summaries (no Mooncake build needed): the counts of each
# row, the fixed findings and new signatures listed under the table, the exit
# code (1 when a tree is red), and bad input (exit 2, one line).
set -u
P=$1; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
cat >"$T/main.json" <<'J'
{"format":"pinsim-gate","target":"mooncake","tree":"mooncake-main","verdict":"green","seconds":108.4,
 "runs":[{"preset":"swarm","seeds_run":90,"refused":0,"steps":18000,"seeds":[1,2]},
         {"preset":"pins","seeds_run":60,"refused":2,"steps":12000,"seeds":[1]}],
 "failures":[{"source":"preset swarm seed 3","signature":"view/put_end/x","verdict":"known","known":"main-a.json"},
             {"source":"preset pins seed 4","signature":"view/put_end/x","verdict":"known","known":"main-a.json"},
             {"source":"finding main-b.json","signature":"outcome/y","verdict":"known","known":"main-b.json"}],
 "scenarios":[],
 "findings":[{"file":"main-a.json","status":"still failing"},{"file":"main-b.json","status":"still failing"}]}
J
cat >"$T/pr.json" <<'J'
{"format":"pinsim-gate","target":"mooncake","tree":"mooncake-pr2835","verdict":"red","seconds":61,
 "runs":[{"preset":"retention","seeds_run":40,"refused":0,"steps":8000,"seeds":[1]}],
 "failures":[{"source":"preset retention seed 9","signature":"property/retain/P10","verdict":"new","known":""},
             {"source":"preset retention seed 12","signature":"property/retain/P10","verdict":"new","known":""},
             {"source":"preset retention seed 2","signature":"outcome/get/OK","verdict":"pre-existing","known":""}],
 "scenarios":[],
 "findings":[{"file":"pr2835-c.json","status":"fixed"},{"file":"pr2835-d.json","status":"not applicable"}]}
J
"$P" gate --table main="$T/main.json" pr2835="$T/pr.json" >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" = 1 ] || { echo "FAIL: --table with a red tree -> rc $rc, want 1"; cat "$T/err"; fail=1; }
cat >"$T/want" <<'W'
## pinsim gate over 2 trees

| tree | build | verdict | seeds | seconds | new or changed | known | pre-existing | fixed |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
| main | mooncake-main | green | 150 | 108.4 | 0 | 3 (2 findings) | 0 | 0 |
| pr2835 | mooncake-pr2835 | **red** | 40 | 61 | 2 (1 signature) | 0 | 1 | 1 |

New failures, known failures and pre-existing ones are counted per failure (a campaign seed or a replayed trace);
fixed is the number of the tree's findings whose trace no longer fails.

- pr2835: new `property/retain/P10` (2, first preset retention seed 9)
- pr2835: fixed `pr2835-c.json`
W
diff -u "$T/want" "$T/out" || { echo "FAIL: --table output differs"; fail=1; }
"$P" gate --table main="$T/main.json" >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" = 0 ] || { echo "FAIL: --table with one green tree -> rc $rc, want 0"; fail=1; }
bad() {  # bad <stderr pattern> <args...>
  local pat=$1; shift
  "$P" gate "$@" >"$T/out" 2>"$T/err"; local rc=$?
  [ "$rc" = 2 ] && grep -q -- "$pat" "$T/err" && [ "$(wc -l <"$T/err")" = 1 ] ||
    { echo "FAIL: pinsim gate $* -> rc $rc, want 2 and one line with '$pat'"; cat "$T/err"; fail=1; }
}
bad "expected NAME=FILE" --table "$T/main.json"
bad "missing.json: cannot open file" --table x="$T/missing.json"
echo '{"format":"pinsim-trace"}' >"$T/trace.json"
bad 'trace.json: $.format: expected "pinsim-gate"' --table x="$T/trace.json"
echo '{"format":"pinsim-gate","runs":[{"preset":1}]}' >"$T/odd.json"
bad "odd.json: not a gate summary" --table x="$T/odd.json"
bad "tree names must differ" --table a="$T/main.json" a="$T/pr.json"
exit $fail
