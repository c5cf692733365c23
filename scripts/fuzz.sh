#!/usr/bin/env bash
# Fuzzes one parser (or all) with libFuzzer and the address sanitizer:
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options...]
#   TARGET: protobuf | request-json | catalog-line | http1 | page-token | http2 | all
#
# Builds the FuzzTargets module and what it depends on with -sanitize=fuzzer,address (into
# .build/fuzz, apart from the normal build), links scripts/fuzz/FuzzMain.swift against it, and runs
# the target for SECONDS (each target for SECONDS with "all"). Seeds come from Tests/Fuzz/TARGET
# (made by scripts/fuzz/seeds.py, plus every crasher ever found); inputs libFuzzer finds go to
# .build/fuzz/corpus/TARGET, crashers to .build/fuzz/artifacts/TARGET/. Copy a crasher into
# Tests/Fuzz/TARGET/ once fixed: FuzzTargetTests replays that directory on every test run.
# Prints "fuzz: TARGET: N executions, 0 crashes" per target; exits non-zero on a finding.
set -euo pipefail
cd "$(dirname "$0")/.."

targets="protobuf request-json catalog-line http1 page-token http2"
if [ $# -lt 2 ]; then
  echo "usage: $0 TARGET SECONDS [libFuzzer options...]   (TARGET: $targets | all)" >&2
  exit 2
fi
target="$1"
seconds="$2"
shift 2
if [ "$target" = all ]; then selected="$targets"; else selected="$target"; fi
for t in $selected; do
  case " $targets " in *" $t "*) ;; *) echo "fuzz: unknown target $t (one of: $targets)" >&2; exit 2 ;; esac
done

build=.build/fuzz
swift build --build-path "$build" -c release -Xswiftc -sanitize=fuzzer,address --target FuzzTargets >&2
products="$build/release"
# The system libraries of the modules FuzzTargets depends on (see Package.swift).
libraries="-llmdb -lnghttp2 -lutf8proc -lhttp_parser -lyajl"
# System-library module maps live in Sources/C*, those of C targets in the build directory.
includes=""
for module in Sources/C* "$products"/*.build; do
  if [ -f "$module/module.modulemap" ]; then includes="$includes -I $module"; fi
done
objects="$(ls "$products"/*.build/*.o)"
binary="$build/typeahead-fuzz"
# shellcheck disable=SC2086
swiftc -sanitize=fuzzer,address -parse-as-library -O -I "$products/Modules" $includes \
  scripts/fuzz/FuzzMain.swift $objects $libraries -o "$binary" 2> "$build/link.log" \
  || { cat "$build/link.log" >&2; exit 1; }

status=0
for t in $selected; do
  mkdir -p "$build/corpus/$t" "$build/artifacts/$t"
  log="$build/$t.log"
  set +e
  TYPEAHEAD_FUZZ_TARGET="$t" ASAN_OPTIONS="detect_leaks=1" "$binary" "$build/corpus/$t" "Tests/Fuzz/$t" \
    -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 -max_len=16384 -timeout=10 \
    -artifact_prefix="$build/artifacts/$t/" "$@" > "$log" 2>&1
  code=$?
  set -e
  runs="$(grep -oE "stat::number_of_executed_units: *[0-9]+" "$log" | grep -oE "[0-9]+$" || echo 0)"
  # A slow unit (libFuzzer's report at 10 s) is run again alone: one that runs past a second
  # again is a finding; one that runs fast was the machine stalling the process (a shared VM
  # paused for 13 s once, and an HTTP/2 input that takes 12 ms was reported at 13 s). A real hang
  # also leaves a timeout-* crasher (-timeout=10), which always counts.
  stalls=0
  for unit in "$build/artifacts/$t"/slow-unit-*; do
    [ -e "$unit" ] || continue
    if TYPEAHEAD_FUZZ_TARGET="$t" ASAN_OPTIONS="detect_leaks=1" "$binary" -runs=1 -timeout=1 "$unit" > "$unit.rerun.log" 2>&1; then
      mv "$unit" "$build/$t.stalled-$(basename "$unit")"
      rm -f "$unit.rerun.log"
      stalls=$((stalls + 1))
    fi
  done
  crashes="$(ls "$build/artifacts/$t" | wc -l)"
  echo "fuzz: $t: ${runs:-0} executions in ${seconds} s, $crashes findings (log $log)$([ "$stalls" -gt 0 ] && echo ", $stalls slow units that ran fast alone: stalls, kept in $build/$t.stalled-*")"
  if [ "$code" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    tail -n 40 "$log" >&2
    status=1
  fi
done
exit "$status"
