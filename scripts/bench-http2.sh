#!/usr/bin/env bash
# HTTP/2 server throughput on loopback: h2load against the HTTP2 module's server (release build,
# trivial handler returning a small body), then the same h2load settings against nghttpd serving a
# static file of the same size. Prints both rates and their ratio. Figures are printed, never
# asserted. Server and h2load are pinned to different cores when taskset is available.
#
#   scripts/bench-http2.sh [requests] [clients] [streams-per-client] [body-bytes] [server-threads]
set -euo pipefail
cd "$(dirname "$0")/.."

requests="${1:-200000}"
clients="${2:-10}"
streams="${3:-100}"
body="${4:-64}"
threads="${5:-1}"

for tool in h2load nghttpd; do
  command -v "$tool" >/dev/null || { echo "bench-http2: $tool not found (apt-get install nghttp2-client nghttp2-server)" >&2; exit 1; }
done

# Only what the benchmark needs: the HTTP2 module in release mode, then the small server linked
# against its objects.
swift build -c release --target HTTP2 >/dev/null
work="$(mktemp -d)"
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
release=.build/release
swiftc -O -module-cache-path "$work/cache" scripts/bench/http2-server.swift -o "$work/http2-server" \
  -I "$release/Modules" -I Sources/CNghttp2 -I Sources/CHTTPParser \
  -Xcc -fmodule-map-file="$release/CSystem.build/module.modulemap" -Xcc -I -Xcc Sources/CSystem/include \
  "$release"/HTTP2.build/*.o "$release"/CSystem.build/csystem.c.o -lnghttp2 -lhttp_parser

ncpu="$(nproc)"
pin_server=() pin_client=()
if command -v taskset >/dev/null && [ "$ncpu" -ge 2 ]; then
  pin_server=(taskset -c 0) pin_client=(taskset -c 1)
fi

# Prints the requests/s h2load reports for a URL.
measure() {
  local out
  out="$("${pin_client[@]}" h2load -n "$requests" -c "$clients" -m "$streams" "$1" 2>&1)"
  echo "$out" | grep -E "^(finished in|requests:|status codes:)" >&2
  echo "$out" | sed -nE 's/^finished in .*, ([0-9.]+) req\/s.*/\1/p'
}

wait_port() {  # polls until something accepts on the port
  for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done
  echo "bench-http2: nothing listens on $1" >&2; exit 1
}

echo "h2load -n $requests -c $clients -m $streams, body $body bytes, server threads $threads, ${ncpu} cores" >&2

"${pin_server[@]}" "$work/http2-server" 0 "$threads" "$body" > "$work/port" &
server_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
port="$(cat "$work/port")"
wait_port "$port"
echo "== HTTP2Server (127.0.0.1:$port)" >&2
measure "http://127.0.0.1:$port/" >/dev/null   # warm-up
ours="$(measure "http://127.0.0.1:$port/")"
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""

mkdir -p "$work/docroot"
head -c "$body" /dev/zero | tr '\0' 'x' > "$work/docroot/small.txt"
peer_port=$((20000 + RANDOM % 20000))
"${pin_server[@]}" nghttpd --no-tls -n "$threads" -d "$work/docroot" "$peer_port" >/dev/null 2>&1 &
server_pid=$!
wait_port "$peer_port"
echo "== nghttpd (127.0.0.1:$peer_port)" >&2
measure "http://127.0.0.1:$peer_port/small.txt" >/dev/null
theirs="$(measure "http://127.0.0.1:$peer_port/small.txt")"

echo "HTTP2Server ${ours} req/s, nghttpd ${theirs} req/s, ratio $(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f", a / b }')"
