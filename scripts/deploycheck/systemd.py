"""Checks of deploy/systemd/ without systemd running.

The unit files are read here (sections, repeated keys, line continuations) and checked for what
the deployment relies on: how the process starts (the binary, the subcommand, flags it accepts,
variables the environment files define), how it stops (SIGTERM, a stop timeout above the
servers' 10 s grace, restart on failure), its file-descriptor limit, and the hardening. Then, if
systemd-analyze is installed, `systemd-analyze verify` (unknown keys, bad values, specifiers) and
`systemd-analyze security --offline` (the exposure score must stay at or below
EXPOSURE_THRESHOLD) run on the units in a throwaway root, with a stub at /usr/local/bin/typeahead
since verify insists the binary exists. Any line verify prints about our units is a failure:
it exits 0 on "Unknown key ..., ignoring", which is exactly the mistake to catch.
"""
import glob
import os
import re
import shlex
import shutil
import subprocess
import tempfile

from .cli import check_flags

BINARY = "/usr/local/bin/typeahead"
SERVER_GRACE_SECONDS = 10
# The servers accept at most this many connections (RPCServer.Configuration.maximumConnections);
# LimitNOFILE must be above it, or the descriptor limit refuses connections first.
MAX_CONNECTIONS = 10_000
# systemd-analyze security's exposure, in tenths (15 = "1.5 OK" now): fail above 2.0.
EXPOSURE_THRESHOLD = 20
# Hardening every unit must have: key -> accepted values (None: any non-empty value).
HARDENING = {
    "NoNewPrivileges": {"yes", "true"},
    "ProtectSystem": {"strict"},
    "ProtectHome": {"yes", "true", "read-only", "tmpfs"},
    "PrivateTmp": {"yes", "true"},
    "MemoryDenyWriteExecute": {"yes", "true"},
    "RestrictNamespaces": {"yes", "true"},
    "LockPersonality": {"yes", "true"},
    "RestrictAddressFamilies": None,
}


def parse_unit(path):
    """{section: {key: [values in order]}} of a unit file (or an environment file's KEY=VALUE lines
    under section "")."""
    sections, section = {}, ""
    with open(path, encoding="utf-8") as handle:
        text = re.sub(r"\\\n", " ", handle.read())
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            sections.setdefault(section, {})
            continue
        key, _, value = line.partition("=")
        sections.setdefault(section, {}).setdefault(key.strip(), []).append(value.strip())
    return sections


def environment_assignments(values):
    """Environment= values ("A=1 B=2", "\"A=x y\"") as a dict."""
    result = {}
    for value in values:
        for word in shlex.split(value):
            key, _, assigned = word.partition("=")
            result[key] = assigned
    return result


def seconds(text):
    """A systemd time span ("20s", "1min 30s", "90") in seconds."""
    units = {"": 1, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "ms": 0.001}
    total = 0.0
    for number, unit in re.findall(r"([0-9.]+)\s*([a-z]*)", text):
        total += float(number) * units.get(unit, float("nan"))
    return total


def check_unit(path, directory, report, cli):
    name = os.path.basename(path)
    unit = parse_unit(path)
    service = unit.get("Service", {})
    last = lambda key: (service.get(key) or [None])[-1]
    report.check(unit.get("Unit", {}).get("Description"), f"{name}: has a Description", "missing [Unit] Description=")
    report.check("network-online.target" in " ".join(unit.get("Unit", {}).get("After", [])), f"{name}: starts after network-online.target",
                 "a --listen on a specific address needs the address configured")
    report.check(unit.get("Install", {}).get("WantedBy"), f"{name}: can be enabled", "missing [Install] WantedBy=")

    exec_start = shlex.split(last("ExecStart") or "")
    command = exec_start[1] if len(exec_start) > 1 else None
    expected = "node" if "@" in name else "coordinator"
    report.check(exec_start[:1] == [BINARY] and command == expected, f"{name}: ExecStart runs {BINARY} {expected}", f"ExecStart {exec_start}")

    # Stopping and restarting.
    report.check(last("KillSignal") == "SIGTERM", f"{name}: KillSignal=SIGTERM", f"KillSignal={last('KillSignal')}")
    stop = seconds(last("TimeoutStopSec") or "90s")
    report.check(stop > SERVER_GRACE_SECONDS, f"{name}: TimeoutStopSec {stop:g} s > the {SERVER_GRACE_SECONDS} s grace",
                 "SIGKILL would cut in-flight calls short")
    report.check(last("Restart") == "on-failure", f"{name}: Restart=on-failure", f"Restart={last('Restart')}")
    limit = last("LimitNOFILE") or "0"
    report.check(limit.isdigit() and int(limit) > MAX_CONNECTIONS, f"{name}: LimitNOFILE above {MAX_CONNECTIONS} connections",
                 f"LimitNOFILE={limit}")

    # Hardening.
    for key, accepted in HARDENING.items():
        value = last(key)
        report.check(value and (accepted is None or value in accepted), f"{name}: {key}={value}",
                     f"want {key}={'|'.join(sorted(accepted)) if accepted else 'something'}")
    report.check(service.get("CapabilityBoundingSet") and service["CapabilityBoundingSet"][-1] == "",
                 f"{name}: CapabilityBoundingSet empty", f"CapabilityBoundingSet={service.get('CapabilityBoundingSet')}")
    report.check("@system-service" in " ".join(service.get("SystemCallFilter", [])), f"{name}: SystemCallFilter=@system-service",
                 f"SystemCallFilter={service.get('SystemCallFilter')}")
    report.check(last("User") or last("DynamicUser") in ("yes", "true"), f"{name}: runs as a user of its own", "no User= or DynamicUser=yes")

    # Options: defaults in the unit, an environment file per instance, variables and flags.
    defaults = environment_assignments(service.get("Environment", []))
    environment_file = last("EnvironmentFile") or ""
    report.check(environment_file.startswith("/etc/typeahead/"), f"{name}: EnvironmentFile in /etc/typeahead, required",
                 f"EnvironmentFile={environment_file} (a leading '-' would make a missing file silently fall back to defaults)")
    pattern = os.path.basename(environment_file).replace("%i", "*")
    examples = sorted(glob.glob(os.path.join(directory, pattern)))
    if report.check(examples, f"{name}: an example {pattern} is beside it", f"no {pattern} in {directory}"):
        example = parse_unit(examples[0]).get("", {})
        variables = {key: values[-1] for key, values in example.items()}
        used = set(re.findall(r"\$\{?([A-Z_][A-Z0-9_]*)\}?", last("ExecStart") or ""))
        undefined = sorted(used - set(defaults) - set(variables))
        report.check(not undefined, f"{name}: every variable ExecStart uses has a value", f"undefined {undefined}")
        unused = sorted(set(variables) - used)
        report.check(not unused, f"{os.path.basename(examples[0])}: every variable is one ExecStart uses", f"unused (misspelt?) {unused}")
        options = shlex.split(variables.get("TYPEAHEAD_OPTIONS", defaults.get("TYPEAHEAD_OPTIONS", "")))
        check_flags(report, cli, expected, [a for a in exec_start[2:] if not a.startswith("$")] + options, name)
        instance = os.path.basename(examples[0])[len(pattern.split("*")[0]):-len(pattern.split("*")[-1])] if "*" in pattern else None
    else:
        instance = None

    # Credentials: a token flag naming %d/X needs LoadCredential=X:...
    credentials = {value.split(":", 1)[0] for value in service.get("LoadCredential", [])}
    for index, argument in enumerate(exec_start):
        if argument.startswith("%d/"):
            report.check(argument[3:] in credentials, f"{name}: {exec_start[index - 1]} {argument} is a loaded credential",
                         f"LoadCredential= names {sorted(credentials)}")

    if expected == "node":
        directory_argument = exec_start[exec_start.index("--dir") + 1] if "--dir" in exec_start else None
        report.check(directory_argument in service.get("ReadWritePaths", []), f"{name}: --dir {directory_argument} is in ReadWritePaths",
                     f"ReadWritePaths={service.get('ReadWritePaths')}: ProtectSystem=strict makes everything else read-only")
        report.check(directory_argument == "%S/" + (last("StateDirectory") or ""), f"{name}: --dir is the StateDirectory",
                     f"--dir {directory_argument}, StateDirectory={last('StateDirectory')}")
    dynamic = last("DynamicUser") in ("yes", "true")
    return name, instance, None if dynamic else last("User")


def check_sysusers(directory, users, report):
    declared = set()
    for path in glob.glob(os.path.join(directory, "*.sysusers.conf")):
        for line in open(path, encoding="utf-8"):
            words = shlex.split(line, comments=True)
            if len(words) >= 2 and words[0] == "u":
                declared.add(words[1])
    for user in users:
        report.check(user in declared, f"user {user} is declared in a *.sysusers.conf", f"declared: {sorted(declared)}")


def run_systemd_analyze(units, report):
    """verify and security --offline on the units, in a throwaway root."""
    tool = shutil.which("systemd-analyze")
    system_units = next((d for d in ("/usr/lib/systemd/system", "/lib/systemd/system") if os.path.isdir(d)), None)
    if tool is None or system_units is None:
        report.skip("systemd-analyze verify and security", "systemd-analyze is not installed (Debian package systemd)")
        return
    with tempfile.TemporaryDirectory(prefix="check-deploy-systemd-") as root:
        shutil.copytree(system_units, os.path.join(root, "usr/lib/systemd/system"), symlinks=True)
        os.makedirs(os.path.join(root, "etc/systemd/system"))
        stub = os.path.join(root, BINARY.lstrip("/"))
        os.makedirs(os.path.dirname(stub))
        with open(stub, "w") as handle:
            handle.write("#!/bin/sh\nexit 0\n")
        os.chmod(stub, 0o755)
        names = []
        for path, instance in units:
            shutil.copy(path, os.path.join(root, "etc/systemd/system"))
            base = os.path.basename(path)
            names.append(base.replace("@.", f"@{instance or 'example'}."))
        result = subprocess.run([tool, "verify", f"--root={root}", *names], capture_output=True, text=True, timeout=120)
        lines = [l for l in (result.stdout + result.stderr).splitlines() if l.strip()]
        ours = [l for l in lines if "typeahead" in l]
        for line in lines:
            if line not in ours:
                report.note(f"systemd-analyze verify (not about our units): {line}")
        report.check(result.returncode == 0 and not ours, f"systemd-analyze verify {' '.join(names)}", " | ".join(ours) or f"exit {result.returncode}")
        for unit in names:
            result = subprocess.run([tool, "security", "--offline=yes", f"--root={root}", f"--threshold={EXPOSURE_THRESHOLD}", unit],
                                    capture_output=True, text=True, timeout=120)
            overall = next((l for l in (result.stdout + result.stderr).splitlines() if "Overall exposure" in l), "no score printed")
            report.check(result.returncode == 0, f"systemd-analyze security {unit}: {overall.split(':')[-1].strip()}",
                         f"exposure above {EXPOSURE_THRESHOLD / 10:g}: {overall}")


def check_all(directory, report, cli):
    paths = sorted(glob.glob(os.path.join(directory, "*.service")))
    report.check(any("@" in os.path.basename(p) for p in paths) and any("@" not in os.path.basename(p) for p in paths),
                 "a node template unit and a coordinator unit exist", f"found {[os.path.basename(p) for p in paths]}")
    units, users = [], []
    for path in paths:
        name, instance, user = check_unit(path, directory, report, cli)
        units.append((path, instance))
        if user:  # a fixed account must be created; a DynamicUser= one is made by systemd
            users.append(user)
    check_sysusers(directory, users, report)
    run_systemd_analyze(units, report)
