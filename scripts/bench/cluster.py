#!/usr/bin/env python3
"""The cluster benchmark: the same keystroke workload (`typeahead load`, suggest only: sessions do
not submit, since the targets are about keystrokes) through
(a) one node holding the whole catalog and (b) a coordinator over 4 shards x 2 replicas, in one
run, on this machine. Printed, never asserted (shared machines are noisy): compare the columns of
one run.

  1. max throughput (closed loop, --max) of each;
  2. latency of each at the same request rate (open loop, --request-rate, half the smaller max by
     default): p50/p99 and the differences (the coordinator's added p50, its p99 ratio);
  3. stalls: every node answers 1% of shard calls 10 ms late (--fault-stall 1:10); the
     coordinator with hedging (default: after the shard's p95) and without, at the same rate:
     p99.9 against the unstalled figure, and the extra shard calls hedging cost.

Servers are pinned to core 0 and the load generator to core 1 (taskset), so both layouts get the
same CPU: one core for all of a layout's processes.

  scripts/bench-cluster.sh [--duration S] [--rate R] [--catalog FILE]
"""
import argparse
import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


class Servers:
    """The processes of one layout; all stopped by `stop`."""

    def __init__(self, work):
        self.work = work
        self.procs = []
        self.pids = {}

    def start(self, name, args, cpu="0"):
        log = open(os.path.join(self.work, name + ".log"), "w")
        port_file = os.path.join(self.work, name + ".port")
        if os.path.exists(port_file):
            os.remove(port_file)
        proc = subprocess.Popen(["taskset", "-c", cpu] + args + ["--port-file", port_file],
                                stdout=log, stderr=log, start_new_session=True)
        self.procs.append(proc)
        self.pids[name] = proc.pid  # taskset execs the server: the same process
        for _ in range(600):
            if os.path.exists(port_file):
                text = open(port_file).read().strip()
                if text:
                    return int(text)
            if proc.poll() is not None:
                sys.exit(f"bench-cluster: {name} exited: {open(log.name).read()[-2000:]}")
            time.sleep(0.05)
        sys.exit(f"bench-cluster: {name} did not start")

    def stop(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
        self.procs = []


def wait_ready(port):
    for _ in range(400):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as answer:
                if answer.status == 200:
                    return
        except Exception:
            pass
        time.sleep(0.05)
    sys.exit(f"bench-cluster: 127.0.0.1:{port} never became ready")


def metrics(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
        text = answer.read().decode()
    values = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            try:
                values[name] = float(value)
            except ValueError:
                pass
    return values


def summed(values, prefix, **labels):
    total = 0.0
    for name, value in values.items():
        if not name.startswith(prefix + "{") and name != prefix:
            continue
        if all(f'{k}="{v}"' in name for k, v in labels.items()):
            total += value
    return total


def cpu_seconds(pids):
    """User + system CPU of the processes so far."""
    total = 0
    for pid in pids:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


SUGGEST = "/typeahead.v1.Typeahead/Suggest"


def measured_load(servers, names, port, *load_args):
    """A load run, with the CPU the named servers spent per Suggest they answered."""
    pids = [servers.pids[name] for name in names]
    before, calls_before = cpu_seconds(pids), summed(metrics(port), "typeahead_requests_total", method=SUGGEST)
    report = load(*load_args)
    after, calls_after = cpu_seconds(pids), summed(metrics(port), "typeahead_requests_total", method=SUGGEST)
    calls = calls_after - calls_before
    return report, ((after - before) / calls * 1e6 if calls else 0)


def load(binary, port, catalog, args, work, label):
    out = os.path.join(work, f"load-{label}.json")
    cmd = ["taskset", "-c", "1", binary, "load", "--target", f"127.0.0.1:{port}", "--catalog", catalog,
           "--quiet", "--json", "--seed", "7", "--connections", "4", "--threads", "1", "--submit-rate", "0"] + args
    with open(out, "w") as f:
        done = subprocess.run(cmd, stdout=f, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"bench-cluster: typeahead load failed ({label}): {done.stderr[-2000:]}")
    report = json.load(open(out))
    report["_label"] = label
    return report


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--duration", type=float, default=15)
    parser.add_argument("--rate", type=float, help="requests/s for the same-rate runs (default: half the smaller max)")
    parser.add_argument("--catalog")
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/release/typeahead"))
    args = parser.parse_args()
    for tool in ["taskset"]:
        if shutil.which(tool) is None:
            sys.exit(f"bench-cluster: {tool} not found")
    work = tempfile.mkdtemp(prefix="typeahead-bench-cluster-")
    servers = Servers(work)
    try:
        catalog = args.catalog
        if catalog is None:
            shared = os.path.join(os.path.dirname(ROOT), "shared/data/debian.jsonl.gz")
            if os.path.exists(shared):
                catalog = os.path.join(work, "debian.jsonl")
                with gzip.open(shared, "rt") as source, open(catalog, "w") as target:
                    shutil.copyfileobj(source, target)
            else:
                catalog = os.path.join(ROOT, "deploy/catalog/sample.jsonl")
        entries = sum(1 for _ in open(catalog))
        binary = args.binary
        token = os.path.join(work, "admin.token")
        open(token, "w").write("bench-cluster-admin-token-0123456789\n")

        # The single node and the 8 shard replicas.
        run([binary, "index", "--catalog", catalog, "--dir", os.path.join(work, "single")])
        for shard in range(4):
            for replica in range(2):
                run([binary, "index", "--catalog", catalog, "--dir", os.path.join(work, f"s{shard}r{replica}"),
                     "--shard", str(shard), "--shards", "4", "--generation", "1"])

        def node_args(directory, extra=()):
            return [binary, "node", "--dir", os.path.join(work, directory), "--listen", "127.0.0.1:0", "--threads", "1",
                    "--admin-token-file", token] + list(extra)

        def start_cluster(extra=(), hedging=True):
            ports = [[servers.start(f"s{s}r{r}", node_args(f"s{s}r{r}", extra)) for r in range(2)] for s in range(4)]
            cluster = {"name": "bench", "shards": [{"name": f"shard-{s}", "replicas": [f"127.0.0.1:{p}" for p in ports[s]]}
                                                   for s in range(4)],
                       "settings": {"tokenFile": token, "hedgeBudgetPercent": 10 if hedging else 0}}
            path = os.path.join(work, "cluster.json")
            json.dump(cluster, open(path, "w"))
            port = servers.start("coordinator", [binary, "coordinator", "--cluster", path, "--listen", "127.0.0.1:0",
                                                 "--threads", "1"])
            wait_ready(port)
            return port

        closed = ["--duration", str(args.duration), "--warmup", "2"]
        duration = closed + ["--graceful-stop", "1"]
        reports = {}

        # 1. Maximum throughput.
        port = servers.start("single", node_args("single"))
        wait_ready(port)
        reports["node max"], node_cpu = measured_load(servers, ["single"], port, binary, port, catalog,
                                                      ["--max", "--streams", "16"] + closed, work, "node-max")
        servers.stop()
        port = start_cluster()
        shard_names = [f"s{s}r{r}" for s in range(4) for r in range(2)]
        coordinator_pids = [servers.pids["coordinator"]] + [servers.pids[name] for name in shard_names]
        before_all = cpu_seconds(coordinator_pids)
        reports["coordinator max"], coordinator_cpu = measured_load(servers, ["coordinator"], port, binary, port, catalog,
                                                                    ["--max", "--streams", "16"] + closed, work, "coordinator-max")
        layout_cpu = cpu_seconds(coordinator_pids) - before_all
        layout_calls = reports["coordinator max"]["requests"]["answered"]
        servers.stop()
        rate = args.rate or round(min(reports["node max"]["requests"]["perSecond"],
                                      reports["coordinator max"]["requests"]["perSecond"]) / 2)

        # 2. The same request rate, open loop.
        same = ["--request-rate", str(rate)] + duration
        port = servers.start("single", node_args("single"))
        wait_ready(port)
        reports["node"] = load(binary, port, catalog, same, work, "node-rate")
        servers.stop()
        port = start_cluster()
        reports["coordinator"] = load(binary, port, catalog, same, work, "coordinator-rate")
        before = metrics(port)
        servers.stop()

        # 3. Stalls: 1% of shard calls 10 ms late, with and without hedging.
        stall = ["--fault-stall", "1:10"]
        stalled = {}
        for hedging in [True, False]:
            port = start_cluster(stall, hedging=hedging)
            label = "stalled, hedging" if hedging else "stalled, no hedging"
            start = metrics(port)
            reports[label] = load(binary, port, catalog, same, work, label.replace(", ", "-").replace(" ", "-"))
            end = metrics(port)
            shard_calls = summed(end, "typeahead_coordinator_shard_requests_total") - summed(start, "typeahead_coordinator_shard_requests_total")
            hedges = summed(end, "typeahead_coordinator_hedges_total", result="sent") - summed(start, "typeahead_coordinator_hedges_total", result="sent")
            won = summed(end, "typeahead_coordinator_hedges_total", result="won") - summed(start, "typeahead_coordinator_hedges_total", result="won")
            stalled[label] = (shard_calls, hedges, won)
            servers.stop()

        # Report.
        def row(label):
            r = reports[label]
            s = r["suggest"]["latency"]
            return (f"{label:22} {r['requests']['perSecond']:10.0f} {s['p50'] / 1000:8.3f} {s['p99'] / 1000:8.3f} "
                    f"{s['p999'] / 1000:8.3f} {r['requests']['failed']:6d} {r['requests']['superseded']:6d} {r['requests']['partial']:6d}")

        print(f"\ncatalog {os.path.basename(catalog)} ({entries} entries); coordinator over 4 shards x 2 replicas; "
              f"servers on core 0, load on core 1; {args.duration:.0f} s per run")
        print(f"{'run':22} {'req/s':>10} {'p50 ms':>8} {'p99 ms':>8} {'p99.9 ms':>8} {'failed':>6} {'supers.':>6} {'partial':>6}")
        for label in reports:
            print(row(label))
        node, coordinator = reports["node"]["suggest"]["latency"], reports["coordinator"]["suggest"]["latency"]
        print(f"\nmax throughput: coordinator / node = {reports['coordinator max']['requests']['perSecond'] / reports['node max']['requests']['perSecond']:.2f}")
        print(f"CPU per Suggest at max: node {node_cpu:.1f} µs; coordinator {coordinator_cpu:.1f} µs (target ≤ 30); "
              f"the whole layout (coordinator and 8 nodes) about {layout_cpu / layout_calls * 1e6 if layout_calls else 0:.1f} µs")
        print(f"at {rate} requests/s: coordinator adds {(coordinator['p50'] - node['p50']):.0f} µs at p50 (target ≤ 100); "
              f"p99 ratio {coordinator['p99'] / node['p99']:.2f} (target ≤ 1.5)")
        unstalled = coordinator["p999"]
        for label, (calls, hedges, won) in stalled.items():
            p999 = reports[label]["suggest"]["latency"]["p999"]
            extra = hedges / calls * 100 if calls else 0
            print(f"{label}: p99.9 {p999 / 1000:.3f} ms = {p999 / unstalled:.2f}x the unstalled {unstalled / 1000:.3f} ms "
                  f"(target ≤ 2); hedges {int(hedges)} ({extra:.2f}% extra shard calls, target ≤ 5), {int(won)} won")
        print(f"(reports in {work})")
    finally:
        servers.stop()


if __name__ == "__main__":
    main()
