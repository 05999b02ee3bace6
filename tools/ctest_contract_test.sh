#!/usr/bin/env bash
# What ctest promises CI: test names that are the same on every build (JUnit
# history keys on them; parametrised tests are named by fault and property,
# never by an object's bytes), and a user's RC_PARAMS wins over the pinned
# RapidCheck defaults (RapidCheck's reproduce= string must reach it).
set -u
CTEST=$1; BUILD=$2; SIM_TESTS=$3
fail=0
names=$("$CTEST" --test-dir "$BUILD" -N)
if grep -E "byte object|<[0-9A-F]{2}-[0-9A-F]{2}" <<<"$names"; then echo "FAIL: a test name holds raw bytes"; fail=1; fi
grep -q "FaultKill.KilledWithinSeedBudget/F16" <<<"$names" || { echo "FAIL: no test named by its fault"; fail=1; }
out=$(PINSIM_RC_DEFAULTS="seed=7 max_success=2" "$SIM_TESTS" --gtest_filter='TraceFuzz*' 2>&1)
grep -q "Using configuration: max_success=2 seed=7" <<<"$out" || { echo "FAIL: the pinned defaults are not used"; echo "$out" | head; fail=1; }
out=$(PINSIM_RC_DEFAULTS="seed=7 max_success=2" RC_PARAMS="seed=42 max_success=2" "$SIM_TESTS" --gtest_filter='TraceFuzz*' 2>&1)
grep -q "Using configuration: max_success=2 seed=42" <<<"$out" || { echo "FAIL: the user's RC_PARAMS lost"; echo "$out" | head; fail=1; }
exit $fail
