#!/bin/bash
# The concurrency lane's command line on bad input: one line and exit 2,
# never a run; and, on the finding's own tree, --replay --record writes a
# recorded trace as it was, and --seeds N --record a run that replays as it ran.
# Usage: lane_cli_test.sh MOONCAKE_CONCURRENCY FINDING_TRACE TREE_ID
set -u
lane=$1 finding=$2 tree=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
check2() {  # check2 <stderr pattern> <args...>
  local pat=$1; shift
  "$lane" "$@" > "$work/out" 2> "$work/err"; local rc=$?
  if [ "$rc" != 2 ] || [ "$(wc -l < "$work/err")" != 1 ] || ! grep -q -- "$pat" "$work/err"; then
    echo "FAIL: mooncake_concurrency $* -> rc $rc, want 2 and one line with '$pat'"; cat "$work/err"; fail=1
  fi
}
check2 "give --replay FILE or --seeds N" --record "$work/x.json" --seeds 1..2
check2 "give --replay FILE" --html "$work/x.html"
check2 "takes no other flag" --replay "$finding" --seeds 1..2
check2 "expected A..B" --seeds 5..1
check2 "--record $work/no/such/dir/x.json" --replay "$finding" --record "$work/no/such/dir/x.json"
[ "$tree" = main ] || exit $fail
"$lane" --replay "$finding" --record "$work/again.json" > "$work/out" 2>&1
[ $? = 1 ] || { echo "FAIL: the finding did not fail on replay"; cat "$work/out"; fail=1; }
cmp -s "$finding" "$work/again.json" || { echo "FAIL: --record of a recorded trace differs"; fail=1; }
# One seed's run recorded replays under its schedule, with the seed's verdict (seed 2 passes on main).
"$lane" --seeds 2 --preempt 20 --background cleanup --record "$work/seed2.json" > "$work/out" 2>&1
[ $? = 0 ] || { echo "FAIL: seed 2 did not pass"; cat "$work/out"; fail=1; }
"$lane" --replay "$work/seed2.json" > "$work/out" 2>&1
[ $? = 0 ] && grep -q "the recorded schedule was followed" "$work/out" ||
  { echo "FAIL: seed 2's recorded run did not replay as it ran"; cat "$work/out"; fail=1; }
exit $fail
