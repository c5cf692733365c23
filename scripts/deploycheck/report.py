"""What the checks found: one line per check, and the exit status.

Every check says `ok WHAT`, `FAIL WHAT: WHY` or `skip WHAT: WHY` on its own line, so a failing run
names each broken reference, and a test can look for one. A skip is a check whose tool is not
installed; with `require_tools` it counts as a failure instead (CI installs every tool, so a
missing one there means the check silently stopped checking).
"""
import sys


class Report:
    def __init__(self, require_tools=False, out=sys.stdout):
        self.require_tools = require_tools
        self.out = out
        self.failures = []
        self.passed = 0
        self.skipped = 0

    def ok(self, what):
        self.passed += 1
        print(f"ok {what}", file=self.out, flush=True)

    def fail(self, what, why):
        self.failures.append(what)
        print(f"FAIL {what}: {why}", file=self.out, flush=True)

    def check(self, condition, what, why):
        """ok if condition holds, else FAIL with why; returns condition."""
        if condition:
            self.ok(what)
        else:
            self.fail(what, why)
        return bool(condition)

    def skip(self, what, why):
        if self.require_tools:
            self.fail(what, f"{why} (and --require-tools was given)")
            return
        self.skipped += 1
        print(f"skip {what}: {why}", file=self.out, flush=True)

    def note(self, text):
        print(f"note {text}", file=self.out, flush=True)

    def summary(self):
        """The closing line; the exit status is 1 if anything failed."""
        # Not "N passed, N failed": CI reads a line of that shape as the whole suite's result.
        total = self.passed + len(self.failures)
        verdict = f"{len(self.failures)} of {total} checks FAILED" if self.failures else f"all {total} checks hold"
        print(f"check-deploy: {verdict}, {self.skipped} skipped", file=self.out, flush=True)
        return 1 if self.failures else 0
