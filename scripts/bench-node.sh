#!/usr/bin/env bash
# gRPC Suggest throughput and latency of `typeahead node` on loopback, next to nghttpd serving a
# static file of the same size with the same h2load settings (the HTTP/2 floor: what a server costs
# that does no work per request). Release build; the server is pinned to core 0 (one event-loop
# thread), h2load to core 1. Figures are printed, never asserted. The cached node runs the same
# keystrokes over the GET form too (`/v1/suggest?q=…`, JSON), beside nghttpd serving a static body
# of the mean JSON answer's size. The cached node and nghttpd run once more over TLS (a fresh
# self-signed certificate, ALPN h2): the cost of HTTPS beside cleartext.
#
#   scripts/bench-node.sh [requests-per-query] [clients] [streams-per-client]
#
# Catalog: ../shared/data/debian.jsonl.gz (decompressed to a temp dir), else the bundled sample.
# Workload: the keystrokes of a few typical searches (each prefix a user types is one Suggest);
# h2load -d sends one body per run, so each keystroke is its own h2load run and the totals add up.
set -euo pipefail
cd "$(dirname "$0")/.."

per_query="${1:-20000}"
clients="${2:-10}"
streams="${3:-100}"

. scripts/bench/lib.sh
bench_setup bench-node h2load nghttpd taskset python3 curl openssl

if [ -r ../shared/data/debian.jsonl.gz ]; then
  zcat ../shared/data/debian.jsonl.gz > "$work/catalog.jsonl"
  catalog_name=debian
  keystrokes=(l li lib libs libss py pyt pyth python3-d python3-dj g gn gno gnome gnome-sh)
else
  cp deploy/catalog/sample.jsonl "$work/catalog.jsonl"
  catalog_name=sample
  keystrokes=(r re red "red " "red s" "red sh" c cr cre crem)
fi
"$binary" index --catalog "$work/catalog.jsonl" --dir "$work/shard" >/dev/null

wait_ready() {  # $1 URL
  local mode=--http2-prior-knowledge
  [[ "$1" == https://* ]] && mode=--insecure  # the benchmark's own throwaway certificate
  for _ in $(seq 200); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$mode" "$1" 2>/dev/null)" = 200 ] && return 0
    sleep 0.05
  done
  echo "bench-node: $1 never answered 200" >&2; exit 1
}
ticks_per_second="$(getconf CLK_TCK)"

# Runs h2load; appends per-request latencies (µs) to $work/latency-$2.txt; prints "requests seconds".
run_h2load() {  # $1 label, $2 log name, then h2load arguments
  local label="$1" name="$2"; shift 2
  local out
  rm -f "$work/log"
  out="$(taskset -c 1 h2load -n "$per_query" -c "$clients" -m "$streams" --log-file "$work/log" "$@" 2>&1)"
  if ! echo "$out" | grep -qE "^requests: .* ([0-9]+) succeeded, 0 failed"; then
    echo "bench-node: h2load failed for $label:" >&2; echo "$out" >&2; exit 1
  fi
  echo "$out" | grep -E "status codes: [0-9]+ 2xx" >/dev/null || { echo "$out" >&2; exit 1; }
  awk -F'\t' '{ print $3 }' "$work/log" >> "$work/latency-$name.txt"
  local succeeded seconds
  succeeded="$(echo "$out" | sed -nE 's/^requests: .* ([0-9]+) succeeded.*/\1/p')"
  seconds="$(echo "$out" | sed -nE 's/^finished in ([0-9.]+)(m?s),.*/\1 \2/p' | awk '{ print ($2 == "ms") ? $1 / 1000 : $1 }')"
  echo "$out" | grep -E "^time for request:" -A0 | sed "s/^/  [$label] /" >&2
  echo "$succeeded $seconds"
}

percentiles() {  # file of µs values -> "p50 p99" in ms
  sort -n "$1" | awk '{ v[NR] = $1 } END { i50 = int(NR * 0.50); i99 = int(NR * 0.99); if (i50 < 1) i50 = 1; if (i99 < 1) i99 = 1;
    printf "%.3f %.3f\n", v[i50] / 1000, v[i99] / 1000 }'
}

# --- typeahead node: every keystroke, loaded
echo "catalog $catalog_name ($(wc -l < "$work/catalog.jsonl") entries), ${#keystrokes[@]} keystrokes x $per_query requests, h2load -c $clients -m $streams" >&2

# One node run: every keystroke loaded, then the unloaded round trip. Sets node_rps, node_cpu,
# node_p50, node_p99, rtt_p50, rtt_p99 and (first run) $work/requests.txt.
run_node() {  # $1 label, then extra `typeahead node` arguments
  local label="$1"; shift
  local scheme=http
  [[ " $* " == *" --tls-cert "* ]] && scheme=https
  node_port="$(free_port)"
  taskset -c 0 "$binary" node --dir "$work/shard" --listen "127.0.0.1:$node_port" --threads 1 --log-format logfmt "$@" \
    2> "$work/node.log" &
  node_pid=$!
  pids+=("$node_pid")
  wait_ready "$scheme://127.0.0.1:$node_port/readyz"
  if [ ! -s "$work/requests.txt" ]; then
    mkdir -p "$work/requests"
    python3 scripts/bench/node-requests.py proto "$work/requests" "127.0.0.1:$node_port" "${keystrokes[@]}" > "$work/requests.txt"
  fi
  echo "$label: catalog $catalog_name ($(wc -l < "$work/catalog.jsonl") entries), ${#keystrokes[@]} keystrokes x $per_query requests, h2load -c $clients -m $streams" >&2
  : > "$work/latency-node.txt"
  local total_requests=0 total_seconds=0 total_bytes=0 cpu_before cpu_after n s file bytes entries out middle
  cpu_before="$(cpu_ticks "$node_pid")"
  while read -r file bytes entries; do
    read -r n s < <(run_h2load "$(basename "$file") ($bytes B, $entries entries)" node \
      -H 'content-type: application/grpc' -H 'te: trailers' -d "$file" "$scheme://127.0.0.1:$node_port/typeahead.v1.Typeahead/Suggest")
    total_requests=$((total_requests + n))
    total_seconds="$(awk -v a="$total_seconds" -v b="$s" 'BEGIN { print a + b }')"
    total_bytes=$((total_bytes + bytes))
  done < "$work/requests.txt"
  cpu_after="$(cpu_ticks "$node_pid")"
  node_rps="$(awk -v n="$total_requests" -v s="$total_seconds" 'BEGIN { printf "%.0f", n / s }')"
  node_cpu="$(awk -v t=$((cpu_after - cpu_before)) -v hz="$ticks_per_second" -v n="$total_requests" 'BEGIN { printf "%.2f", t / hz / n * 1e6 }')"
  read -r node_p50 node_p99 < <(percentiles "$work/latency-node.txt")
  mean_bytes=$((total_bytes / $(wc -l < "$work/requests.txt")))
  node_requests=$total_requests

  # Unloaded round trip: one client, one stream at a time.
  middle="$(sed -n "$(( ($(wc -l < "$work/requests.txt") + 1) / 2 ))p" "$work/requests.txt" | awk '{ print $1 }')"
  rm -f "$work/log"
  out="$(taskset -c 1 h2load -n 5000 -c 1 -m 1 --log-file "$work/log" -H 'content-type: application/grpc' -H 'te: trailers' \
    -d "$middle" "$scheme://127.0.0.1:$node_port/typeahead.v1.Typeahead/Suggest" 2>&1)"
  echo "$out" | grep -E "^time for request:" | sed "s/^/  [unloaded] /" >&2
  awk -F'\t' '{ print $3 }' "$work/log" > "$work/latency-rtt.txt"
  read -r rtt_p50 rtt_p99 < <(percentiles "$work/latency-rtt.txt")
  rtt_mean="$(awk '{ s += $1 } END { printf "%.3f", s / NR / 1000 }' "$work/latency-rtt.txt")"

  kill "$node_pid"; wait "$node_pid" 2>/dev/null || true
}

run_node "answer cache on (default)"
cached=("$node_rps" "$node_p50" "$node_p99" "$node_cpu" "$rtt_p50" "$rtt_mean")
run_node "answer cache off" --answer-cache-mb 0
uncached=("$node_rps" "$node_p50" "$node_p99" "$node_cpu" "$rtt_p50" "$rtt_mean")
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=bench \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$work/tls.key" -out "$work/tls.crt" 2>/dev/null
run_node "answer cache on, TLS" --tls-cert "$work/tls.crt" --tls-key "$work/tls.key"
tls=("$node_rps" "$node_p50" "$node_p99" "$node_cpu" "$rtt_p50" "$rtt_mean")

# --- The GET form (`/v1/suggest?q=…`, JSON), answer cache on: the same keystrokes, and later
# nghttpd serving a static body of the mean JSON answer's size. Sets get=(…) and get_mean_bytes.
run_node_get() {
  node_port="$(free_port)"
  taskset -c 0 "$binary" node --dir "$work/shard" --listen "127.0.0.1:$node_port" --threads 1 --log-format logfmt 2> "$work/node.log" &
  node_pid=$!
  pids+=("$node_pid")
  wait_ready "http://127.0.0.1:$node_port/readyz"
  : > "$work/latency-get.txt"
  local total_requests=0 total_seconds=0 total_bytes=0 cpu_before cpu_after n s url bytes query middle
  local urls=()
  for query in "${keystrokes[@]}"; do
    urls+=("http://127.0.0.1:$node_port/v1/suggest?q=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$query")")
  done
  cpu_before="$(cpu_ticks "$node_pid")"
  for url in "${urls[@]}"; do
    bytes="$(curl -s --http2-prior-knowledge "$url" | wc -c)"
    read -r n s < <(run_h2load "GET ${url##*q=} ($bytes B)" get "$url")
    total_requests=$((total_requests + n))
    total_seconds="$(awk -v a="$total_seconds" -v b="$s" 'BEGIN { print a + b }')"
    total_bytes=$((total_bytes + bytes))
  done
  cpu_after="$(cpu_ticks "$node_pid")"
  get_mean_bytes=$((total_bytes / ${#urls[@]}))
  local rps cpu p50 p99 rtt
  rps="$(awk -v n="$total_requests" -v s="$total_seconds" 'BEGIN { printf "%.0f", n / s }')"
  cpu="$(awk -v t=$((cpu_after - cpu_before)) -v hz="$ticks_per_second" -v n="$total_requests" 'BEGIN { printf "%.2f", t / hz / n * 1e6 }')"
  read -r p50 p99 < <(percentiles "$work/latency-get.txt")
  middle="${urls[$(( ${#urls[@]} / 2 ))]}"
  rm -f "$work/log"
  taskset -c 1 h2load -n 5000 -c 1 -m 1 --log-file "$work/log" "$middle" >/dev/null 2>&1
  rtt="$(awk -F'\t' '{ s += $3 } END { printf "%.3f", s / NR / 1000 }' "$work/log")"
  get=("$rps" "$p50" "$p99" "$cpu" "" "$rtt")
  kill "$node_pid"; wait "$node_pid" 2>/dev/null || true
}
run_node_get

# --- nghttpd: a static file of the mean response size, same settings and pinning; cleartext,
# then TLS with the same certificate. Sets peer_rps, peer_cpu, peer_p50, peer_p99, peer_rtt_mean.
run_peer() {  # $1 scheme, then start_nghttpd's TLS arguments (none for cleartext)
  local scheme="$1"; shift
  start_nghttpd "${peer_size:-$mean_bytes}" "$@"
  : > "$work/latency-peer.txt"
  local peer_requests=0 peer_seconds=0 cpu_before cpu_after n s file bytes entries
  cpu_before="$(cpu_ticks "$peer_pid")"
  while read -r file bytes entries; do
    read -r n s < <(run_h2load "nghttpd $mean_bytes B ($scheme)" peer "$scheme://127.0.0.1:$peer_port/suggest")
    peer_requests=$((peer_requests + n))
    peer_seconds="$(awk -v a="$peer_seconds" -v b="$s" 'BEGIN { print a + b }')"
  done < "$work/requests.txt"
  cpu_after="$(cpu_ticks "$peer_pid")"
  peer_rps="$(awk -v n="$peer_requests" -v s="$peer_seconds" 'BEGIN { printf "%.0f", n / s }')"
  peer_cpu="$(awk -v t=$((cpu_after - cpu_before)) -v hz="$ticks_per_second" -v n="$peer_requests" 'BEGIN { printf "%.2f", t / hz / n * 1e6 }')"
  read -r peer_p50 peer_p99 < <(percentiles "$work/latency-peer.txt")
  # Unloaded nghttpd round trip, same settings as the node's.
  rm -f "$work/log"
  taskset -c 1 h2load -n 5000 -c 1 -m 1 --log-file "$work/log" "$scheme://127.0.0.1:$peer_port/suggest" >/dev/null 2>&1
  peer_rtt_mean="$(awk -F'\t' '{ s += $3 } END { printf "%.3f", s / NR / 1000 }' "$work/log")"
  peer_total=$peer_requests
  kill "$peer_pid"; wait "$peer_pid" 2>/dev/null || true
}
run_peer https "$work/tls.key" "$work/tls.crt"
peer_tls=("$peer_rps" "$peer_p50" "$peer_p99" "$peer_cpu" "$peer_rtt_mean")
peer_size=$get_mean_bytes run_peer http
peer_get=("$peer_rps" "$peer_p50" "$peer_p99" "$peer_cpu" "$peer_rtt_mean")
run_peer http
peer_requests=$peer_total

printf '\n%-30s %12s %10s %10s %14s %16s\n' "server" "requests/s" "p50 ms" "p99 ms" "CPU µs/request" "unloaded mean ms"
printf '%-30s %12s %10s %10s %14s %16s\n' "node, answer cache on" "${cached[0]}" "${cached[1]}" "${cached[2]}" "${cached[3]}" "${cached[5]}"
printf '%-30s %12s %10s %10s %14s %16s\n' "node, answer cache off" "${uncached[0]}" "${uncached[1]}" "${uncached[2]}" "${uncached[3]}" "${uncached[5]}"
printf '%-30s %12s %10s %10s %14s %16s\n' "nghttpd (static)" "$peer_rps" "$peer_p50" "$peer_p99" "$peer_cpu" "$peer_rtt_mean"
printf '%-30s %12s %10s %10s %14s %16s\n' "node, GET (JSON), cache on" "${get[0]}" "${get[1]}" "${get[2]}" "${get[3]}" "${get[5]}"
printf '%-30s %12s %10s %10s %14s %16s\n' "nghttpd (static, GET size)" "${peer_get[0]}" "${peer_get[1]}" "${peer_get[2]}" "${peer_get[3]}" "${peer_get[4]}"
printf '%-30s %12s %10s %10s %14s %16s\n' "node, answer cache on, TLS" "${tls[0]}" "${tls[1]}" "${tls[2]}" "${tls[3]}" "${tls[5]}"
printf '%-30s %12s %10s %10s %14s %16s\n' "nghttpd (static), TLS" "${peer_tls[0]}" "${peer_tls[1]}" "${peer_tls[2]}" "${peer_tls[3]}" "${peer_tls[4]}"
ratios() {  # $1 label, $2 requests/s, $3 CPU µs, $4 unloaded mean ms
  echo "$1 / nghttpd: throughput $(awk -v a="$2" -v b="$peer_rps" 'BEGIN { printf "%.2f", a / b }')x, CPU per request $(awk -v a="$3" -v b="$peer_cpu" 'BEGIN { printf "%.2f", a / b }')x, unloaded mean $(awk -v a="$4" -v b="$peer_rtt_mean" 'BEGIN { printf "%.2f", a / b }')x"
}
ratios "node, answer cache on" "${cached[0]}" "${cached[3]}" "${cached[5]}"
ratios "node, answer cache off" "${uncached[0]}" "${uncached[3]}" "${uncached[5]}"
echo "node, GET (JSON), cache on / nghttpd of the same size: throughput $(awk -v a="${get[0]}" -v b="${peer_get[0]}" 'BEGIN { printf "%.2f", a / b }')x, CPU per request $(awk -v a="${get[3]}" -v b="${peer_get[3]}" 'BEGIN { printf "%.2f", a / b }')x, unloaded mean $(awk -v a="${get[5]}" -v b="${peer_get[4]}" 'BEGIN { printf "%.2f", a / b }')x"
echo "TLS cost, node (cache on): throughput $(awk -v a="${tls[0]}" -v b="${cached[0]}" 'BEGIN { printf "%.2f", a / b }')x of cleartext, CPU per request +$(awk -v a="${tls[3]}" -v b="${cached[3]}" 'BEGIN { printf "%.2f", a - b }') µs; nghttpd: $(awk -v a="${peer_tls[0]}" -v b="$peer_rps" 'BEGIN { printf "%.2f", a / b }')x, +$(awk -v a="${peer_tls[3]}" -v b="$peer_cpu" 'BEGIN { printf "%.2f", a - b }') µs"
echo "node TLS / nghttpd TLS: throughput $(awk -v a="${tls[0]}" -v b="${peer_tls[0]}" 'BEGIN { printf "%.2f", a / b }')x"
echo "(mean Suggest response ${mean_bytes} bytes over gRPC, ${get_mean_bytes} as GET JSON; $node_requests node requests per run, $peer_requests nghttpd requests)"
