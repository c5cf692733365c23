#!/usr/bin/env python3
"""Checks everything in deploy/ without Kubernetes, systemd or a container engine.

    python3 scripts/check-deploy.py [--binary .build/debug/typeahead] [--require-tools]

Prints one line per check (`ok ...`, `FAIL ...: why`, `skip ...: why`) and a closing line, and
exits 1 if any check failed. The DeployTests test target runs it on the real files (and on broken
copies, which must fail). What each part checks is described in scripts/deploycheck/:
kubernetes.py (deploy/k8s/), systemd.py (deploy/systemd/), container.py
(deploy/container/Containerfile).

Options:
  --binary PATH          the built typeahead: its --help tells which flags the manifests and
                         units may pass, and `ldd` of it which libraries the image needs
                         (default: .build/debug/typeahead or .build/release/typeahead if built)
  --require-tools        a check whose tool is missing (kubernetes-validate, systemd-analyze,
                         ldd/dpkg, the binary) fails instead of being skipped; CI passes this
  --only PARTS           k8s, systemd, container, comma-separated (default: all three)
  --k8s DIR, --systemd DIR, --containerfile FILE
                         check these instead of the repository's (for tests on broken copies)
  --no-schemas           skip the Kubernetes API schema validation (the slow part)
  --print-cluster-file   print the cluster file the coordinators' ConfigMap holds, and exit
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from deploycheck import container, kubernetes, systemd  # noqa: E402
from deploycheck.cli import CLI  # noqa: E402
from deploycheck.report import Report  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary")
    parser.add_argument("--require-tools", action="store_true")
    parser.add_argument("--only", default="k8s,systemd,container")
    parser.add_argument("--k8s", default=os.path.join(ROOT, "deploy/k8s"))
    parser.add_argument("--systemd", default=os.path.join(ROOT, "deploy/systemd"))
    parser.add_argument("--containerfile", default=os.path.join(ROOT, "deploy/container/Containerfile"))
    parser.add_argument("--no-schemas", action="store_true")
    parser.add_argument("--print-cluster-file", action="store_true")
    options = parser.parse_args()

    if options.print_cluster_file:
        sys.stdout.write(kubernetes.cluster_file_text(options.k8s))
        return 0

    binary = options.binary
    if binary is None:
        binary = next((p for p in (os.path.join(ROOT, ".build", c, "typeahead") for c in ("debug", "release")) if os.access(p, os.X_OK)), None)
    report = Report(require_tools=options.require_tools)
    if binary is None:
        report.skip("the typeahead binary", "not built and no --binary given: flags and libraries are not checked")
    elif not os.access(binary, os.X_OK):
        report.fail("the typeahead binary", f"{binary} is not an executable")
        binary = None
    cli = CLI(binary)
    parts = set(options.only.split(","))
    unknown = parts - {"k8s", "systemd", "container"}
    if unknown:
        parser.error(f"--only: unknown parts {sorted(unknown)}")
    if "k8s" in parts:
        kubernetes.check_all(options.k8s, report, cli, schemas=not options.no_schemas)
    if "systemd" in parts:
        systemd.check_all(options.systemd, report, cli)
    if "container" in parts:
        container.check_all(options.containerfile, ROOT, binary, report)
    return report.summary()


if __name__ == "__main__":
    sys.exit(main())
