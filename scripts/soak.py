#!/usr/bin/env python3
"""A soak run of a whole local cluster: `typeahead local` with replicas, `typeahead load` at a
fraction of the maximum it measured first, and meanwhile what operators do to a live cluster:
upsert and delete batches every few seconds, one replica killed with SIGKILL (the local
supervisor restarts it), one zero-downtime reindex of the catalog as it stands then. A sampler
reads every process's memory and descriptors from /proc. At the end it checks that

  * no request failed and no answer was partial outside the kill window (from the SIGKILL until
    the restarted replica answers, plus a few seconds for the coordinator's health check);
  * no process's anonymous memory (heap and stacks: RssAnon, where a leak shows) grew by more
    than --max-growth after the warm-up, nor its descriptors by more than a few;
  * the replicas of each shard agree (generation, entries), the cluster holds exactly the
    entries the run's upserts, deletes and reindex leave, and a sample of upserted entries is
    found by its title while every deleted one is gone.

Usage (scripts/soak.sh wraps it):  soak.py MINUTES --binary B [--catalog FILE] [--out DIR] ...
Writes DIR/soak.json (everything), DIR/samples.csv (one row per process per sample) and the
load tester's report (DIR/load/); prints a summary and exits 1 when a check failed.
Standard library only.
"""

import argparse
import csv
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request


def log(message):
    print(f"soak [{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------------------------
# /proc

def proc_cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def proc_sample(pid):
    """RSS, anonymous RSS (KiB), descriptors, threads and CPU seconds used so far (user plus
    system: a stall shows who burned the cores) of a process, or None once it is gone."""
    values = {}
    try:
        with open(f"/proc/{pid}/stat") as f:
            # The command name (field 2) may hold spaces: fields are counted after its ')'.
            fields = f.read().rpartition(")")[2].split()
        cpu_seconds = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "RssAnon", "RssFile", "Threads"):
                    values[key] = int(rest.split()[0])
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None
    return {"rss_kib": values.get("VmRSS", 0), "anon_kib": values.get("RssAnon", 0),
            "file_kib": values.get("RssFile", 0), "threads": values.get("Threads", 0), "fds": fds,
            "cpu_s": round(cpu_seconds, 2)}


def cluster_processes(data_dir):
    """name -> pid of the cluster's processes, found by their command lines (a restarted replica
    is found again under its new pid)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        argv = [a.decode(errors="replace") for a in proc_cmdline(int(entry))]
        if len(argv) < 2:
            continue
        if argv[1] == "node" and "--dir" in argv:
            directory = argv[argv.index("--dir") + 1]
            match = re.search(r"shard-(\d+)/replica-(\d+)$", directory)
            if match and directory.startswith(data_dir):
                found[f"node s{match.group(1)} r{match.group(2)}"] = int(entry)
        elif argv[1] == "coordinator" and "--cluster" in argv and argv[argv.index("--cluster") + 1].startswith(data_dir):
            found["coordinator"] = int(entry)
    return found


def trend(samples, end):
    """A process's anonymous memory growth over `samples` (those after its warm-up, up to `end`),
    as the least-squares line's rise from their first instant to `end` over its value there.

    Why a fitted line and not two windows: a node's anonymous memory swings by twice its size
    around every merge (a shard rebuilt in memory for seconds, about every minute under the soak's
    writes) and its answer cache refills after every write, so the medians of two one-minute
    windows move by ±10% with the phase those windows happen to catch. A leak is a slope: a line
    through every sample after the warm-up measures it, and the swings average out."""
    points = [(r["t"], r["anon_kib"]) for r in samples]
    if len(points) < 3:
        return 0.0
    n = len(points)
    mean_t = sum(t for t, _ in points) / n
    mean_a = sum(a for _, a in points) / n
    var = sum((t - mean_t) ** 2 for t, _ in points)
    if var == 0:
        return 0.0
    slope = sum((t - mean_t) * (a - mean_a) for t, a in points) / var
    start = mean_a + slope * (points[0][0] - mean_t)
    return round(slope * (end - points[0][0]) / max(1.0, start), 4)


class Sampler(threading.Thread):
    """Samples every cluster process (and the supervisor and the load tester) every `interval`."""

    def __init__(self, data_dir, interval, extra):
        super().__init__(daemon=True)
        self.data_dir, self.interval, self.extra = data_dir, interval, extra
        self.rows = []
        self.stopping = threading.Event()
        self.start_time = time.time()

    def run(self):
        while not self.stopping.is_set():
            now = time.time()
            processes = cluster_processes(self.data_dir)
            processes.update({name: pid() for name, pid in self.extra.items() if pid() is not None})
            addresses = self.addresses()
            for name, pid in sorted(processes.items()):
                sample = proc_sample(pid)
                if sample:
                    found = scrape(addresses[name], SCRAPED) if name in addresses else {}
                    self.rows.append({"t": round(now - self.start_time, 1), "process": name, "pid": pid, **sample,
                                      **{column: round(found[metric] / 1024) if metric in found else ""
                                         for column, metric in SCRAPED.items()}})
            self.stopping.wait(self.interval)

    def addresses(self):
        """Server name -> address (every node, and the coordinator), from the cluster file."""
        try:
            with open(os.path.join(self.data_dir, "cluster.json")) as f:
                cluster = json.load(f)
        except (OSError, ValueError):
            return {}
        found = {f"node s{shard} r{replica}": address
                 for shard, entry in enumerate(cluster["shards"]) for replica, address in enumerate(entry["replicas"])}
        if cluster.get("coordinators"):
            found["coordinator"] = cluster["coordinators"][0]
        return found


# The server series each sample records (KiB; the coordinator has only the heap), by column: the answer cache, the index's query
# caches (summed over caches) and the allocator's account, so that growing memory can be told
# apart: caches filling, live data (heap in use) or fragmentation (heap free).
SCRAPED = {"cache_kib": "typeahead_answer_cache_bytes", "index_caches_kib": "typeahead_index_cache_bytes",
           "heap_in_use_kib": 'typeahead_heap_bytes{state="in_use"}', "heap_free_kib": 'typeahead_heap_bytes{state="free"}'}


def scrape(address, metrics):
    """The values of `metrics` (column -> name or name{labels}) in a server's /metrics: a bare
    name sums its series. Those it lacks (or all, when it does not answer) are left out."""
    found = {}
    try:
        with urllib.request.urlopen(f"http://{address}/metrics", timeout=1) as response:
            lines = response.read().decode().splitlines()
    except OSError:
        return found
    wanted = set(metrics.values())
    for line in lines:
        if line.startswith("#") or " " not in line:
            continue
        series, value = line.rsplit(" ", 1)
        for key in (series, series.split("{", 1)[0]):
            if key in wanted:
                found[key] = found.get(key, 0.0) + float(value)
                break
    return found


# ---------------------------------------------------------------------------------------------
# The cluster and its tools

class Soak:
    def __init__(self, options):
        self.o = options
        self.binary = os.path.abspath(options.binary)
        self.out = os.path.abspath(options.out)
        os.makedirs(self.out, exist_ok=True)
        self.work = tempfile.mkdtemp(prefix="typeahead-soak-")
        self.data_dir = os.path.join(self.work, "cluster")
        self.random = random.Random(options.seed)
        self.events = []            # (t, kind, detail)
        self.failures = []          # check failures
        self.kinds = []             # their kinds (see fail)
        self.lock = threading.Lock()
        self.batches = threading.Lock()   # held for each update batch, and by a reindex's snapshot
        self.local = None
        self.load = None
        self.t0 = time.time()

    def fail(self, kind, message):
        """Records a failed check: "consistency" (what the cluster holds, operations that must
        succeed, processes that must come back, descriptors) or "load" (failed requests, partial
        answers, memory growth: figures a shared, noisy machine moves). `--gate` says which fail
        the run; the others are printed as findings."""
        with self.lock:
            self.failures.append(message)
            self.kinds.append(kind)

    def event(self, kind, detail=""):
        with self.lock:
            self.events.append({"t": round(time.time() - self.t0, 1), "unix": time.time(), "kind": kind, "detail": detail})
        log(f"{kind} {detail}")

    def run_tool(self, *args, timeout=600, check=True):
        result = subprocess.run([self.binary, *args], capture_output=True, text=True, timeout=timeout)
        if check and result.returncode != 0:
            raise RuntimeError(f"typeahead {' '.join(args[:4])}… exited {result.returncode}: {result.stderr.strip()[-600:]}")
        return result

    def admin(self, *args, timeout=600, check=True):
        return self.run_tool("admin", "--cluster", os.path.join(self.data_dir, "cluster.json"), *args, timeout=timeout, check=check)

    # The catalog as the run changes it: id -> JSON line.
    def load_catalog(self):
        self.catalog = {}
        with open(self.o.catalog, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    self.catalog[json.loads(line)["id"]] = line.rstrip("\n")
        self.ids = list(self.catalog)
        self.added = []             # ids the run inserted (deleted again later, some of them)
        self.deleted = set()
        self.touched = []           # (id, title) of upserted entries, to look for at the end

    def start_cluster(self):
        self.port = free_port()
        args = [self.binary, "local", "--shards", str(self.o.shards), "--replicas", str(self.o.replicas),
                "--catalog", self.o.catalog, "--data-dir", self.data_dir, "--listen", f"127.0.0.1:{self.port}"]
        self.local_log = open(os.path.join(self.out, "local.log"), "w")
        self.local = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.local_log, text=True)
        deadline = time.time() + 600
        for line in self.local.stdout:
            self.local_log.write(line)
            if line.strip().startswith("coordinator"):
                self.coordinator = line.split("http://")[1].strip()
                break
            if time.time() > deadline:
                break
        else:
            raise RuntimeError(f"typeahead local did not start (see {self.out}/local.log)")
        threading.Thread(target=self._drain, daemon=True).start()
        self.event("cluster", f"{self.o.shards} shards x {self.o.replicas} replicas, coordinator {self.coordinator}")

    def _drain(self):
        for line in self.local.stdout:
            self.local_log.write(line)
            self.local_log.flush()

    def measure_maximum(self):
        result = self.run_tool("load", "--target", self.coordinator, "--catalog", self.o.catalog, "--max",
                               "--duration", str(self.o.max_seconds), "--connections", str(self.o.connections),
                               "--json", "--quiet", "--seed", str(self.o.seed), timeout=self.o.max_seconds + 120)
        report = json.loads(result.stdout)
        self.maximum = report["requests"]["perSecond"]
        if report["requests"]["failed"]:
            self.fail("load", f"the maximum's closed-loop run had {report['requests']['failed']} failed requests")
        self.event("maximum", f"{self.maximum:.0f} requests/s closed loop ({self.o.max_seconds} s, {self.o.connections} connections)")

    def start_load(self):
        rate = round(self.maximum * self.o.fraction, 1)
        self.load_seconds = self.o.minutes * 60
        self.load = subprocess.Popen(
            [self.binary, "load", "--target", self.coordinator, "--catalog", self.o.catalog, "--request-rate", str(rate),
             "--duration", str(self.load_seconds), "--graceful-stop", "5", "--connections", str(self.o.connections),
             "--report", os.path.join(self.out, "load"), "--json", "--quiet", "--seed", str(self.o.seed)],
            stdout=subprocess.PIPE, stderr=open(os.path.join(self.out, "load.log"), "w"), text=True)
        self.load_started = time.time()
        self.event("load", f"{rate} requests/s open loop ({self.o.fraction:.0%} of the maximum) for {self.load_seconds} s")

    # --- what operators do meanwhile ------------------------------------------------------------

    def upsert_batch(self, number):
        """Replaces `--batch` entries (weight and title changed) and inserts a few new ones; deletes
        some inserted earlier."""
        lines, touched = [], []
        for entry_id in self.random.sample(self.ids, min(self.o.batch, len(self.ids))):
            entry = json.loads(self.catalog[entry_id])
            entry["weight"] = self.random.randint(1, 10_000)
            entry["title"] = f"{entry['title']} soak{number}"
            lines.append(json.dumps(entry, ensure_ascii=False))
            touched.append((entry_id, entry["title"]))
        for index in range(max(1, self.o.batch // 4)):
            entry_id = f"soak-{number}-{index}"
            entry = {"id": entry_id, "title": f"soakentry {number} {index} {self.random.choice(['alpha', 'beta', 'gamma'])}",
                     "category": "soak", "weight": self.random.randint(1, 1000)}
            lines.append(json.dumps(entry))
            touched.append((entry_id, entry["title"]))
        path = os.path.join(self.work, f"upsert-{number}.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        deletes = []
        if len(self.added) > 10:
            deletes = [self.added.pop(self.random.randrange(len(self.added))) for _ in range(max(1, self.o.batch // 8))]
        return path, lines, touched, deletes

    def apply_with_retries(self, what, *args):
        """Runs an admin update until it succeeds (rerunning is safe: replicas that took it
        already take it again). Returns the attempts it needed."""
        for attempt in range(1, 121):
            result = self.admin(*args, check=False, timeout=300)
            if result.returncode == 0:
                return attempt
            self.event("retry", f"{what}: {result.stderr.strip().splitlines()[-1] if result.stderr.strip() else result.returncode}")
            time.sleep(1)
        raise RuntimeError(f"{what} never succeeded")

    def updater(self, stop):
        number = 0
        while not stop.wait(self.o.upsert_every):
            number += 1
            with self.batches:
                self.apply_batch(number)

    def apply_batch(self, number):
        path, lines, touched, deletes = self.upsert_batch(number)
        attempts = self.apply_with_retries(f"upsert batch {number}", "upsert", path)
        with self.lock:
            for line in lines:
                entry_id = json.loads(line)["id"]
                if entry_id not in self.catalog:
                    self.added.append(entry_id)
                self.catalog[entry_id] = line
                self.id_titles[entry_id] = json.loads(line)["title"]
            self.touched.extend(touched)
        if deletes:
            self.apply_with_retries(f"delete batch {number}", "delete", *deletes)
            with self.lock:
                for entry_id in deletes:
                    self.catalog.pop(entry_id, None)
                    self.deleted.add(entry_id)
                self.touched = [(i, t) for i, t in self.touched if i not in self.deleted]
        with self.lock:
            self.upserts = number
        if attempts > 1:
            self.event("upsert", f"batch {number} took {attempts} attempts")

    def kill_replica(self):
        name = f"node s0 r{self.o.replicas - 1}"
        old = cluster_processes(self.data_dir).get(name)
        if old is None:
            self.fail("consistency", f"{name} was not running when it was to be killed")
            return
        os.kill(old, signal.SIGKILL)
        self.kill_at = time.time()
        self.event("kill", f"SIGKILL {name} (pid {old})")
        while time.time() - self.kill_at < 120:
            pid = cluster_processes(self.data_dir).get(name)
            if pid and pid != old and self.replica_answers(0, self.o.replicas - 1):
                break
            time.sleep(0.2)
        else:
            self.fail("consistency", f"{name} did not come back within 120 s")
        self.back_at = time.time()
        self.event("restarted", f"{name} answers again after {self.back_at - self.kill_at:.1f} s")

    def replica_answers(self, shard, replica):
        with open(os.path.join(self.data_dir, "cluster.json")) as f:
            cluster = json.load(f)
        address = cluster["shards"][shard]["replicas"][replica]
        try:
            with urllib.request.urlopen(f"http://{address}/readyz", timeout=1) as response:
                return response.status == 200
        except OSError:
            return False

    def reindex(self):
        """A reindex from the catalog as the run's changes left it. The snapshot must not miss a
        change: batches are held back from the snapshot until every replica has begun its upload
        (from then on each logs every write and carries it into the new generation)."""
        with self.batches:
            with self.lock:
                lines = list(self.catalog.values())
            path = os.path.join(self.work, "reindex.jsonl")
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            self.event("reindex", f"started ({len(lines)} entries)")
            started = time.time()
            process = subprocess.Popen([self.binary, "admin", "--cluster", os.path.join(self.data_dir, "cluster.json"),
                                        "reindex", "--catalog", path, "--progress", "plain"],
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            while process.poll() is None and time.time() - started < 300 and not self.uploads_begun():
                time.sleep(0.05)
        output, _ = process.communicate(timeout=1800)
        self.reindex_seconds = time.time() - started
        if process.returncode != 0:
            raise RuntimeError(f"reindex exited {process.returncode}: {output.strip()[-600:]}")
        self.event("reindex", f"done in {self.reindex_seconds:.1f} s")

    def uploads_begun(self):
        """Whether every replica has an upload in progress or a generation above its current one."""
        status = json.loads(self.admin("status", "--json", check=False).stdout or "{}")
        replicas = status.get("replicas", [])
        return bool(replicas) and all(
            r.get("upload") or any(g["number"] > r.get("currentGeneration", 0) for g in r.get("generations", [])) for r in replicas)

    # --- the end --------------------------------------------------------------------------------

    def check_consistency(self):
        status = json.loads(self.admin("status", "--json", check=False).stdout or "{}")
        by_shard = {}
        for replica in status.get("replicas", []):
            if not replica.get("reachable"):
                self.fail("consistency", f"{replica['shard']} {replica['address']} unreachable at the end")
            by_shard.setdefault(replica["shard"], []).append(replica)
        total = 0
        for shard, replicas in sorted(by_shard.items()):
            states = {(r.get("currentGeneration"), r.get("entries")) for r in replicas}
            if len(states) != 1:
                self.fail("consistency", f"{shard}: replicas disagree (generation, entries): {sorted(states, key=str)}")
            total += int(replicas[0].get("entries") or 0)
        expected = len(self.catalog)
        if total != expected:
            self.fail("consistency", f"the cluster holds {total} entries, the run's changes leave {expected}")
        self.consistency = {"entries": total, "expected": expected, "shards": len(by_shard)}

        found = missing = 0
        sample = self.random.sample(self.touched, min(50, len(self.touched)))
        for entry_id, title in sample:
            if entry_id in self.search_ids(title):
                found += 1
            else:
                missing += 1
        if missing:
            self.fail("consistency", f"{missing} of {len(sample)} upserted entries not found by their titles")
        resurrected = [i for i in self.random.sample(sorted(self.deleted), min(50, len(self.deleted)))
                       if i in self.search_ids(self.id_titles.get(i, i))]
        if resurrected:
            self.fail("consistency", f"deleted entries still found: {resurrected[:5]}")
        self.consistency.update({"upsertedFound": found, "upsertedSampled": len(sample), "deletedSampled": min(50, len(self.deleted)),
                                 "deletedFound": len(resurrected)})

    def search_ids(self, text):
        query = urllib.parse.urlencode({"q": text, "pageSize": "50"})
        with urllib.request.urlopen(f"http://{self.coordinator}/v1/search?{query}", timeout=10) as response:
            return {hit["id"] for hit in json.load(response).get("hits", [])}

    def analyse_load(self, report):
        window_start = report["windowStartUnixSeconds"]
        kill_from = getattr(self, "kill_at", None)
        kill_to = getattr(self, "back_at", None)
        inside = {"failed": 0, "partial": 0}
        outside = {"failed": 0, "partial": 0}
        for second in report["timeline"]:
            t = window_start + second["second"]
            in_window = kill_from is not None and kill_from - 1 <= t <= kill_to + self.o.kill_grace
            bucket = inside if in_window else outside
            bucket["failed"] += second["failed"]
            bucket["partial"] += second.get("partial", 0)
        if outside["failed"]:
            self.fail("load", f"{outside['failed']} requests failed outside the kill window: "
                                 + ", ".join(f"{s['status']} ×{s['count']}" for s in report["requests"]["byStatus"]
                                             if s["status"] not in ("OK", "CANCELLED (superseded)")))
        if outside["partial"]:
            self.fail("load", f"{outside['partial']} partial answers outside the kill window")
        return inside, outside

    def warmup_seconds(self, rows):
        """When the warm-up ends (seconds since the start): a fifth of the load after it began (at
        least 30 s, at most 5 min). The answer caches fill within seconds and a write empties
        them (their entries name the data version), so they set no longer warm-up of their own."""
        return self.load_started - self.t0 + self.warmup_length()

    def warmup_length(self):
        return min(300, max(30, 0.2 * self.load_seconds))

    def judging_window(self):
        """How long the two windows are whose medians growth compares: a minute (a tenth of a
        short run). One sample would judge a moment: a merge (seconds of ~150 MiB of heap, given
        back when it ends) or a cache just emptied by a write."""
        return max(10, min(60, 0.1 * self.load_seconds))

    def analyse_samples(self, rows):
        """Per process: anonymous memory (the median over a window) and descriptors at the end of
        the warm-up against the end of the load. A process restarted during the run (the killed
        replica) warms up again from its restart, and is judged if enough of the run is left."""
        warmup = self.warmup_seconds(rows)
        self.warmup_at = warmup
        end = self.load_end - self.t0
        window = self.judging_window()
        growth = {}

        def median(values):
            ordered = sorted(values)
            return ordered[len(ordered) // 2] if ordered else None

        for name in sorted({r["process"] for r in rows}):
            series = [r for r in rows if r["process"] == name]
            life = [r for r in series if r["pid"] == series[-1]["pid"]]   # the last instance
            entry = {"pids": len({r["pid"] for r in series}), "samples": len(series),
                     "peakRssKiB": max(r["rss_kib"] for r in series), "peakAnonKiB": max(r["anon_kib"] for r in series)}
            own = warmup if entry["pids"] == 1 else max(warmup, life[0]["t"] + self.warmup_length())
            first = [r for r in life if own <= r["t"] < own + window]
            final = [r for r in life if end - window < r["t"] <= end] or life[-1:]
            # Judged when its warm-up left at least a quarter of the load to watch.
            judged = name != "load" and bool(first) and own <= end - 0.25 * self.load_seconds
            if not first:
                entry["note"] = "no sample after the warm-up"
            elif not judged:
                entry["note"] = "restarted: too little time after its own warm-up" if entry["pids"] > 1 else "the load tester: not judged"
            if first:
                baseline, last = first[0], final[-1]
                after = [r for r in life if r["t"] >= own]

                def pair(key):
                    values = [median(r[key] for r in part if r.get(key, "") != "") for part in (first, final)]
                    return ["" if v is None else v for v in values]
                anon, rss = pair("anon_kib"), pair("rss_kib")
                entry.update({"baselineAt": baseline["t"], "endAt": last["t"], "windowSeconds": window,
                              "rssKiB": rss, "anonKiB": anon,
                              "fds": [baseline["fds"], last["fds"]], "maxFdsAfterWarmup": max(r["fds"] for r in after),
                              "threads": [baseline["threads"], last["threads"]],
                              "answerCacheKiB": pair("cache_kib"), "indexCachesKiB": pair("index_caches_kib"),
                              "heapInUseKiB": pair("heap_in_use_kib"), "heapFreeKiB": pair("heap_free_kib"),
                              "anonGrowth": round((anon[1] - anon[0]) / max(1, anon[0]), 4),
                              "rssGrowth": round((rss[1] - rss[0]) / max(1, rss[0]), 4),
                              "anonTrend": trend([r for r in after if r["t"] <= end], end)})
                if judged and entry["anonTrend"] > self.o.max_growth:
                    self.fail("load", f"{name}: anonymous memory grew {entry['anonTrend']:.1%} after the warm-up (the "
                                         f"trend fitted to {len(after)} samples; medians of {window:.0f} s: "
                                         f"{anon[0]} -> {anon[1]} KiB)")
                if judged and last["fds"] > baseline["fds"] + self.o.fd_slack:
                    self.fail("consistency", f"{name}: descriptors {baseline['fds']} -> {last['fds']} after the warm-up")
            entry["judged"] = judged
            growth[name] = entry
        return growth

    def run(self):
        self.load_catalog()
        self.id_titles = {i: json.loads(line)["title"] for i, line in self.catalog.items()}
        self.start_cluster()
        # The maximum is measured under the run's own writes: every batch empties the nodes'
        # version-keyed caches and merges rebuild shards, so a maximum measured without them (all
        # answers from warm caches) overstates what the cluster sustains while operators work on
        # it. 70% of that overstated figure kept the nodes saturated (17 ms mean shard latency).
        stop = threading.Event()
        updater = threading.Thread(target=self.guard(self.updater), args=(stop,), daemon=True)
        updater.start()
        self.measure_maximum()
        sampler = Sampler(self.data_dir, self.o.sample_every,
                          {"local (supervisor)": lambda: self.local.pid if self.local and self.local.poll() is None else None,
                           "load": lambda: self.load.pid if self.load and self.load.poll() is None else None})
        sampler.start_time = self.t0
        sampler.start()
        self.start_load()
        total = self.load_seconds
        schedule = [(0.35, self.kill_replica), (0.6, self.reindex)]
        for fraction, action in schedule:
            delay = self.load_started + fraction * total - time.time()
            if delay > 0:
                time.sleep(delay)
            self.guard(action)()
        stdout, _ = self.load.communicate()
        self.load_end = time.time()
        stop.set()
        updater.join(timeout=600)
        report = json.loads(stdout)
        time.sleep(1)
        self.check_consistency()
        sampler.stopping.set()
        sampler.join()
        inside, outside = self.analyse_load(report)
        growth = self.analyse_samples(sampler.rows)
        with open(os.path.join(self.out, "samples.csv"), "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=["t", "process", "pid", "rss_kib", "anon_kib", "file_kib", "threads", "fds", "cpu_s", *SCRAPED])
            writer.writeheader()
            writer.writerows(sampler.rows)
        result = {"minutes": self.o.minutes, "catalog": self.o.catalog, "entries": len(self.ids), "shards": self.o.shards,
                  "replicas": self.o.replicas, "maximumRequestsPerSecond": self.maximum, "fraction": self.o.fraction,
                  "load": {"requestsPerSecond": report["requests"]["perSecond"], "sent": report["requests"]["sent"],
                           "answered": report["requests"]["answered"], "superseded": report["requests"]["superseded"],
                           "failed": report["requests"]["failed"], "partial": report["requests"]["partial"],
                           "byStatus": report["requests"]["byStatus"],
                           "suggestLatencyMs": report["suggest"]["latency"], "connections": report["connections"]},
                  "killWindow": {"inside": inside, "outside": outside}, "upsertBatches": getattr(self, "upserts", 0),
                  "reindexSeconds": getattr(self, "reindex_seconds", None), "consistency": self.consistency,
                  "warmupEndsAt": self.warmup_at, "processes": growth, "events": self.events, "failures": self.failures}
        with open(os.path.join(self.out, "soak.json"), "w") as f:
            json.dump(result, f, indent=2)
        self.print_summary(result)
        return 0 if not self.gated() else 1

    def gated(self):
        return [f for f, k in zip(self.failures, self.kinds) if self.o.gate == "all" or k == self.o.gate]

    def guard(self, action):
        def run(*args):
            try:
                action(*args)
            except Exception as error:  # a step that fails is a finding, not a crash of the soak
                self.fail("consistency", f"{action.__name__}: {error}")
                self.event("error", f"{action.__name__}: {error}")
        return run

    def print_summary(self, r):
        load = r["load"]
        latency = load["suggestLatencyMs"]
        lines = [
            f"soak: {r['minutes']} min, {r['shards']} shards x {r['replicas']} replicas, {r['entries']} entries ({r['catalog']})",
            f"  load        {load['requestsPerSecond']} requests/s open loop = {r['fraction']:.0%} of {r['maximumRequestsPerSecond']:.0f} measured closed loop",
            f"  requests    {load['sent']} sent, {load['answered']} answered, {load['superseded']} superseded, "
            f"{load['failed']} failed, {load['partial']} partial",
            f"  outside the kill window: {r['killWindow']['outside']['failed']} failed, {r['killWindow']['outside']['partial']} partial;"
            f" inside it: {r['killWindow']['inside']['failed']} failed, {r['killWindow']['inside']['partial']} partial",
            "  suggest latency  " + "  ".join(f"{k} {v}" for k, v in latency.items() if k in ("p50", "p90", "p99", "p999", "max")),
            f"  operations  {r['upsertBatches']} upsert/delete batches, 1 SIGKILL, reindex in {r['reindexSeconds'] or 0:.1f} s; "
            f"entries at the end {r['consistency']['entries']} (expected {r['consistency']['expected']}), "
            f"upserted found {r['consistency']['upsertedFound']}/{r['consistency']['upsertedSampled']}, "
            f"deleted found {r['consistency']['deletedFound']}/{r['consistency']['deletedSampled']}",
            f"  warm-up     until {r['warmupEndsAt']:.0f} s (load from {self.load_started - self.t0:.0f} s); memory: medians "
            f"of the {self.judging_window():.0f} s after it and of the last {self.judging_window():.0f} s, and the growth of the line "
            f"fitted to every sample after it (judged, --max-growth {self.o.max_growth:.0%})",
            "  process               RSS MiB (warm-up -> end, peak)   anon MiB (warm-up -> end)  growth (fitted)  fds      threads",
        ]
        for name, p in r["processes"].items():
            if "rssKiB" not in p:
                lines.append(f"  {name:<21} {p.get('note', '')}")
                continue
            mib = lambda k: k / 1024
            lines.append(f"  {name:<21} {mib(p['rssKiB'][0]):7.1f} -> {mib(p['rssKiB'][1]):7.1f} ({mib(p['peakRssKiB']):7.1f})"
                         f"      {mib(p['anonKiB'][0]):7.1f} -> {mib(p['anonKiB'][1]):7.1f}   {p['anonGrowth']:+7.1%} ({p['anonTrend']:+6.1%})"
                         f"  {p['fds'][0]:>3} -> {p['fds'][1]:<3} {p['threads'][0]:>3} -> {p['threads'][1]:<3}"
                         + (f"  answers {p['answerCacheKiB'][1] / 1024:.1f} MiB" if p["answerCacheKiB"][1] != "" else "")
                         + (f"  index caches {p['indexCachesKiB'][1] / 1024:.1f} MiB" if p["indexCachesKiB"][1] != "" else "")
                         + (f"  heap in use {mib(p['heapInUseKiB'][0]):.1f} -> {mib(p['heapInUseKiB'][1]):.1f}, free "
                            f"{mib(p['heapFreeKiB'][0]):.1f} -> {mib(p['heapFreeKiB'][1]):.1f} MiB"
                            if "" not in (p["heapInUseKiB"] + p["heapFreeKiB"]) else "")
                         + ("" if p["judged"] else f"  ({p.get('note', 'not judged')})"))
        gated = self.gated()
        lines.append(f"  verdict     {'PASS' if not gated else 'FAIL'} (gating: {self.o.gate} checks)")
        lines += [f"    - {failure}" for failure in gated]
        findings = [f for f in r["failures"] if f not in gated]
        if findings:
            lines.append("  findings    (checks outside --gate: reported, not failing the run)")
            lines += [f"    - {failure}" for failure in findings]
        lines.append(f"  written     {self.out}/soak.json, samples.csv, load/")
        print("\n".join(lines), flush=True)

    def close(self):
        for process in (self.load, self.local):
            if process and process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    process.kill()
        # The processes' own logs are the first thing to read after a failed check.
        subprocess.run(["cp", "-r", os.path.join(self.data_dir, "logs"), os.path.join(self.out, "logs")], check=False)
        subprocess.run(["rm", "-rf", self.work])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("minutes", type=float)
    parser.add_argument("--binary", required=True)
    parser.add_argument("--catalog", default="deploy/catalog/sample.jsonl")
    parser.add_argument("--out", default="soak-report")
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--fraction", type=float, default=0.7, help="open-loop rate as a fraction of the measured maximum")
    parser.add_argument("--max-seconds", type=int, default=None,
                        help="length of the closed-loop run that measures the maximum (default: a tenth of the run, "
                             "10 to 30 s, so that it spans a few update batches)")
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--upsert-every", type=float, default=10.0, help="seconds between upsert/delete batches")
    parser.add_argument("--batch", type=int, default=40, help="entries replaced per batch (a quarter as many inserted)")
    parser.add_argument("--sample-every", type=float, default=2.0)
    parser.add_argument("--kill-grace", type=float, default=5.0, help="seconds after the restarted replica answers still in the kill window")
    parser.add_argument("--max-growth", type=float, default=0.10)
    parser.add_argument("--fd-slack", type=int, default=8)
    parser.add_argument("--seed", type=int, default=20261202)
    parser.add_argument("--gate", choices=["all", "consistency"], default="all",
                        help="which failed checks fail the run: all (by hand), or consistency only (CI: the load "
                             "figures of a 2-minute debug run on a shared machine are reported, not asserted)")
    options = parser.parse_args()
    if options.max_seconds is None:
        options.max_seconds = int(min(30, max(10, options.minutes * 6)))
    if options.replicas < 2:
        parser.error("--replicas must be at least 2 (a replica is killed)")
    soak = Soak(options)
    try:
        return soak.run()
    finally:
        soak.close()


if __name__ == "__main__":
    sys.exit(main())
