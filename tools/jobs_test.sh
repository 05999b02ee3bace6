#!/bin/bash
# `pinsim run --jobs 2` gives what `--jobs 1` gives: the summary, the
# coverage report, the first failure and its trace, every failing seed's
# trace (--out-dir), the stop after --max-failures, and a --trace of one seed;
# and so does a run whose Mooncake masters are all freshly constructed
# (PINSIM_MOONCAKE_FRESH_MASTERS=1), and one whose BatchEvict starts real
# census threads (PINSIM_MOONCAKE_REAL_THREADS=1; both no effect on other targets).
# Usage: jobs_test.sh PINSIM SEEDS ONE-SEED RUN-ARGS... (e.g. 1..300 7 --target embedded --fault F2 --swarm)
set -u
pinsim=$1 seeds=$2 one=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

variant() {  # name, env assignment, --jobs
  mkdir -p "$work/$1/traces"
  (cd "$work/$1" && env $2 "$pinsim" run --jobs "$3" --seeds "$seeds" "${args[@]}" --out failure.json --out-dir traces \
     --max-failures 3 --coverage > summary.txt 2> stderr.txt; echo "exit $?" >> summary.txt)
  # The elapsed time and the rate are the only figures allowed to differ.
  sed -i -E 's/, [0-9.]+ s, [0-9]+ steps\/s$//' "$work/$1/summary.txt"
  (cd "$work/$1" && env $2 "$pinsim" run --jobs "$3" "${args[@]}" --seed "$one" --trace one.json --out one-failure.json \
     > /dev/null 2>&1)
}

args=("$@")
# The seed of --trace: ONE-SEED, or the next one the target runs (a tree may
# refuse a seed's configuration: exit 3, checked nothing, and no trace).
for ((s = one; s < one + 100; ++s)); do
  (cd "$work" && "$pinsim" run "${args[@]}" --seed "$s" > /dev/null 2>&1)
  [ $? -ne 3 ] && break
done
one=$s
variant jobs1 X=1 1
variant jobs2 X=1 2
variant fresh PINSIM_MOONCAKE_FRESH_MASTERS=1 1
variant threads PINSIM_MOONCAKE_REAL_THREADS=1 1
grep -q "seeds" "$work/jobs1/summary.txt" || fail "no summary: $(cat "$work/jobs1/summary.txt" "$work/jobs1/stderr.txt")"
[ -s "$work/jobs1/one.json" ] || fail "--trace wrote nothing"
for v in jobs2 fresh threads; do
  diff -r "$work/jobs1" "$work/$v" -x stderr.txt > "$work/diff.txt" || fail "$v differs from jobs1: $(head -20 "$work/diff.txt")"
done
echo "jobs 1, jobs 2, fresh masters and real threads agree: $(head -1 "$work/jobs1/summary.txt"); $(ls "$work/jobs1/traces" | wc -l) failing traces"
