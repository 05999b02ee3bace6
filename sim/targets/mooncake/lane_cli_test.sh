#!/bin/bash
# The concurrency lane's command line on bad input: one line and exit 2,
# never a run; and, on the finding's own tree, --replay --record writes a
# recorded trace as it was.
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
check2 "give --replay FILE" --record "$work/x.json"
check2 "give --replay FILE" --html "$work/x.html"
check2 "takes no other flag" --replay "$finding" --seeds 1..2
check2 "expected A..B" --seeds 5..1
check2 "--record $work/no/such/dir/x.json" --replay "$finding" --record "$work/no/such/dir/x.json"
[ "$tree" = main ] || exit $fail
"$lane" --replay "$finding" --record "$work/again.json" > "$work/out" 2>&1
[ $? = 1 ] || { echo "FAIL: the finding did not fail on replay"; cat "$work/out"; fail=1; }
cmp -s "$finding" "$work/again.json" || { echo "FAIL: --record of a recorded trace differs"; fail=1; }
exit $fail
