#!/usr/bin/env bash
# End to end on a big shard: `typeahead node` answering a realistic keystroke mix over
# GET /v1/suggest (typos auto, the default), driven by h2load -i with one URI per keystroke,
# next to nghttpd serving a static body of the mean response size with the same h2load settings.
# Release build; the node is pinned to core 0 (one event loop), h2load to core 1. Figures are
# printed, never asserted.
#
#   scripts/bench-node-keystrokes.sh [--synthetic N | --catalog FILE] [--sessions S] [--requests R]
#                                    [--clients C] [--streams M]
#
# The keystrokes are `typeahead bench`'s workload for the catalog (every prefix of titles sampled
# by popularity, 20% with a typo), written with --keystrokes-out, so this script and the in-process
# benchmark measure the same queries. Default: the synthetic 1M-entry catalog.
set -euo pipefail
cd "$(dirname "$0")/.."

synthetic=1000000
catalog=""
sessions=2000
requests=200000
clients=8
streams=32
while [ $# -gt 0 ]; do
  case "$1" in
    --synthetic) synthetic="$2"; shift 2 ;;
    --catalog) catalog="$2"; synthetic=0; shift 2 ;;
    --sessions) sessions="$2"; shift 2 ;;
    --requests) requests="$2"; shift 2 ;;
    --clients) clients="$2"; shift 2 ;;
    --streams) streams="$2"; shift 2 ;;
    *) echo "usage: $0 [--synthetic N | --catalog FILE] [--sessions S] [--requests R] [--clients C] [--streams M]" >&2; exit 2 ;;
  esac
done

. scripts/bench/lib.sh
bench_setup bench-node-keystrokes h2load nghttpd taskset python3 curl

if [ -n "$catalog" ]; then
  name=catalog
  "$binary" bench --catalog "$name=$catalog" --sessions "$sessions" --work-dir "$work/bench" \
    --keystrokes-out "$work" --build-only >&2
else
  name="synthetic-$synthetic"
  "$binary" bench --synthetic "$synthetic" --sessions "$sessions" --work-dir "$work/bench" \
    --keystrokes-out "$work" --build-only >&2
fi
shard="$work/bench/$name/shard"
keystrokes="$work/$name.keystrokes"

ticks_per_second="$(getconf CLK_TCK)"

# Runs h2load; prints "requests/s mean-body-bytes p50-ms p99-ms".
run_h2load() {  # h2load arguments
  local out
  rm -f "$work/log"
  out="$(taskset -c 1 h2load -n "$requests" -c "$clients" -m "$streams" --log-file "$work/log" "$@" 2>&1)"
  echo "$out" | grep -qE "^requests: .* ([0-9]+) succeeded, 0 failed" || { echo "bench-node-keystrokes: h2load failed:" >&2; echo "$out" >&2; exit 1; }
  echo "$out" | grep -E "^status codes: [0-9]+ 2xx, 0 3xx, 0 4xx, 0 5xx" >/dev/null || { echo "$out" >&2; exit 1; }
  local rps bytes
  rps="$(echo "$out" | sed -nE 's/^finished in .*, ([0-9.]+) req\/s,.*/\1/p')"
  bytes="$(echo "$out" | sed -nE 's/^traffic: .* \(([0-9]+)\) data.*/\1/p')"
  awk -F'\t' '{ print $3 }' "$work/log" | sort -n | awk -v rps="$rps" -v bytes="${bytes:-0}" -v n="$requests" '
    { v[NR] = $1 } END { i50 = int(NR * 0.50); i99 = int(NR * 0.99); if (i50 < 1) i50 = 1; if (i99 < 1) i99 = 1;
      printf "%.0f %.0f %.3f %.3f\n", rps, bytes / n, v[i50] / 1000, v[i99] / 1000 }'
}

# One node run over every keystroke URI; sets node_rps node_bytes node_p50 node_p99 node_cpu.
run_node() {  # extra `typeahead node` arguments
  node_port="$(free_port)"
  taskset -c 0 "$binary" node --dir "$shard" --listen "127.0.0.1:$node_port" --threads 1 "$@" \
    2> "$work/node.log" &
  node_pid=$!
  pids+=("$node_pid")
  for _ in $(seq 400); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$node_port/readyz" 2>/dev/null)" = 200 ] && break
    sleep 0.05
  done
  # One URI per keystroke, query text form-encoded.
  python3 - "$keystrokes" "127.0.0.1:$node_port" > "$work/uris.txt" <<'PY'
import sys, urllib.parse
path, address = sys.argv[1], sys.argv[2]
for line in open(path, encoding="utf-8"):
    text = line.rstrip("\n")
    print(f"http://{address}/v1/suggest?q={urllib.parse.quote(text, safe='')}")
PY
  local cpu_before cpu_after
  cpu_before="$(cpu_ticks "$node_pid")"
  read -r node_rps node_bytes node_p50 node_p99 < <(run_h2load -i "$work/uris.txt")
  cpu_after="$(cpu_ticks "$node_pid")"
  node_cpu="$(awk -v t=$((cpu_after - cpu_before)) -v hz="$ticks_per_second" -v n="$requests" 'BEGIN { printf "%.1f", t / hz / n * 1e6 }')"
  kill "$node_pid"; wait "$node_pid" 2>/dev/null || true
}

uris="$(wc -l < "$keystrokes")"
distinct="$(sort -u "$keystrokes" | wc -l)"
echo "catalog $name: $uris keystroke URIs ($distinct distinct) from $sessions typed titles; h2load -n $requests -c $clients -m $streams" >&2
# h2load -i cycles through the URIs, so each distinct keystroke is asked about requests/distinct
# times: the answer cache then serves all but the first; the second run turns the cache off.
run_node
cached=("$node_rps" "$node_bytes" "$node_p50" "$node_p99" "$node_cpu")
run_node --answer-cache-mb 0
uncached=("$node_rps" "$node_bytes" "$node_p50" "$node_p99" "$node_cpu")

start_nghttpd "${cached[1]}"
read -r peer_rps peer_bytes peer_p50 peer_p99 < <(run_h2load "http://127.0.0.1:$peer_port/suggest")

printf '\n%-34s %12s %10s %10s %14s\n' "server" "requests/s" "p50 ms" "p99 ms" "CPU µs/request"
printf '%-34s %12s %10s %10s %14s\n' "node, keystrokes, answer cache on" "${cached[0]}" "${cached[2]}" "${cached[3]}" "${cached[4]}"
printf '%-34s %12s %10s %10s %14s\n' "node, keystrokes, answer cache off" "${uncached[0]}" "${uncached[2]}" "${uncached[3]}" "${uncached[4]}"
printf '%-34s %12s %10s %10s %14s\n' "nghttpd (static ${peer_bytes} B)" "$peer_rps" "$peer_p50" "$peer_p99" "-"
echo "node / nghttpd throughput: cache on $(awk -v a="${cached[0]}" -v b="$peer_rps" 'BEGIN { printf "%.3f", a / b }'), cache off $(awk -v a="${uncached[0]}" -v b="$peer_rps" 'BEGIN { printf "%.3f", a / b }') (mean response body ${cached[1]} bytes; each distinct keystroke asked $(awk -v r="$requests" -v d="$distinct" 'BEGIN { printf "%.1f", r / d }') times)"
