#!/usr/bin/env bash
# The run command: installs what is missing, builds a release binary, and starts a local cluster
# on loopback — the bundled sample catalog as two collections, products (the default) and
# departments (one entry per category), with the scope "all" ("Departments and products") over
# both, each split into 2 shards × 2 replicas (four `typeahead node` processes, each serving its
# shard of both) behind a `typeahead coordinator` on 127.0.0.1:7700 — then prints the addresses,
# the scope, the browser address and how to query it. Ctrl-C stops it.
#   scripts/run.sh               # start the cluster and keep it running
#   scripts/run.sh "red sh"      # start it, answer one query through the coordinator, stop
# Environment: TYPEAHEAD_SHARDS, TYPEAHEAD_REPLICAS, TYPEAHEAD_LISTEN, TYPEAHEAD_DATA (data dir).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build -c release --product typeahead >&2
bin="$(swift build -c release --show-bin-path)/typeahead"
# No --catalog: typeahead local's default, the sample split into products and departments.
args=(local --shards "${TYPEAHEAD_SHARDS:-2}" --replicas "${TYPEAHEAD_REPLICAS:-2}")
if [ $# -gt 0 ]; then
  exec "$bin" "${args[@]}" --listen 127.0.0.1:0 --query "$*"
fi
exec "$bin" "${args[@]}" --listen "${TYPEAHEAD_LISTEN:-127.0.0.1:7700}" --data-dir "${TYPEAHEAD_DATA:-.build/local-cluster}"
