"""The typeahead command line, as the built binary describes it, and how deployments call it.

Unit files and manifests pass flags to `typeahead node` / `typeahead coordinator`; a misspelt
flag is only found when the process refuses to start. Checking each flag against the
subcommand's own `--help` (the usage text is written next to the argument parser, see
Sources/typeahead/*Command.swift) finds it here instead.
"""
import re
import subprocess

# Flags whose value is a file or directory the process reads (or, for --dir, writes).
PATH_FLAGS = ("--dir", "--cluster", "--admin-token-file", "--token-file", "--read-token-file", "--node-token-file")


class CLI:
    """`typeahead SUBCOMMAND --help`, read once per subcommand. No binary: nothing is known."""

    def __init__(self, binary):
        self.binary = binary
        self._flags = {}

    def flags(self, subcommand):
        """The set of --flags the subcommand accepts, or None without a binary."""
        if self.binary is None:
            return None
        if subcommand not in self._flags:
            result = subprocess.run([self.binary, subcommand, "--help"], capture_output=True, text=True, timeout=60)
            if result.returncode != 0:
                raise RuntimeError(f"{self.binary} {subcommand} --help exited {result.returncode}: {result.stderr.strip()}")
            self._flags[subcommand] = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", result.stdout))
        return self._flags[subcommand]


def flags_in(arguments):
    """The --flags among an argument list (values are not flags)."""
    return [a.split("=", 1)[0] for a in arguments if a.startswith("--")]


def path_arguments(arguments):
    """(flag, value) for each flag of PATH_FLAGS in an argument list."""
    found = []
    for index, argument in enumerate(arguments):
        if argument in PATH_FLAGS and index + 1 < len(arguments):
            found.append((argument, arguments[index + 1]))
    return found


def check_flags(report, cli, subcommand, arguments, where):
    """Every flag in `arguments` is one `typeahead SUBCOMMAND` accepts."""
    known = cli.flags(subcommand)
    if known is None:
        report.skip(f"{where}: flags of typeahead {subcommand}", "no typeahead binary given (--binary)")
        return
    unknown = [flag for flag in flags_in(arguments) if flag not in known]
    report.check(not unknown, f"{where}: every flag is one `typeahead {subcommand}` accepts",
                 f"unknown {', '.join(unknown)} (known: {', '.join(sorted(known))})")
