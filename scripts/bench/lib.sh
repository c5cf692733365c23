# Shared by the benchmark scripts that pin a server to core 0 and h2load to core 1:
#   . scripts/bench/lib.sh; bench_setup NAME TOOL...
# checks the tools and cores, builds the release binary ($binary), makes $work (removed on exit,
# with every pid in $pids killed first), and defines free_port, cpu_ticks and start_nghttpd.

bench_setup() {  # $1 script name, then the tools it needs
  local name="$1" tool; shift
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "$name: $tool not found (scripts/setup.sh installs it)" >&2; exit 1; }
  done
  [ "$(nproc)" -ge 2 ] || { echo "$name: needs 2 cores (server on 0, h2load on 1)" >&2; exit 1; }
  swift build -c release --product typeahead >/dev/null
  binary=.build/release/typeahead
  work="$(mktemp -d)"
  pids=()
  trap bench_cleanup EXIT
}

bench_cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# The peer: nghttpd on core 0 serving $work/docroot/suggest, a file of $1 bytes (over TLS when a
# key and a certificate follow); sets $peer_port and $peer_pid and returns once it accepts connections.
start_nghttpd() {  # $1 body bytes [$2 key $3 certificate]
  mkdir -p "$work/docroot"
  head -c "$1" /dev/zero > "$work/docroot/suggest"
  peer_port="$(free_port)"
  local tls=(--no-tls)
  [ $# -ge 3 ] && tls=()
  taskset -c 0 nghttpd "${tls[@]}" -n 1 -d "$work/docroot" "$peer_port" "${@:2}" >/dev/null 2>&1 &
  peer_pid=$!
  pids+=("$peer_pid")
  for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$peer_port") 2>/dev/null && break; sleep 0.05; done
}
