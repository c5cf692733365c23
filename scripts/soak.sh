#!/usr/bin/env bash
# A soak run: `typeahead local` (2 shards × 2 replicas) under `typeahead load` at 70% of the
# maximum it measures first, with upsert/delete batches every 10 s, one replica SIGKILLed and
# restarted, and one zero-downtime reindex meanwhile. Reports failed requests outside the kill
# window, RSS and anonymous memory over time per process, descriptors, and whether the cluster
# ends with exactly the entries the run's changes leave. Exit status 1 when a check failed.
#
#   scripts/soak.sh MINUTES [soak.py options: --catalog FILE --out DIR --fraction F ...]
#
# Release build by default; TYPEAHEAD_SOAK_BUILD=debug uses the debug build (CI runs 2 minutes
# of it on the build the tests made). By hand: scripts/soak.sh 30 --catalog debian.jsonl
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: scripts/soak.sh MINUTES [options]" >&2; exit 2; }
build="${TYPEAHEAD_SOAK_BUILD:-release}"
swift build -c "$build" --product typeahead >/dev/null
exec python3 scripts/soak.py "$@" --binary ".build/$build/typeahead"
