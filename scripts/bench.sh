#!/usr/bin/env bash
# The engine benchmark: build rate, index size, open time and suggest latency on the real catalogs
# in ../shared/data (when present) and a synthetic catalog, with SQLite FTS5 measured side by side.
#   scripts/bench.sh                 # debian, cities, synthetic 1M
#   SYNTHETIC=200000 SESSIONS=500 scripts/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build -c release --product typeahead >&2
bin="$(swift build -c release --show-bin-path)/typeahead"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
args=()
for name in debian cities; do
  if [ -f "../shared/data/$name.jsonl.gz" ]; then
    gzip -dc "../shared/data/$name.jsonl.gz" > "$work/$name.jsonl"
    args+=(--catalog "$name=$work/$name.jsonl")
  fi
done
"$bin" bench "${args[@]}" --synthetic "${SYNTHETIC:-1000000}" --sessions "${SESSIONS:-2000}" --work-dir "$work/indexes"
