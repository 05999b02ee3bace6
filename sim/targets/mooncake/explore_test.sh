#!/bin/bash
# `pinsim explore --target mooncake` explores MasterService itself, or says
# why it cannot: a configuration the tree refuses (the RFC profile on a tree
# checked against mooncake-main) is one line and exit 2, never a green over
# nothing; with the tree's profile, depth 1 runs every op the target supports
# and the summary counts them; --jobs 2 explores as one process does.
# A transition that fails as a known finding of the tree (FINDINGS) is
# counted and the exploration goes on, as a campaign's seed is.
# Usage: explore_test.sh PINSIM FINDINGS
set -u
pinsim=$1
findings=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work"

"$pinsim" explore --target mooncake --depth 1 > out.txt 2> err.txt
rc=$?
[ "$rc" = 2 ] || fail "the RFC profile on Mooncake: exit $rc, expected 2 ($(cat out.txt err.txt))"
[ "$(wc -l < err.txt)" = 1 ] && grep -q "profile" err.txt || fail "expected one line naming the profile: $(cat err.txt)"

profile=$(sed -nE 's/.*profile ([a-z0-9-]+).*/\1/p' err.txt)
"$pinsim" explore --target mooncake --profile "$profile" --depth 1 --known "$findings" --format json \
  > summary.json 2> err.txt
rc=$?
[ "$rc" = 0 ] || fail "depth 1 with --profile $profile: exit $rc ($(cat summary.json err.txt))"
python3 - summary.json <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))
if not (s["depth"] == 1 and s["transitions"] > 100 and s["states"] > 10 and s["verdict"] == "green"):
    sys.exit(f"FAIL: depth 1 explored too little: {s}")
print(f"explore against Mooncake, depth 1: {s['transitions']} transitions, {s['states']} states")
PY

# --jobs 2: the replays run in two worker processes (each keeps its own
# masters) and the explore reaches the same states in the same transitions.
small="--profile $profile --depth 2 --keys 1 --actors 1 --known $findings --format json"
"$pinsim" explore --target mooncake $small > one.json 2> err.txt || fail "depth 2, one process: $(cat err.txt)"
"$pinsim" explore --target mooncake $small --jobs 2 > two.json 2> err.txt || fail "depth 2, --jobs 2: $(cat err.txt)"
python3 - one.json two.json <<'PY' || exit 1
import json, sys
one, two = (json.load(open(f)) for f in sys.argv[1:3])
keys = ("depth", "states", "expanded", "transitions", "verdict", "known")
if any(one[k] != two[k] for k in keys):
    sys.exit(f"FAIL: --jobs 2 explored otherwise: {[(k, one[k], two[k]) for k in keys]}")
print(f"--jobs 2, depth 2 of one key: {two['transitions']} transitions, {two['states']} states, as one process")
PY
