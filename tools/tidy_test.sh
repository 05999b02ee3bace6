#!/usr/bin/env bash
# tidy_references: the project must stand alone. Its code, docs and scripts
# cite RFC 3028 and PR 2835 by section and rule, Mooncake by function, or a
# file inside this repository (docs/rules.md, docs/interpretations.md), never
# a document that is not in the repository or an issue number of a tracker a
# reader cannot see. This test fails, printing file:line, when a tracked file
# (scenarios/findings/*.json excepted: they are recorded traces) names one of
# the working notes the project was built from (the semantics, design and
# style notes, the Mooncake answers file), the shared seed directory, or an
# issue by number. The patterns are below; they are written so that this file
# does not match itself.
#
# Usage: tidy_test.sh <repository root>
set -u
repo="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
if ! files=$(git -C "$repo" ls-files); then
  echo "tidy_references: $repo is not a git work tree" >&2
  exit 2
fi
words='\bSEMANTICS\b|DESIGN\.md|STYLE\.md|mooncake-'"answers"'|\.\./shared'
issue='\b[Ii]ssue #?[0-9]+'
status=0
while IFS= read -r f; do
  case "$f" in
    scenarios/findings/*.json) continue ;;
  esac
  [ -f "$repo/$f" ] || continue  # deleted in the work tree, not yet committed
  if hits=$(grep -InE "($words)|($issue)" "$repo/$f"); then
    while IFS= read -r h; do echo "$f:$h"; done <<<"$hits"
    status=1
  fi
done <<<"$files"
if [ "$status" -ne 0 ]; then
  echo "tidy_references: the lines above cite something outside the repository;" \
       "cite the RFC 3028 section, PR 2835 rule, Mooncake function or a file in the repository" >&2
fi
exit "$status"
