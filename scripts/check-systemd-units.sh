#!/usr/bin/env bash
# Runs deploy/systemd/ under a real systemd, on a machine that has none as PID 1: the runtime
# root of scripts/check-runtime-root.sh plus Debian's systemd, booted with systemd-nspawn (host
# network), with the units, sysusers file, env files and token installed as deploy/README.md's
# bring-up says. Then: a node instance and the coordinator start with all their hardening
# (credentials, StateDirectory, seccomp filter, MemoryDenyWriteExecute, no capabilities), the
# coordinator resolves the replica by name and answers a suggest, `systemctl stop` ends both with
# exit 0 (SIGTERM, graceful), and a SIGKILLed node is restarted (Restart=on-failure).
#
#   sudo scripts/check-systemd-units.sh [WORKDIR]     # default: a temporary directory, removed
#
# Not part of the test suite (downloads packages, takes minutes). Needs root, debootstrap and
# systemd-container (apt-get install debootstrap systemd-container), and loopback ports 17710-17711.
set -euo pipefail
cd "$(dirname "$0")/.."
keep="${1:-}"
work="${keep:-$(mktemp -d)}"
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT
scripts/check-runtime-root.sh "$work" >/dev/null

root="$work/systemd-root"
rm -rf "$root"
cp -a "$work/root" "$root"
cp /etc/resolv.conf "$root/etc/resolv.conf"
echo "127.0.0.1 localhost" > "$root/etc/hosts"
chroot "$root" sh -c 'DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends systemd systemd-sysv >/dev/null'
# The image's account is not the hosts' one: on a host, sysusers creates `typeahead`.
chroot "$root" sh -c 'userdel typeahead 2>/dev/null; groupdel typeahead 2>/dev/null; rm -rf /var/lib/typeahead; true'

# Bring-up, as in deploy/README.md (one node, one coordinator, on this machine's loopback).
install -m 0644 deploy/systemd/*.service "$root/etc/systemd/system/"
install -D -m 0644 deploy/systemd/typeahead.sysusers.conf "$root/etc/sysusers.d/typeahead.conf"
install -d -m 0755 "$root/etc/typeahead"
head -c 32 /dev/urandom | base64 > "$root/etc/typeahead/admin.token"
chmod 0600 "$root/etc/typeahead/admin.token"
sed 's/^TYPEAHEAD_LISTEN=.*/TYPEAHEAD_LISTEN=127.0.0.1:17711/' deploy/systemd/node-shard-0-a.env > "$root/etc/typeahead/node-shard-0-a.env"
sed 's/^TYPEAHEAD_LISTEN=.*/TYPEAHEAD_LISTEN=127.0.0.1:17710/' deploy/systemd/coordinator.env > "$root/etc/typeahead/coordinator.env"
echo '{"name": "units", "shards": [{"name": "shard-0", "replicas": ["localhost:17711"]}]}' > "$root/etc/typeahead/cluster.json"
chmod 0644 "$root/etc/typeahead/cluster.json"
# A generation built offline as root: systemd hands the directory to the service's user at start.
unshare --mount --fork sh -c "mount -t proc proc '$root/proc' && chroot '$root' /usr/local/bin/typeahead index \
  --catalog /usr/share/typeahead/sample.jsonl --dir /var/lib/typeahead/shard-0-a" >/dev/null
for unit in typeahead-node@shard-0-a typeahead-coordinator; do
  template="${unit/@*/@}"
  ln -sf "/etc/systemd/system/${template}.service" "$root/etc/systemd/system/multi-user.target.wants/${unit}.service"
done

systemd-nspawn -D "$root" --boot --register=no --keep-unit --machine=typeahead-units --console=pipe \
  </dev/null >"$work/nspawn.log" 2>&1 &
nspawn=$!
# SIGTERM asks nspawn for an orderly shutdown of the container; SIGKILL if it takes over 30 s.
stop_container() {
  kill -TERM "$nspawn" 2>/dev/null || return 0
  for _ in $(seq 1 150); do kill -0 "$nspawn" 2>/dev/null || break; sleep 0.2; done
  kill -KILL "$nspawn" 2>/dev/null || true
  wait "$nspawn" 2>/dev/null || true
}
trap 'stop_container; [ -n "$keep" ] || rm -rf "$work"' EXIT

failed=0
check() { if eval "$2"; then echo "ok $1"; else echo "FAIL $1"; failed=1; fi; }
leader=""
for _ in $(seq 1 100); do
  leader="$(ps -o pid= --ppid "$nspawn" | head -n 1 | tr -d ' ' || true)"   # none yet: ps fails
  [ -n "$leader" ] && nsenter -t "$leader" -a systemctl is-system-running --wait >/dev/null 2>&1 && break
  sleep 0.2
done
in_container() { nsenter -t "$leader" -a "$@"; }
for _ in $(seq 1 50); do
  curl -sf --http2-prior-knowledge http://127.0.0.1:17710/readyz >/dev/null && break
  sleep 0.2
done
check "node and coordinator active" "in_container systemctl is-active typeahead-node@shard-0-a typeahead-coordinator >/dev/null"
check "coordinator ready and answering" "curl -sf --http2-prior-knowledge 'http://127.0.0.1:17710/v1/suggest?q=red%20sh' | grep -q Red"
pid="$(in_container systemctl show -p MainPID --value typeahead-node@shard-0-a)"
check "node runs with no capabilities, no new privileges, a seccomp filter" \
  "in_container grep -q 'CapBnd:.0000000000000000' /proc/$pid/status && in_container grep -q 'NoNewPrivs:.1' /proc/$pid/status && in_container grep -q 'Seccomp:.2' /proc/$pid/status"
in_container sh -c "kill -9 $pid"
sleep 4
check "a SIGKILLed node is restarted" "[ \"\$(in_container systemctl show -p NRestarts --value typeahead-node@shard-0-a)\" -ge 1 ] && in_container systemctl is-active typeahead-node@shard-0-a >/dev/null"
for unit in typeahead-coordinator typeahead-node@shard-0-a; do
  in_container systemctl stop "$unit"
  check "systemctl stop $unit: graceful, exit 0" "in_container systemctl show -p Result --value $unit | grep -qx success"
done
if [ "$failed" -ne 0 ]; then
  in_container journalctl -u 'typeahead-*' --no-pager -n 40 -o cat >&2 || true
  exit 1
fi
echo "check-systemd-units: the units ran under systemd $(in_container systemctl --version | head -n 1 | cut -d' ' -f2)" >&2
