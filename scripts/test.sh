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
# One plain closing line, whatever runner printed last.
summary="$(grep -E "^\s*Executed [0-9]+ tests?, with [0-9]+ failures?" "$log" | tail -n 1 || true)"
if [ -n "$summary" ]; then
  total="$(echo "$summary" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/')"
  failed="$(echo "$summary" | sed -E 's/.*with ([0-9]+) failures?.*/\1/')"
  skipped="$(grep -cE "Test Case .* skipped" "$log" || true)"
  echo "tests: $((total - failed - skipped)) passed, $failed failed, $skipped skipped"
fi
exit "$status"
