#!/bin/bash
# Every speed figure `./dev bench` prints, measured and printed, never
# asserted: the model alone (bench_model), embedded lockstep steps/s, the
# explorer's states/s (model alone: the depth 60 s reach; embedded lockstep
# to depth 2) and whether it finds each seeded fault within 60 s,
# and with a pinsim that has the Mooncake target, the Mooncake lane: the cost
# of a run beyond its ops (masters reused, and all freshly constructed), the
# explorer against MasterService (depth 2, and the ladder for 90 s with known
# findings counted), the
# 1,000-seed swarm with --jobs 1 and 2 (steps/s and wall time) with
# Mooncake's own soft-pin tests right after them (the goal's yardstick), and the
# harness's cost per op kind (--overhead). The machine's load comes first:
# figures taken under load are only comparable side by side.
# Usage: bench_lanes.sh BUILD [MOONCAKE_PINSIM MOONCAKE_BUILD]
set -u
build=$1
mc=${2:-}
mcbuild=${3:-}  # the Mooncake build tree, for its own soft-pin tests
here=$(cd "$(dirname "$0")/.." && pwd)
summary() { grep -E "^target " | sed -E 's/^target [a-z]+, //'; }

echo "== load: $(uptime)"
echo "== model alone (bench_model)"
"$build/tools/bench_model" --benchmark_color=false 2>&1 | grep -E "^BM_|items_per_second" | head -20
# Instructions a step (callgrind, the fixed eviction mix): wall figures on a
# shared machine move by half between two runs of one binary, this does not.
if command -v valgrind >/dev/null; then
  valgrind --tool=callgrind --callgrind-out-file=/tmp/pinsim-bench-model.callgrind \
    --toggle-collect='pinsim::Model::apply*' "$build/tools/bench_model" --benchmark_filter='BM_ModelMixedFixed/1' \
    2>&1 | awk '/^BM_ModelMixedFixed/ { split($1, name, "iterations:"); steps = name[2] }  # its fixed steps
                /I +refs:/ { gsub(",", "", $NF); refs = $NF }
                END { printf "model instructions a step (callgrind): %.0f\n", refs / steps }'
else
  echo "model instructions a step: not measured (valgrind is not installed)"
fi
[ -x "$build/tools/bench_expiry" ] && "$build/tools/bench_expiry" --benchmark_color=false 2>&1 | grep -E "^BM_" | head -12
echo "== embedded lockstep, 5,000 swarm seeds x 200 steps"
for j in 1 2; do
  echo "--jobs $j: $("$build/tools/pinsim" run --target embedded --seeds 1..5000 --swarm --jobs $j 2>/dev/null | summary)"
done
echo "== explorer, model alone, default universe (2 keys, 2 actors): depth 8 within 60 s?"
"$build/tools/pinsim" explore --keys 2 --depth 8 --seconds 60 2>&1 | tail -1  # a universe flag: no ladder
echo "== explorer, embedded lockstep (transitions on copies of the master), default universe, depth 2"
"$build/tools/pinsim" explore --target embedded --depth 2 2>&1 | tail -1
echo "== explorer against each seeded fault of the embedded master, 60 s each: the ladder of universes (docs/explorer.md)"
echo "   (F18-F20 show only in an interleaving: the concurrent lane's, not the sequential explorer's)"
for f in $("$build/tools/pinsim" list faults | awk '{print $1}'); do
  out=$("$build/tools/pinsim" explore --target embedded --fault "$f" --seconds 60 --out /tmp/pinsim-bench-explore.json 2>&1)
  case $? in
    1) echo "$f found: $(echo "$out" | grep -m1 '^explored')" ;;
    *) echo "$f not found: $(echo "$out" | grep -m1 '^explored')" ;;
  esac
done
[ -z "$mc" ] && exit 0

cd "$here"
echo "== Mooncake lane ($mc)"
# Swarm seeds draw many constructor configurations, and a master is reused
# only for its own: the first line constructs for about 4 seeds in 10.
for how in reused fresh one-config; do
  start=$(date +%s.%N)
  PINSIM_MOONCAKE_FRESH_MASTERS=$([ $how = fresh ] && echo 1 || echo 0) "$mc" run --target mooncake --seeds 1..200 \
    --steps 1 $([ $how = one-config ] || echo --swarm) --out /tmp/pinsim-bench-failure.json >/dev/null 2>&1
  end=$(date +%s.%N)
  case $how in
    reused) what="swarm seeds, masters reused" ;; fresh) what="swarm seeds, every master constructed" ;;
    *) what="one configuration, its master reused" ;;
  esac
  echo "a run beyond its ops ($what): $(awk "BEGIN { printf \"%.2f\", ($end - $start) * 1000 / 200 }") ms" \
       "(200 one-step seeds)"
done
for j in 1 2; do
  echo "1,000 swarm seeds x 200 steps, --jobs $j: $("$mc" run --target mooncake --seeds 1..1000 --steps 200 --swarm \
       --known scenarios/findings --jobs $j --out /tmp/pinsim-bench-failure.json 2>/dev/null | summary)"
done
# The goal's yardstick, right after the --jobs 2 run: Mooncake's own soft-pin tests (they sleep).
mctest="$mcbuild/mooncake-store/tests/master_service_test"
if [ -x "$mctest" ]; then
  start=$(date +%s.%N)
  "$mctest" --gtest_filter='*SoftPin*' >/dev/null 2>&1
  end=$(date +%s.%N)
  echo "Mooncake's own soft-pin tests (master_service_test --gtest_filter='*SoftPin*'):" \
       "$(awk "BEGIN { printf \"%.1f\", $end - $start }") s wall"
else
  echo "Mooncake's own soft-pin tests: not run ($mctest not built: cmake --build $mcbuild --target master_service_test)"
fi
echo "== explorer against MasterService (each transition a replay on a reused master), default universe, depth 2"
"$mc" explore --target mooncake --profile mooncake-main --depth 2 2>&1 | tail -1
echo "== the same, the replays in two worker processes (--jobs 2)"
"$mc" explore --target mooncake --profile mooncake-main --depth 2 --jobs 2 2>&1 | tail -1
echo "== explorer against MasterService, the ladder of universes for 90 s, known findings counted (--known)"
"$mc" explore --target mooncake --profile mooncake-main --seconds 90 --known scenarios/findings \
  --out /tmp/pinsim-bench-explore.json 2>&1 | grep -E '^(explored|known finding|rung)'
echo "== harness cost per op kind (100 swarm seeds x 100 steps, --overhead)"
"$mc" run --target mooncake --seeds 1..100 --steps 100 --swarm --known scenarios/findings --overhead \
  --out /tmp/pinsim-bench-failure.json 2>/dev/null | sed -n '/^overhead/,$p'
echo "== load: $(uptime)"
