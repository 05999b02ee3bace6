#!/usr/bin/env bash
# Installs this build into a temporary prefix, builds the consumer project
# against it with find_package(pinsim), and replays a scenario with it.
set -eu
# The build's own compiler and linker flags go to the consumer too (a
# sanitizer build's libraries need the sanitizer at link time).
BUILD=$1; SRC=$2; CXXFLAGS_=${3:-}; LDFLAGS_=${4:-}; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cmake --install "$BUILD" --prefix "$T/prefix" >/dev/null
cmake -S "$SRC/docs/examples/consumer" -B "$T/build" -G Ninja -DCMAKE_PREFIX_PATH="$T/prefix" \
  -DCMAKE_CXX_FLAGS="$CXXFLAGS_" -DCMAKE_EXE_LINKER_FLAGS="$LDFLAGS_" >/dev/null
cmake --build "$T/build" >/dev/null
"$T/build/consumer" "$SRC/scenarios/rfc/rule7-preserve-drops-expired.json"
