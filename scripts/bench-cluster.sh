#!/usr/bin/env bash
# The cluster benchmark (see scripts/bench/cluster.py): the same keystroke workload through one
# node and through a coordinator over 4 shards × 2 replicas, at max throughput and at the same
# request rate, then with 1% of shard calls stalled 10 ms, with and without hedging. Release
# build; printed, never asserted.
#   scripts/bench-cluster.sh [--duration S] [--rate R] [--catalog FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product typeahead >/dev/null
exec python3 scripts/bench/cluster.py "$@"
