#!/usr/bin/env python3
"""A Typeahead cluster spread over network hosts: every node and the coordinator in its own
network namespace (`ip netns`), each with its own address on one bridge, so the coordinator
talks to its nodes over real (virtual) links that a test can cut, slow down or lose hosts on.

Usage: netns_cluster_test.py --binary TYPEAHEAD --catalog JSONL --proto-dir DIR --relay RELAY.py
                             [--delay auto|netem|relay] [--keep-logs]
       netns_cluster_test.py --cleanup          (removes every ta-* namespace, link and its processes)

Must run as root. Exit status 0 when every check passed (the last line says PASSED), 1 when one
failed, 77 when this machine cannot run it (not root, no iproute2, no namespaces: the caller skips).

Topology (the root namespace is the switch, and the test client sits on it):

                          client ── ta-br0 10.77.0.1/24 (a bridge)
          ┌────────────────┬───────────┴────┬────────────────┐
       ta-co-h          ta-n1-h          ta-n2-h          ta-n3-h        host ends of the veth pairs
          │                │                │                │
    ta-co 10.77.0.2  ta-n1 10.77.0.11 ta-n2 10.77.0.12 ta-n3 10.77.0.13  namespaces (eth0 inside)
    coordinator      node :7701       node :7701       node :7701
    :7700            shard-0 (a)      shard-0 (b)      shard-1, its only replica

Scenarios:
  1. cut a link (`ip link set ta-nX-h down`, the cable pulled at the switch; packets vanish, no
     RST): shard-1's only replica → partial answers naming shard-1 within the deadline,
     require_all_shards → UNAVAILABLE, full answers again after `up`; one replica of shard-0 →
     answers stay complete.
  2. 50 ms more round trip on shard-0 (a): `tc qdisc … netem delay 50ms` on its link, or, on
     kernels without sch_netem, delay_relay.py in front of that node inside its namespace (the
     cluster file then names the relay). Client latency p50/p99 healthy vs slowed, hedges.
  3. SIGKILL the busier shard-0 replica under concurrent load: no call fails or loses a shard;
     the restarted node is used again.
"""
import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

PREFIX = "ta-"                     # every namespace and link this test makes; --cleanup removes them all
BRIDGE = "ta-br0"
SUBNET = "10.77.0"
COORDINATOR = {"name": "ta-co", "ip": f"{SUBNET}.2", "port": 7700}
NODES = [  # host, address, the shard it holds (of SHARDS)
    {"name": "ta-n1", "ip": f"{SUBNET}.11", "shard": 0},
    {"name": "ta-n2", "ip": f"{SUBNET}.12", "shard": 0},
    {"name": "ta-n3", "ip": f"{SUBNET}.13", "shard": 1},
]
SHARDS = 2
NODE_PORT = 7701
RELAY_PORT = 7702
SLOW = "ta-n1"                     # the replica scenario 2 slows down
ADDED_RTT_MS = 50
TOKEN = "netns-cluster-test-admin-token-0123456789"

# Short but not flaky: failures are seen within about a second, and a link that comes back is
# used again within about one reconnect backoff. The suggest deadline is the one the coordinator
# applies (clients send no grpc-timeout; see Client.suggest), so "answers within the deadline"
# means within SUGGEST_DEADLINE_MS plus the hop back.
SUGGEST_DEADLINE_MS = 300
SETTINGS = {
    "suggestDeadlineMs": SUGGEST_DEADLINE_MS,
    "searchDeadlineMs": 1000,
    "healthIntervalMs": 200,
    "healthTimeoutMs": 300,
    "connectTimeoutMs": 300,
    "failuresToMarkDown": 2,
    "reconnectInitialMs": 50,
    "reconnectMaximumMs": 500,
    "tokenFile": "admin.token",
}
# A call that has not completed by then is a failure of the test, not a slow answer.
WATCHDOG_S = 3.0
# How much later than the deadline an answer may arrive (the coordinator's reply, the bridge, and
# a Python client on 2 shared cores).
LATE_SLACK_MS = 250

failures = []


def check(name, condition, detail=""):
    print(f"ok {name}" if condition else f"FAIL {name}: {detail}", flush=True)
    if not condition:
        failures.append(name)
    return condition


def note(text):
    print(f"   {text}", flush=True)


class Skip(Exception):
    pass


# MARK: Commands

def run(*argv, check_status=True, quiet=False, timeout=30):
    """Runs a command; returns its CompletedProcess. A failing command raises with its output."""
    result = subprocess.run(list(argv), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
    if check_status and result.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {result.returncode}: {result.stderr.strip() or result.stdout.strip()}")
    if not quiet and result.returncode != 0:
        note(f"({' '.join(argv)}: {result.stderr.strip()})")
    return result


def ip(*argv, **options):
    return run("ip", *argv, **options)


def curl(url, timeout=2.0):
    """GET over cleartext HTTP/2; (status code, body). Never through a proxy."""
    result = run("curl", "--http2-prior-knowledge", "--noproxy", "*", "-sS", "--max-time", str(timeout),
                 "-w", "\n%{http_code}", url, check_status=False, quiet=True, timeout=timeout + 5)
    body, _, code = result.stdout.rpartition("\n")
    return (int(code) if code.isdigit() else 0), body


def metric(text, series):
    """The value of one series line (`name{labels}`), 0 when absent."""
    for line in text.splitlines():
        if line.startswith(series + " "):
            return float(line[len(series) + 1:])
    return 0.0


def metric_sum(text, prefix):
    """The sum of every series line starting with `prefix` (e.g. one method, every code)."""
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(prefix))


def wait_until(what, condition, timeout):
    """Polls `condition` (liveness only: generous); returns the seconds it took. Raises on timeout."""
    started = time.monotonic()
    while True:
        try:
            if condition():
                return time.monotonic() - started
        except Exception:  # a call that fails while the condition does not hold yet
            pass
        if time.monotonic() - started > timeout:
            raise RuntimeError(f"{what} did not happen within {timeout} s")
        time.sleep(0.02)


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))] if ordered else float("nan")


def ms(seconds):
    return f"{seconds * 1000:.1f} ms"


# MARK: Network

TEMP_PREFIX = "typeahead-netns-"


def cleanup():
    """Removes every ta-* namespace (after killing what runs in it), every ta-* link and the
    directories of earlier runs. Deleting a namespace destroys the veth ends inside it, which takes
    the host ends along (asynchronously, so host ends are deleted explicitly too)."""
    listed = ip("netns", "list", check_status=False, quiet=True).stdout.split("\n")
    for namespace in [line.split()[0] for line in listed if line.startswith(PREFIX)]:
        pids = ip("netns", "pids", namespace, check_status=False, quiet=True).stdout.split()
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        ip("netns", "del", namespace, check_status=False, quiet=True)
    for line in ip("-o", "link", "show", check_status=False, quiet=True).stdout.split("\n"):
        parts = line.split(": ")
        if len(parts) > 1:
            name = parts[1].split("@")[0]
            if name.startswith(PREFIX):
                ip("link", "del", name, check_status=False, quiet=True)
    temp = tempfile.gettempdir()
    for entry in os.listdir(temp):
        path = os.path.join(temp, entry)
        if entry.startswith(TEMP_PREFIX) and os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)


def build_network():
    """The bridge and one namespace per host, each with a veth pair into the bridge."""
    routes = ip("-4", "route", "show").stdout
    if f"{SUBNET}." in routes:
        raise RuntimeError(f"{SUBNET}.0/24 is already routed on this machine:\n{routes}")
    try:
        ip("netns", "add", "ta-probe")
    except RuntimeError as error:  # a container without CAP_SYS_ADMIN / CAP_NET_ADMIN
        raise Skip(f"cannot make network namespaces here: {error}")
    ip("netns", "del", "ta-probe")
    ip("link", "add", BRIDGE, "type", "bridge")
    ip("addr", "add", f"{SUBNET}.1/24", "dev", BRIDGE)
    ip("link", "set", BRIDGE, "up")
    for host in [COORDINATOR] + NODES:
        name = host["name"]
        ip("netns", "add", name)
        ip("link", "add", f"{name}-h", "type", "veth", "peer", "name", "eth0", "netns", name)
        ip("link", "set", f"{name}-h", "master", BRIDGE, "up")
        ip("-n", name, "addr", "add", f"{host['ip']}/24", "dev", "eth0")
        ip("-n", name, "link", "set", "eth0", "up")
        ip("-n", name, "link", "set", "lo", "up")


def netem_works():
    """Whether this kernel has sch_netem (CI's does not: "Specified qdisc kind is unknown")."""
    added = run("tc", "qdisc", "add", "dev", f"{SLOW}-h", "root", "netem", "delay", "1ms", check_status=False, quiet=True)
    if added.returncode != 0:
        note(f"netem unavailable ({added.stderr.strip()}): the userspace delay relay stands in")
        return False
    run("tc", "qdisc", "del", "dev", f"{SLOW}-h", "root")
    return True


# MARK: Processes

class Processes:
    """Every process the test starts, each in its own process group so that a kill reaches all of it."""

    def __init__(self, directory):
        self.directory = directory
        self.running = {}  # name -> (Popen, log path)

    def start(self, name, namespace, argv):
        log = os.path.join(self.directory, f"{name}.log")
        with open(log, "ab") as out:
            out.write(f"--- started {time.strftime('%H:%M:%S')}: {' '.join(argv)}\n".encode())
            out.flush()
            process = subprocess.Popen(["ip", "netns", "exec", namespace] + argv, stdin=subprocess.DEVNULL, stdout=out,
                                       stderr=subprocess.STDOUT, start_new_session=True)
        self.running[name] = (process, log)
        return process

    def pid(self, name):
        return self.running[name][0].pid

    def alive(self, name):
        return name in self.running and self.running[name][0].poll() is None

    def kill(self, name, sig=signal.SIGKILL):
        process, _ = self.running[name]
        if process.poll() is None:
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                pass
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    def stop_all(self):
        for name in list(self.running):
            self.kill(name, signal.SIGTERM)

    def logs(self, tail=60):
        out = []
        for name, (_, log) in sorted(self.running.items()):
            with open(log, errors="replace") as f:
                lines = f.read().splitlines()
            out.append(f"--- {name} log (last {tail} of {len(lines)} lines)\n" + "\n".join(lines[-tail:]))
        return "\n".join(out)


# MARK: The client (root namespace, through the bridge)

class Client:
    def __init__(self, stubs):
        import grpc
        self.grpc = grpc
        self.ta, ta_grpc, self.cl, cl_grpc = stubs
        # The client must reach 10.77.0.2 directly, whatever proxy the environment names.
        self.channel = grpc.insecure_channel(f"{COORDINATOR['ip']}:{COORDINATOR['port']}", options=[("grpc.enable_http_proxy", 0)])
        self.typeahead = ta_grpc.TypeaheadStub(self.channel)
        self.cluster = cl_grpc.ClusterStub(self.channel)
        self.admin = (("authorization", f"Bearer {TOKEN}"),)

    def suggest(self, text, entries=10, require_all=False):
        """(response, seconds). No grpc-timeout is sent, so the coordinator applies the cluster's
        suggest deadline; the watchdog only catches a call that never completes."""
        request = self.ta.SuggestRequest(text=text, limits=self.ta.SuggestLimits(entries=entries), require_all_shards=require_all)
        started = time.perf_counter()
        future = self.typeahead.Suggest.future(request)
        try:
            response = future.result(timeout=WATCHDOG_S)
        except self.grpc.FutureTimeoutError:
            future.cancel()
            raise RuntimeError(f"suggest {text!r} did not complete within {WATCHDOG_S} s")
        return response, time.perf_counter() - started

    def search(self, text):
        return self.typeahead.Search(self.ta.SearchRequest(text=text, page_size=5), timeout=WATCHDOG_S)

    def status(self, refresh=False):
        return self.cluster.Status(self.cl.ClusterStatusRequest(refresh=refresh), metadata=self.admin, timeout=WATCHDOG_S)

    def replicas_up(self):
        """Which replicas the coordinator routes to, from its periodic checks (a refreshing status
        would check them on demand and make the timings printed here shorter than in service)."""
        return {replica.address: replica.up for shard in self.status().shards for replica in shard.replicas}

    def metrics(self):
        code, body = curl(f"http://{COORDINATOR['ip']}:{COORDINATOR['port']}/metrics")
        if code != 200:
            raise RuntimeError(f"coordinator /metrics answered {code}")
        return body


def generate_stubs(proto_dir, directory):
    out = os.path.join(directory, "stubs")
    os.makedirs(out)
    run(sys.executable, "-m", "grpc_tools.protoc", "-I", proto_dir, f"--python_out={out}", f"--grpc_python_out={out}",
        "typeahead/v1/typeahead.proto", "typeahead/v1/shard.proto", "typeahead/v1/cluster.proto", timeout=120)
    sys.path.insert(0, out)
    from typeahead.v1 import typeahead_pb2, typeahead_pb2_grpc, cluster_pb2, cluster_pb2_grpc
    return typeahead_pb2, typeahead_pb2_grpc, cluster_pb2, cluster_pb2_grpc


def node_suggest_calls(host):
    """ShardSuggest calls a node answered (every status), from its own /metrics."""
    code, body = curl(f"http://{host['ip']}:{NODE_PORT}/metrics")
    if code != 200:
        raise RuntimeError(f"{host['name']} /metrics answered {code}")
    return metric_sum(body, 'typeahead_requests_total{method="/typeahead.v1.Shard/ShardSuggest"')


def keystrokes(catalog, count=60):
    """What people type: prefixes of the first catalog titles, one to three words long."""
    import json
    texts = []
    with open(catalog) as f:
        for line in f:
            title = json.loads(line)["title"].lower()
            for cut in (1, 2, 3, 5, 8, 12):
                texts.append(title[:cut])
            if len(texts) >= count:
                break
    return texts


# MARK: The cluster

class Cluster:
    def __init__(self, args, directory, processes):
        self.args = args
        self.directory = directory
        self.processes = processes
        self.use_netem = False
        self.address = {}  # node host name -> the host:port the cluster file names

    def index(self):
        for host in NODES:
            run(self.args.binary, "index", "--catalog", self.args.catalog, "--dir", self.shard_dir(host),
                "--shard", str(host["shard"]), "--shards", str(SHARDS), "--generation", "1", timeout=120)

    def shard_dir(self, host):
        return os.path.join(self.directory, host["name"] + "-shard")

    def start_node(self, host):
        port_file = os.path.join(self.directory, host["name"] + ".port")
        if os.path.exists(port_file):
            os.remove(port_file)
        self.processes.start(host["name"], host["name"],
                             [self.args.binary, "node", "--dir", self.shard_dir(host), "--listen", f"{host['ip']}:{NODE_PORT}",
                              "--admin-token-file", os.path.join(self.directory, "admin.token"), "--threads", "1",
                              "--port-file", port_file])
        # Ready, and reachable from the root namespace through the bridge.
        wait_until(f"{host['name']} serving", lambda: self.processes.alive(host["name"]) and os.path.exists(port_file)
                   and curl(f"http://{host['ip']}:{NODE_PORT}/readyz", timeout=1)[0] == 200, timeout=30)

    def start_relay(self, host):
        """The delay relay in the slow replica's namespace, in front of its node, delay off for now.
        It delays each direction by half the added round trip (netem on one link delays one direction)."""
        port_file = os.path.join(self.directory, "relay.port")
        self.processes.start("relay", host["name"],
                             [sys.executable, self.args.relay, "--target", f"{host['ip']}:{NODE_PORT}",
                              "--listen", f"{host['ip']}:{RELAY_PORT}", "--delay-ms", str(ADDED_RTT_MS / 2), "--port-file", port_file])
        wait_until("the delay relay listening", lambda: os.path.exists(port_file), timeout=20)
        os.kill(self.processes.pid("relay"), signal.SIGUSR1)  # starts enabled; off until scenario 2

    def write_cluster_file(self):
        import json
        shards = []
        for shard in range(SHARDS):
            shards.append({"name": f"shard-{shard}", "replicas": [self.address[h["name"]] for h in NODES if h["shard"] == shard]})
        path = os.path.join(self.directory, "cluster.json")
        with open(path, "w") as f:
            json.dump({"name": "netns", "shards": shards, "settings": SETTINGS}, f, indent=2)
        return path

    def start(self):
        with open(os.path.join(self.directory, "admin.token"), "w") as f:
            f.write(TOKEN + "\n")
        self.index()
        wanted = self.args.delay
        self.use_netem = wanted == "netem" or (wanted == "auto" and netem_works())
        for host in NODES:
            self.start_node(host)
            self.address[host["name"]] = f"{host['ip']}:{NODE_PORT}"
        slow = self.host(SLOW)
        if not self.use_netem:
            self.start_relay(slow)
            self.address[SLOW] = f"{slow['ip']}:{RELAY_PORT}"
        cluster_file = self.write_cluster_file()
        self.processes.start("coordinator", COORDINATOR["name"],
                             [self.args.binary, "coordinator", "--cluster", cluster_file,
                              "--listen", f"{COORDINATOR['ip']}:{COORDINATOR['port']}", "--threads", "2",
                              "--port-file", os.path.join(self.directory, "coordinator.port")])
        wait_until("the coordinator ready", lambda: self.processes.alive("coordinator")
                   and curl(f"http://{COORDINATOR['ip']}:{COORDINATOR['port']}/readyz", timeout=1)[0] == 200, timeout=30)

    @staticmethod
    def host(name):
        return next(h for h in NODES if h["name"] == name)

    def slow_down(self, on):
        if self.use_netem:
            # The host end's egress is what the bridge sends toward the node: requests get 50 ms later.
            if on:
                run("tc", "qdisc", "add", "dev", f"{SLOW}-h", "root", "netem", "delay", f"{ADDED_RTT_MS}ms")
            else:
                run("tc", "qdisc", "del", "dev", f"{SLOW}-h", "root")
        else:
            os.kill(self.processes.pid("relay"), signal.SIGUSR1)  # toggles the relay's delay


# MARK: Scenarios

def shard_of(binary, ids):
    """Each id's shard by the product's own assignment (`typeahead shard-of`)."""
    if not ids:
        return {}
    out = run(binary, "shard-of", "--shards", str(SHARDS), *ids).stdout
    return {line.split("\t")[1]: int(line.split("\t")[0]) for line in out.splitlines()}


def all_up(client):
    return all(client.replicas_up().values())


def cut_only_replica(client, binary):
    """Scenario 1: the link to shard-1's only replica goes dark, then comes back."""
    print("== scenario 1: cut the link to shard-1's only replica (ta-n3)", flush=True)
    deadline = SUGGEST_DEADLINE_MS / 1000
    full, _ = client.suggest("s", entries=40)
    baseline_shards = set(shard_of(binary, [e.id for e in full.entries]).values())
    check("baseline answer is full", full.shards.succeeded == 2 and full.shards.failed == 0, str(full.shards))
    check("baseline answer holds entries of both shards", baseline_shards == {0, 1}, str(baseline_shards))

    ip("link", "set", "ta-n3-h", "down")
    cut = time.monotonic()
    latencies, bad, first_partial, fast_since = [], [], None, None
    # Keep typing: the first calls wait out the deadline on the dark connection, then (replica
    # marked down) the coordinator answers without shard-1 at once.
    while time.monotonic() - cut < 8:
        answer, took = client.suggest("s", entries=40)
        latencies.append(took)
        if answer.shards.failed:
            first_partial = first_partial or time.monotonic() - cut
            if list(answer.shards.failed_shards) != ["shard-1"] or answer.shards.succeeded != 1:
                bad.append(f"shards {answer.shards}")
            foreign = {i for i, s in shard_of(binary, [e.id for e in answer.entries]).items() if s != 0}
            if foreign or not answer.entries:
                bad.append(f"partial answer with {len(answer.entries)} entries, not of shard-0: {sorted(foreign)[:3]}")
            if took < deadline / 3:
                fast_since = fast_since or time.monotonic() - cut
                if len([t for t in latencies if t < deadline / 3]) >= 20:
                    break
        elif first_partial is not None:
            bad.append(f"a full answer after shard-1 was missing: {answer.shards}")
    check("calls answer partially, naming shard-1, with shard-0's entries", first_partial is not None and not bad,
          "; ".join(bad[:5]) or "no partial answer")
    check(f"every call during the cut answered within the deadline (+{LATE_SLACK_MS} ms)",
          max(latencies) < deadline + LATE_SLACK_MS / 1000, f"slowest {ms(max(latencies))}")
    check("once shard-1 is known down, answers come at once", fast_since is not None, f"latencies {[ms(t) for t in latencies[-5:]]}")
    note(f"{len(latencies)} calls during the cut: first partial answer {ms(first_partial or 0)} after the cut, "
         f"answers fast from {ms(fast_since or 0)}; first call {ms(latencies[0])}, slowest {ms(max(latencies))}, "
         f"p50 {ms(percentile(latencies, 50))} (deadline {SUGGEST_DEADLINE_MS} ms)")
    searched = client.search("s")
    check("a search answers without shard-1 too", list(searched.shards.failed_shards) == ["shard-1"], str(searched.shards))
    try:
        strict, _ = client.suggest("s", require_all=True)
        check("require_all_shards fails with UNAVAILABLE", False, f"answered: {strict.shards}")
    except client.grpc.RpcError as error:
        check("require_all_shards fails with UNAVAILABLE", error.code() == client.grpc.StatusCode.UNAVAILABLE
              and "shard-1" in error.details(), f"{error.code()}: {error.details()}")
    partials = metric(client.metrics(), 'typeahead_coordinator_partial_answers_total{method="Suggest"}')
    check("the coordinator counts the partial answers", partials >= 1, str(partials))

    ip("link", "set", "ta-n3-h", "up")
    back = wait_until("full answers after the link came back",
                      lambda: client.suggest("s", entries=40, require_all=True)[0].shards.succeeded == 2, timeout=15)
    again, _ = client.suggest("s", entries=40)
    check("after `ip link set up`, answers are full again, as before the cut",
          again.shards.succeeded == 2 and [e.id for e in again.entries] == [e.id for e in full.entries], str(again.shards))
    note(f"full answers again {ms(back)} after the link came up, nothing restarted")


def cut_one_replica(client):
    """Scenario 1b: a replicated shard loses one replica's link: every answer stays complete."""
    print("== scenario 1b: cut the link to one of shard-0's replicas (ta-n2)", flush=True)
    deadline = SUGGEST_DEADLINE_MS / 1000
    address = f"{NODES[1]['ip']}:{NODE_PORT}"
    ip("link", "set", "ta-n2-h", "down")
    cut = time.monotonic()
    latencies, incomplete, down_after, polled = [], [], None, cut
    # Type until the coordinator has marked it down, and a while after.
    while time.monotonic() - cut < 1.0 or (down_after is None and time.monotonic() - cut < 10):
        answer, took = client.suggest("s")
        latencies.append(took)
        if answer.shards.succeeded != 2:
            incomplete.append(str(answer.shards))
        if down_after is None and time.monotonic() - polled > 0.05:
            polled = time.monotonic()
            down_after = None if client.replicas_up()[address] else polled - cut
    check("every answer stays complete while a replica is dark", not incomplete, f"{len(incomplete)} incomplete: {incomplete[:3]}")
    check(f"and within the deadline (+{LATE_SLACK_MS} ms)", max(latencies) < deadline + LATE_SLACK_MS / 1000,
          f"slowest {ms(max(latencies))}")
    check("the coordinator marks the dark replica down", down_after is not None)
    note(f"{len(latencies)} calls: p50 {ms(percentile(latencies, 50))}, p99 {ms(percentile(latencies, 99))}, "
         f"slowest {ms(max(latencies))}; ta-n2 marked down {ms(down_after or 0)} after the cut")
    ip("link", "set", "ta-n2-h", "up")
    back = wait_until("ta-n2 up again", lambda: all_up(client), timeout=15)
    note(f"ta-n2 up again in the coordinator's view {ms(back)} after the link came up")


def slow_replica(client, cluster, catalog):
    """Scenario 2: one replica of shard-0 gets 50 ms more round trip."""
    mode = "netem" if cluster.use_netem else "delay relay"
    print(f"== scenario 2: {ADDED_RTT_MS} ms more round trip to one of shard-0's replicas ({SLOW}, {mode})", flush=True)
    texts = keystrokes(catalog)
    wait_until("every replica up", lambda: all_up(client), timeout=15)

    def measure(count):
        latencies = []
        for i in range(count):
            answer, took = client.suggest(texts[i % len(texts)])
            if answer.shards.succeeded != 2:
                raise RuntimeError(f"an incomplete answer: {answer.shards}")
            latencies.append(took)
        return latencies

    def counts():
        text = client.metrics()
        return {"sent": metric(text, 'typeahead_coordinator_hedges_total{shard="shard-0",result="sent"}'),
                "won": metric(text, 'typeahead_coordinator_hedges_total{shard="shard-0",result="won"}'),
                "slow": node_suggest_calls(cluster.host(SLOW)), "fast": node_suggest_calls(cluster.host("ta-n2"))}

    measure(50)  # warm-up: connections, latency windows
    before = counts()
    healthy = measure(400)
    middle = counts()
    cluster.slow_down(True)
    try:
        # The delay is real: the slowed replica itself, called from here, answers 50 ms later.
        direct = direct_latency(client, cluster.address[SLOW])
        check(f"the slowed replica answers {ADDED_RTT_MS} ms later when called directly", direct >= ADDED_RTT_MS * 0.9 / 1000,
              ms(direct))
        slowed = measure(400)
        after = counts()
    finally:
        cluster.slow_down(False)
    h50, h99 = percentile(healthy, 50), percentile(healthy, 99)
    s50, s99 = percentile(slowed, 50), percentile(slowed, 99)
    sent, won = after["sent"] - middle["sent"], after["won"] - middle["won"]
    slow_share = (after["slow"] - middle["slow"]) / max(1, (after["slow"] - middle["slow"]) + (after["fast"] - middle["fast"]))
    healthy_share = (middle["slow"] - before["slow"]) / max(1, (middle["slow"] - before["slow"]) + (middle["fast"] - before["fast"]))
    note(f"healthy: p50 {ms(h50)}, p99 {ms(h99)}, max {ms(max(healthy))}; {SLOW} took {healthy_share:.0%} of shard-0's calls")
    note(f"slowed:  p50 {ms(s50)}, p99 {ms(s99)}, max {ms(max(slowed))}; {SLOW} took {slow_share:.0%} of shard-0's calls "
         f"(node-side count, hedges included); directly {ms(direct)}")
    note(f"hedges while slowed: {sent:.0f} sent, {won:.0f} won (healthy phase: {middle['sent'] - before['sent']:.0f} sent, "
         f"{middle['won'] - before['won']:.0f} won)")
    check(f"p99 with the slow replica stays below the {ADDED_RTT_MS} ms added", s99 < ADDED_RTT_MS / 1000,
          f"p99 {ms(s99)} (healthy {ms(h99)})")
    check("hedges won, or the slow replica stopped being chosen", won > 0 or slow_share < 0.1,
          f"{won:.0f} hedges won, {SLOW} took {slow_share:.0%}")


def direct_latency(client, address):
    """Median latency of a few suggests straight to a replica (the client-facing method every node serves)."""
    import grpc
    ta_grpc = sys.modules["typeahead.v1.typeahead_pb2_grpc"]
    with grpc.insecure_channel(address, options=[("grpc.enable_http_proxy", 0)]) as channel:
        stub = ta_grpc.TypeaheadStub(channel)
        stub.Suggest(client.ta.SuggestRequest(text="s"), timeout=WATCHDOG_S)
        latencies = []
        for _ in range(9):
            started = time.perf_counter()
            stub.Suggest(client.ta.SuggestRequest(text="s"), timeout=WATCHDOG_S)
            latencies.append(time.perf_counter() - started)
    return percentile(latencies, 50)


class Load:
    """Several clients typing at once (threads sharing one channel), recording every call."""

    def __init__(self, client, texts, workers=4):
        self.client, self.texts = client, texts
        self.calls = []  # (finished at, seconds, error or None, shards succeeded)
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self.work, args=(i,), daemon=True) for i in range(workers)]

    def work(self, worker):
        rng = random.Random(worker)
        while not self.stopping.is_set():
            text = rng.choice(self.texts)
            try:
                answer, took = self.client.suggest(text)
                record = (time.monotonic(), took, None, answer.shards.succeeded)
            except Exception as error:  # every failure is a finding here
                record = (time.monotonic(), 0.0, f"{type(error).__name__}: {getattr(error, 'details', lambda: error)()}", 0)
            with self.lock:
                self.calls.append(record)

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=WATCHDOG_S + 2)

    def since(self, start, end=float("inf")):
        with self.lock:
            return [c for c in self.calls if start <= c[0] < end]


def kill_replica(client, cluster, catalog):
    """Scenario 3: SIGKILL the busier replica of shard-0 under concurrent load, restart it."""
    print("== scenario 3: SIGKILL a replica of shard-0 under load from 4 concurrent clients", flush=True)
    wait_until("every replica up", lambda: all_up(client), timeout=15)
    texts = keystrokes(catalog)
    replicas = [h for h in NODES if h["shard"] == 0]
    def coordinator_counts():
        text = client.metrics()
        return (metric(text, 'typeahead_coordinator_shard_requests_total{shard="shard-0",outcome="error"}'),
                metric(text, 'typeahead_coordinator_failovers_total{shard="shard-0"}'))

    with Load(client, texts) as load:
        time.sleep(0.5)
        base = {h["name"]: node_suggest_calls(h) for h in replicas}
        time.sleep(1.0)
        used = {h["name"]: node_suggest_calls(h) - base[h["name"]] for h in replicas}
        victim = max(replicas, key=lambda h: used[h["name"]])
        errors_before, failovers_before = coordinator_counts()
        note(f"shard-0 calls in 1 s before the kill: {', '.join(f'{n} {c:.0f}' for n, c in used.items())}; killing {victim['name']}")
        killed = time.monotonic()
        cluster.processes.kill(victim["name"], signal.SIGKILL)
        address = cluster.address[victim["name"]]
        down = wait_until(f"{victim['name']} marked down", lambda: not client.replicas_up()[address], timeout=15)
        time.sleep(1.0)
        restarted = time.monotonic()
        cluster.start_node(victim)
        wait_until(f"{victim['name']} up again", lambda: client.replicas_up()[address], timeout=15)
        up = time.monotonic() - restarted
        # Liveness, generously bounded: a replica whose calls just failed is expensive in replica
        # choice (peak EWMA) until that decays (time constant 1 s), so the first calls on the new
        # process may take a few seconds on a busy machine.
        try:
            wait_until(f"calls on the restarted {victim['name']}", lambda: node_suggest_calls(victim) > 0, timeout=10)
            used_after = time.monotonic() - restarted
        except RuntimeError:
            used_after = None
        time.sleep(0.5)
        used_again = node_suggest_calls(victim)
    calls = load.since(0)
    errors = [c[2] for c in calls if c[2]]
    incomplete = [c for c in calls if not c[2] and c[3] != 2]
    around = load.since(killed, restarted)
    check("no client call failed", not errors, f"{len(errors)} of {len(calls)} failed: {errors[:3]}")
    check("no answer lost a shard", not incomplete, f"{len(incomplete)} incomplete")
    check(f"the restarted {victim['name']} is used again", used_after is not None, "no ShardSuggest call within 10 s")
    errors_after, failovers_after = coordinator_counts()
    latencies = [c[1] for c in around if not c[2]]
    note(f"{len(calls)} calls in all, {len(around)} between the kill and the restart: p50 {ms(percentile(latencies, 50))}, "
         f"p99 {ms(percentile(latencies, 99))}, slowest {ms(max(latencies) if latencies else 0)}")
    note(f"marked down {ms(down)} after the kill; {errors_after - errors_before:.0f} shard-0 calls failed at the coordinator, "
         f"{failovers_after - failovers_before:.0f} retried on the other replica (a failed "
         f"attempt whose hedge is out needs no retry); up again {ms(up)} after the restart; "
         f"first calls on the new process {ms(used_after or 0)} after the restart ({used_again:.0f} by the end)")


# MARK: Main

def main():
    signal.pthread_sigmask(signal.SIG_SETMASK, [])  # XCTest starts us from a thread that blocks SIGTERM
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that `finally` cleans up
    parser = argparse.ArgumentParser()
    parser.add_argument("--cleanup", action="store_true")
    parser.add_argument("--binary")
    parser.add_argument("--catalog")
    parser.add_argument("--proto-dir")
    parser.add_argument("--relay")
    parser.add_argument("--delay", choices=["auto", "netem", "relay"], default="auto")
    parser.add_argument("--keep-logs", action="store_true", help="print the logs even when every check passed")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("SKIP: needs root (network namespaces)")
        return 77
    if args.cleanup:
        cleanup()
        return 0
    for tool in ("ip", "tc", "curl"):
        if shutil.which(tool) is None:
            print(f"SKIP: {tool} is not installed")
            return 77

    started = time.monotonic()
    cleanup()  # what a killed earlier run left behind
    directory = tempfile.mkdtemp(prefix=TEMP_PREFIX)
    processes = Processes(directory)
    status = 1
    try:
        build_network()
        stubs = generate_stubs(args.proto_dir, directory)
        cluster = Cluster(args, directory, processes)
        cluster.start()
        client = Client(stubs)
        wait_until("every replica up", lambda: all_up(client), timeout=20)
        note(f"cluster up in {time.monotonic() - started:.1f} s: {', '.join(f'{h}={a}' for h, a in cluster.address.items())}, "
             f"coordinator {COORDINATOR['ip']}:{COORDINATOR['port']}")
        cut_only_replica(client, args.binary)
        cut_one_replica(client)
        slow_replica(client, cluster, args.catalog)
        kill_replica(client, cluster, args.catalog)
        status = 0 if not failures else 1
    except Skip as skip:
        print(f"SKIP: {skip}")
        status = 77
    except BaseException:
        traceback.print_exc()
        failures.append("exception")
        status = 1
    finally:
        if status == 1 or args.keep_logs:
            print(processes.logs(), flush=True)
        processes.stop_all()
        cleanup()
    if status == 0:
        print(f"PASSED in {time.monotonic() - started:.1f} s", flush=True)
    elif status == 1:
        print(f"FAILED: {', '.join(failures)}", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
