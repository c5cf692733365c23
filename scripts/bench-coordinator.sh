#!/usr/bin/env bash
# The coordinator's own cost per call, next to one node holding the whole catalog, in one run:
# `typeahead local --shards 4 --replicas 1` (every node answers from its answer cache after the
# first call, so what is left is the coordinator's fan-out, merge and answer) and `typeahead node`
# over the whole catalog, both asked the same query by h2load with the same settings, over GET
# /v1/suggest and gRPC Suggest. Prints, per path and server: requests/s, CPU µs per request (the
# process's utime + stime over the run, divided by the requests) and the unloaded mean round trip
# (one client, one stream). Release build; printed, never asserted. Nothing is pinned: the
# cluster's six processes and h2load share the machine's cores, as they would on one host.
#
#   [CATALOG=file.jsonl] scripts/bench-coordinator.sh [query] [requests] [clients] [streams-per-client]
#
# Catalog: $CATALOG, else ../shared/data/debian.jsonl.gz (decompressed to a temp dir), else the
# bundled sample.
set -euo pipefail
cd "$(dirname "$0")/.."

query="${1:-py}"
requests="${2:-100000}"
clients="${3:-10}"
streams="${4:-10}"

. scripts/bench/lib.sh
bench_setup bench-coordinator h2load python3 curl

if [ -n "${CATALOG:-}" ]; then
  cp "$CATALOG" "$work/catalog.jsonl"
elif [ -r ../shared/data/debian.jsonl.gz ]; then
  zcat ../shared/data/debian.jsonl.gz > "$work/catalog.jsonl"
else
  cp deploy/catalog/sample.jsonl "$work/catalog.jsonl"
fi
ticks_per_second="$(getconf CLK_TCK)"

wait_ready() {  # $1 URL
  for _ in $(seq 600); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' --http2-prior-knowledge "$1" 2>/dev/null)" = 200 ] && return 0
    sleep 0.1
  done
  echo "bench-coordinator: $1 never answered 200" >&2; exit 1
}

# The gRPC request: SuggestRequest{text: query}, length-prefixed (field 1, a string of < 128 bytes).
python3 - "$query" "$work/request.bin" <<'EOF'
import struct, sys
text = sys.argv[1].encode()
message = bytes([0x0A, len(text)]) + text
open(sys.argv[2], "wb").write(struct.pack(">BI", 0, len(message)) + message)
EOF
encoded="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$query")"
grpc=(-H 'content-type: application/grpc' -H 'te: trailers' -d "$work/request.bin")

# Loads `pid`'s server with h2load; prints "requests/s cpu-µs-per-request".
measure() {  # $1 pid, then h2load arguments (URL last)
  local pid="$1"; shift
  h2load -n 20000 -c "$clients" -m "$streams" "$@" >/dev/null 2>&1  # warm: caches, connections
  local before after out rps
  before="$(cpu_ticks "$pid")"
  out="$(h2load -n "$requests" -c "$clients" -m "$streams" "$@" 2>&1)"
  after="$(cpu_ticks "$pid")"
  echo "$out" | grep -qE "^requests: .* ([0-9]+) succeeded, 0 failed" || { echo "$out" >&2; exit 1; }
  rps="$(echo "$out" | sed -nE 's/^finished in .*, ([0-9.]+) req\/s.*/\1/p')"
  awk -v r="$rps" -v t=$((after - before)) -v hz="$ticks_per_second" -v n="$requests" 'BEGIN { printf "%.0f %.1f\n", r, t / hz / n * 1e6 }'
}

unloaded() {  # h2load arguments (URL last); prints the mean in µs
  h2load -n 2000 -c 1 -m 1 "$@" 2>&1 | awk '/^time for request:/ {
    v = $4; if (v ~ /ms$/) { sub(/ms$/, "", v); v *= 1000 } else if (v ~ /us$/) { sub(/us$/, "", v) } else { sub(/s$/, "", v); v *= 1e6 }
    printf "%.0f\n", v }'
}

# One node over the whole catalog.
"$binary" index --catalog "$work/catalog.jsonl" --dir "$work/whole" >/dev/null
node_port="$(free_port)"
"$binary" node --dir "$work/whole" --listen "127.0.0.1:$node_port" --log-level warning 2>"$work/node.log" &
node_pid=$!
pids+=("$node_pid")
wait_ready "http://127.0.0.1:$node_port/readyz"

# The cluster: 4 shards x 1 replica and a coordinator.
cluster_port="$(free_port)"
"$binary" local --shards 4 --replicas 1 --catalog "$work/catalog.jsonl" --listen "127.0.0.1:$cluster_port" \
  --data-dir "$work/cluster" --log-level warning >"$work/local.log" 2>&1 &
local_pid=$!
pids+=("$local_pid")
wait_ready "http://127.0.0.1:$cluster_port/readyz"
coordinator_pid="$(pgrep -P "$local_pid" -f ' coordinator ')"

echo "catalog $(wc -l < "$work/catalog.jsonl") entries; query \"$query\"; h2load -n $requests -c $clients -m $streams;" \
  "coordinator over 4 shards x 1 replica; node: the whole catalog" >&2
printf '%-22s %10s %14s %14s\n' "" "requests/s" "CPU µs/request" "unloaded mean"
for path in GET gRPC; do
  if [ "$path" = GET ]; then
    node_args=("http://127.0.0.1:$node_port/v1/suggest?q=$encoded")
    coordinator_args=("http://127.0.0.1:$cluster_port/v1/suggest?q=$encoded")
  else
    node_args=("${grpc[@]}" "http://127.0.0.1:$node_port/typeahead.v1.Typeahead/Suggest")
    coordinator_args=("${grpc[@]}" "http://127.0.0.1:$cluster_port/typeahead.v1.Typeahead/Suggest")
  fi
  read -r coordinator_rps coordinator_cpu < <(measure "$coordinator_pid" "${coordinator_args[@]}")
  read -r node_rps node_cpu < <(measure "$node_pid" "${node_args[@]}")
  coordinator_rtt="$(unloaded "${coordinator_args[@]}")"
  node_rtt="$(unloaded "${node_args[@]}")"
  printf '%-22s %10s %14s %11s µs\n' "coordinator, $path" "$coordinator_rps" "$coordinator_cpu" "$coordinator_rtt"
  printf '%-22s %10s %14s %11s µs\n' "node, $path" "$node_rps" "$node_cpu" "$node_rtt"
  awk -v c="$coordinator_rps" -v n="$node_rps" -v cr="$coordinator_rtt" -v nr="$node_rtt" \
    'BEGIN { printf "  coordinator / node: %.2fx the requests/s, +%d µs unloaded (targets: >= 0.5x, <= +100 µs; CPU <= 30 µs)\n", c / n, cr - nr }'
done
