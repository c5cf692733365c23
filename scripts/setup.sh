#!/usr/bin/env bash
# Installs what Typeahead needs on a fresh Debian machine with the Swift toolchain:
# the C libraries it wraps (as -dev packages) and the tools its tests and benchmarks drive.
# Idempotent: does nothing when everything is already there.
set -euo pipefail

packages=(
  liblmdb-dev      # storage engine (Storage module)
  libnghttp2-dev   # HTTP/2 framing, HPACK, flow control (HTTP2 module)
  libhttp-parser-dev  # HTTP/1.1 request parsing for the server's fallback: curl, Prometheus, probes (HTTP2 module)
  libutf8proc-dev  # Unicode normalisation and case folding (Analysis module)
  libyajl-dev      # streaming JSON parser for catalogs (Catalog module)
  libsqlite3-dev   # SQLite FTS5, the benchmark's peer
  libssl-dev       # libcrypto's HMAC-SHA256 for search keys (Wire module)
  libjemalloc-dev  # the processes' allocator: returns freed memory to the kernel by itself (CSystem module)
  pkg-config
  lmdb-utils       # mdb_stat / mdb_dump for operators and tests
  nghttp2-client   # h2load for benchmarks
  nghttp2-server   # nghttpd, the benchmark's HTTP/2 peer
  curl
  iproute2         # ip netns, veth pairs, tc: the multi-host ClusterNetworkTests
  systemd          # systemd-analyze verify/security for scripts/check-deploy.py (no systemd needs to run)
  chromium         # headless browser that Tests/SearchPageTests drives the search page in
  chromium-driver  # WebDriver for it (Selenium talks to /usr/bin/chromedriver)
  fonts-dejavu-core  # a font for the page's screenshot (chromium without recommends has none)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Python packages for the test clients (real gRPC client, raw HTTP/2 frames).
if [ -f "$(dirname "$0")/requirements.txt" ] && grep -qv '^\s*#' "$(dirname "$0")/requirements.txt" 2>/dev/null; then
  python3 -m pip install -q --disable-pip-version-check -r "$(dirname "$0")/requirements.txt"
fi
