"""How the node's Python test clients report: one line per check ("ok …" or "FAIL …: detail"),
then a closing line with PASSED (what NodeTests looks for) or the failed checks."""

failures = []


def check(name, condition, detail=""):
    if condition:
        print(f"ok {name}", flush=True)
    else:
        print(f"FAIL {name}: {detail}", flush=True)
        failures.append(name)


def finish():
    """Prints the closing line; the process's exit status (1 if any check failed)."""
    print(f"{'FAILED' if failures else 'PASSED'}: {len(failures)} failure(s) {failures}", flush=True)
    return 1 if failures else 0
