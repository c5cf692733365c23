#!/usr/bin/env bash
# Runs the image's runtime stage without a container engine: debootstraps a minimal Debian
# (what debian:*-slim is made from) with exactly the packages deploy/container/Containerfile's
# runtime stage installs, adds the release binary built as the build stage builds it, and runs a
# whole cluster in it (`typeahead local --query`) the way Kubernetes would: root file system
# read-only, uid 10001, /tmp a tmpfs. A library missing from the runtime stage fails here.
#
#   sudo scripts/check-runtime-root.sh [WORKDIR]      # default: a temporary directory, removed
#
# Not part of the test suite: it downloads ~100 MB of Debian packages and takes minutes. Needs
# root (debootstrap, chroot, a private mount namespace) and debootstrap (apt-get install debootstrap).
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-$(mktemp -d)}"
[ -n "${1:-}" ] || trap 'rm -rf "$work"' EXIT

read -r release packages < <(python3 - <<'EOF'
import sys
sys.path.insert(0, "scripts")
from deploycheck import container
stages = container.parse("deploy/container/Containerfile")
name, image, instructions = stages[-1]
print(container.codename(image), ",".join(sorted(container.installed_packages(instructions))))
EOF
)
echo "runtime stage: Debian $release with $packages" >&2

swift build -c release --product typeahead --static-swift-stdlib >&2
binary="$(swift build -c release --product typeahead --static-swift-stdlib --show-bin-path)/typeahead"

root="$work/root"
[ -x "$root/bin/sh" ] || debootstrap --variant=minbase --include="$packages" "$release" "$root" http://deb.debian.org/debian >&2
chroot "$root" sh -c 'getent passwd 10001 >/dev/null || { groupadd --gid 10001 typeahead &&
  useradd --no-log-init --uid 10001 --gid typeahead --home-dir /var/lib/typeahead --no-create-home --shell /usr/sbin/nologin typeahead; }'
install -D -m 0755 "$binary" "$root/usr/local/bin/typeahead"
install -D -m 0644 deploy/catalog/sample.jsonl "$root/usr/share/typeahead/sample.jsonl"
if chroot "$root" ldd /usr/local/bin/typeahead | grep "not found"; then
  echo "check-runtime-root: libraries missing from the runtime stage" >&2
  exit 1
fi

unshare --mount --fork sh -euc '
  root="$1"
  mount --bind "$root" "$root" && mount -o remount,bind,ro "$root"
  mount -t tmpfs -o size=64m tmpfs "$root/tmp"
  mount -t proc proc "$root/proc"
  exec chroot --userspec=10001:10001 "$root" /usr/local/bin/typeahead local --shards 3 --replicas 2 \
    --listen 127.0.0.1:0 --catalog /usr/share/typeahead/sample.jsonl --query "red sh"
' sh "$root"
echo "check-runtime-root: a 3x2 cluster ran in the runtime stage's packages, read-only, as uid 10001" >&2
