#!/usr/bin/env bash
# Every trace the tool writes validates against scenarios/trace.schema.json
# (checked with Debian's python3-jsonschema, Draft 2020-12).
set -eu
P=$1; SCHEMA=$2; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
for seed in 1 2 3 4 5 6 7 8 9 10; do
  "$P" run --seed "$seed" --steps 300 --swarm --trace "$T/s$seed.json" >/dev/null
done
"$P" run --seed 11 --steps 300 --profile mooncake-main --trace "$T/m11.json" >/dev/null
# A concurrent run's trace (rounds with scripts and schedules).
"$P" run --target embedded --seed 12 --actors 2 --background evict,cleanup --trace "$T/c12.json" >/dev/null
cp "$(dirname "$SCHEMA")"/../docs/examples/interleaving-*.json "$T"/
# A Mooncake run that went on past a known finding (went_on).
cp "$(dirname "$SCHEMA")"/../docs/examples/mooncake-went-on-past-*.json "$T"/
# Traces that pass on main and fail on an open Mooncake PR (docs/pr-gates.md).
cp "$(dirname "$SCHEMA")"/../docs/examples/pr-gates/*.json "$T"/
# The hand-written scenarios (state expectations included) validate too.
cp "$(dirname "$SCHEMA")"/upsert/failed-*.json "$(dirname "$SCHEMA")"/copy/*.json "$T"/
# The sequential findings (finding.needs among them).
for f in "$(dirname "$SCHEMA")"/findings/*.json; do cp "$f" "$T/finding-$(basename "$f")"; done
# The concurrency lane's findings: Mooncake traces with their schedules.
cp "$(dirname "$SCHEMA")"/findings/concurrency/*.json "$T"/
# The lane's corpus, which the gate's lane replays.
for f in "$(dirname "$SCHEMA")"/lane/*.json; do cp "$f" "$T/lane-$(basename "$f")"; done
/usr/bin/python3 - "$SCHEMA" "$T"/*.json <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
for path in sys.argv[2:]:
    errors = sorted(v.iter_errors(json.load(open(path))), key=lambda e: list(e.path))
    if errors:
        print(f"{path}: {'/'.join(map(str, errors[0].path))}: {errors[0].message}")
        sys.exit(1)
print(f"{len(sys.argv) - 2} traces valid")
PY
