#!/usr/bin/env bash
# Installs this build into a temporary prefix, builds the consumer project
# against it with find_package(pinsim), and replays a scenario with it.
set -eu
BUILD=$1; SRC=$2; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cmake --install "$BUILD" --prefix "$T/prefix" >/dev/null
cmake -S "$SRC/docs/examples/consumer" -B "$T/build" -G Ninja -DCMAKE_PREFIX_PATH="$T/prefix" >/dev/null
cmake --build "$T/build" >/dev/null
"$T/build/consumer" "$SRC/scenarios/rfc/rule7-preserve-drops-expired.json"
