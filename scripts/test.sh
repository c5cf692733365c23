#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build --build-tests
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
swift test --skip-build 2>&1 | tee "$log" || status=$?
# One plain closing line, whatever runner printed last: XCTest's "Executed N tests, with
# S tests skipped and F failures" becomes "tests: P passed, F failed, S skipped".
summary="$(grep -E "Executed [0-9]+ tests?, with" "$log" | tail -n 1 || true)"
if [ -n "$summary" ]; then
  total="$(echo "$summary" | grep -oE "Executed [0-9]+" | grep -oE "[0-9]+")"
  failed="$(echo "$summary" | grep -oE "[0-9]+ failures?" | grep -oE "[0-9]+" | head -n 1)"
  skipped="$(echo "$summary" | grep -oE "[0-9]+ tests? skipped" | grep -oE "[0-9]+" | head -n 1)"
  skipped="${skipped:-0}"
  echo "tests: $((total - failed - skipped)) passed, $failed failed, $skipped skipped"
fi
exit "$status"
