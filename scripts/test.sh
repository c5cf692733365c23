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
# Every fuzz target briefly (libFuzzer with the address sanitizer, from the corpus in Tests/Fuzz):
# a smoke run that keeps the targets building and finds shallow regressions. Long runs are by
# hand: scripts/fuzz.sh TARGET SECONDS.
fuzz_log="$(mktemp)"
trap 'rm -f "$log" "$fuzz_log"' EXIT
if ! bash scripts/fuzz.sh all "${TYPEAHEAD_FUZZ_SECONDS:-10}" > "$fuzz_log" 2>&1; then
  status=1
  tail -n 80 "$fuzz_log"
  echo "fuzz: a target failed (logs in .build/fuzz/)"
fi
grep -E "^fuzz: " "$fuzz_log" || true
# Two minutes of the soak (scripts/soak.sh: a local cluster under load at 70% of its maximum,
# with upserts, a replica killed and a reindex meanwhile) on the debug build the tests made. By
# hand it runs 30 minutes on a release build. Here only its consistency checks gate (what the
# cluster holds, operations, restarts, descriptors); the load figures of a 2-minute debug run on a
# shared machine are printed as findings, not asserted.
soak_dir="$(mktemp -d)"
trap 'rm -f "$log" "$fuzz_log"; rm -rf "$soak_dir"' EXIT
if ! TYPEAHEAD_SOAK_BUILD=debug bash scripts/soak.sh "${TYPEAHEAD_SOAK_MINUTES:-2}" --gate consistency --out "$soak_dir" > "$soak_dir/soak.out" 2>&1; then
  status=1
  tail -n 60 "$soak_dir/soak.out"
  echo "soak: a check failed"
fi
grep -E "^soak:|^  (load|requests|outside|operations|verdict|findings|  *-) " "$soak_dir/soak.out" || true
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
