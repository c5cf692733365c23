"""Checks of deploy/container/Containerfile without a container engine.

What a build would only find late (or a running container only at its first start):
- the stages: a Swift build stage and a runtime stage on the same Debian release (a binary
  needs the sonames and glibc of the system it was built on), the build image on the toolchain
  the tests ran with, a release build of the typeahead product with the Swift runtime linked in;
- the build stage installs every C library scripts/setup.sh installs (the -dev packages and
  pkg-config), so adding a library to the project and forgetting the image fails here;
- every COPY source exists in the build context and is not excluded by .dockerignore, and every
  COPY --from source is written by that stage;
- the runtime stage runs as a non-root user, exposes 7700 and 7701, has no HEALTHCHECK, and its
  ENTRYPOINT is the binary it copied;
- every shared library the built binary links (`ldd`) is either Swift's own runtime, which
  --static-swift-stdlib links in, or a file of a Debian package (`dpkg -S`) that the runtime
  stage installs or that the base image has.
"""
import fnmatch
import json
import os
import re
import shlex
import shutil
import subprocess

# Packages of Priority "required" in debian:*-slim: present without being installed.
BASE_PACKAGES = {"libc6", "libgcc-s1"}


def parse(path):
    """[(stage name, base image, [(INSTRUCTION, arguments)])] of a Dockerfile-syntax file."""
    with open(path, encoding="utf-8") as handle:
        lines = [l for l in handle.read().splitlines() if not l.lstrip().startswith("#")]
    text = re.sub(r"\\\n", " ", "\n".join(lines))
    stages = []
    for line in text.splitlines():
        if not line.strip():
            continue
        instruction, _, arguments = line.strip().partition(" ")
        instruction, arguments = instruction.upper(), arguments.strip()
        if instruction == "FROM":
            words = arguments.split()
            name = words[2] if len(words) >= 3 and words[1].upper() == "AS" else str(len(stages))
            stages.append((name, words[0], []))
        elif stages:
            stages[-1][2].append((instruction, arguments))
    return stages


def installed_packages(instructions):
    """The packages `apt-get install` names in a stage's RUN instructions."""
    packages = set()
    for instruction, arguments in instructions:
        if instruction != "RUN":
            continue
        for command in re.split(r"&&|;|\|\|", arguments):
            words = command.split()
            if "apt-get" in words and "install" in words:
                packages |= {w for w in words[words.index("install") + 1:] if not w.startswith("-")}
    return packages


def setup_packages(root):
    """The C libraries' -dev packages and pkg-config from scripts/setup.sh's packages=( ... )."""
    with open(os.path.join(root, "scripts/setup.sh"), encoding="utf-8") as handle:
        # Comments first: they may hold parentheses ("(Storage module)").
        text = "\n".join(line.split("#", 1)[0] for line in handle.read().splitlines())
    words = re.search(r"packages=\((.*?)\)", text, re.S).group(1).split()
    return {w for w in words if (w.startswith("lib") and w.endswith("-dev")) or w == "pkg-config"}


def ignored(root, source):
    """Whether .dockerignore keeps `source` (or a folder above it) out of the build context."""
    path = os.path.join(root, ".dockerignore")
    if not os.path.isfile(path):
        return False
    patterns = [l.strip().rstrip("/") for l in open(path, encoding="utf-8") if l.strip() and not l.startswith("#")]
    parts = os.path.normpath(source).split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    return any(fnmatch.fnmatch(p, pattern) or fnmatch.fnmatch(p, pattern.removeprefix("**/")) or
               fnmatch.fnmatch(os.path.basename(p), pattern.removeprefix("**/")) for p in prefixes for pattern in patterns)


def codename(image):
    """"bookworm" of debian:bookworm-slim or swift:6.3-bookworm; None if the tag names none."""
    tag = image.split(":", 1)[1] if ":" in image else ""
    match = re.search(r"(?:^|-)(bookworm|trixie|bullseye|forky)(?:-|$)", tag)
    return match.group(1) if match else None


def check_stages(path, root, report):
    stages = parse(path)
    name = os.path.basename(path)
    if not report.check(len(stages) >= 2, f"{name}: a build stage and a runtime stage", f"found {len(stages)} stages"):
        return None
    (build_name, build_image, build), (_, runtime_image, runtime) = stages[0], stages[-1]
    report.check(build_image.startswith("swift:") and runtime_image.startswith("debian:") and runtime_image.endswith("-slim"),
                 f"{name}: builds on swift:, runs on debian:*-slim", f"{build_image} -> {runtime_image}")
    report.check(codename(build_image) and codename(build_image) == codename(runtime_image),
                 f"{name}: build and runtime on the same Debian release ({codename(runtime_image)})",
                 f"{build_image} vs {runtime_image}: the binary needs the sonames and glibc it was built against")
    toolchain = local_swift_version()
    if toolchain:
        tag = build_image.split(":", 1)[1]
        report.check(tag == toolchain or tag.startswith((toolchain + ".", toolchain + "-")),
                     f"{name}: build image is Swift {toolchain}, the toolchain the tests ran with", f"image {build_image}")
    builds = [a for i, a in build if i == "RUN" and "swift build" in a]
    report.check(builds and all(flag in builds[0] for flag in ("-c release", "--product typeahead", "--static-swift-stdlib")),
                 f"{name}: swift build -c release --product typeahead --static-swift-stdlib",
                 f"build command: {builds}")
    wanted = setup_packages(root)
    missing = sorted(wanted - installed_packages(build))
    report.check(not missing, f"{name}: build stage installs every C library of scripts/setup.sh", f"missing {missing}")

    stage_names = [s[0] for s in stages]
    for index, (stage, _, instructions) in enumerate(stages):
        for instruction, arguments in instructions:
            if instruction not in ("COPY", "ADD"):
                continue
            words = shlex.split(arguments)
            options = {w.split("=", 1)[0]: w.split("=", 1)[-1] for w in words if w.startswith("--")}
            sources = [w for w in words if not w.startswith("--")][:-1]
            for source in sources:
                if "--from" in options:
                    origin = options["--from"]
                    produced = origin in stage_names[:index] and any(source in a for i, a in stages[stage_names.index(origin)][2] if i == "RUN")
                    report.check(produced, f"{name}: COPY --from={origin} {source} is written by stage {origin}",
                                 f"stages before: {stage_names[:index]}; no RUN there writes {source}")
                else:
                    report.check(os.path.exists(os.path.join(root, source)) and not ignored(root, source),
                                 f"{name}: COPY {source} is in the build context", "missing, or excluded by .dockerignore")

    user = next((a for i, a in reversed(runtime) if i == "USER"), None)
    report.check(user and user.split(":")[0] not in ("0", "root"), f"{name}: runtime runs as a non-root user", f"USER {user}")
    exposed = {p.split("/")[0] for i, a in runtime if i == "EXPOSE" for p in a.split()}
    report.check({"7700", "7701"} <= exposed, f"{name}: EXPOSE 7700 7701", f"exposed {sorted(exposed)}")
    report.check(not any(i == "HEALTHCHECK" for i, _ in runtime), f"{name}: no HEALTHCHECK (Kubernetes probes the pods)", "remove it")
    entrypoint = next((a for i, a in reversed(runtime) if i == "ENTRYPOINT"), "[]")
    try:
        entry = json.loads(entrypoint)
    except ValueError:
        entry = []
    copied = [shlex.split(a)[-1] for i, a in runtime if i == "COPY"]
    report.check(entry and entry[0] in copied, f"{name}: ENTRYPOINT is the copied binary (exec form)", f"ENTRYPOINT {entrypoint}, copied {copied}")
    report.check(ignored(root, ".build"), ".dockerignore keeps .build/ out of the build context", "add .build/ to .dockerignore")
    static_runtime = bool(builds) and "--static-swift-stdlib" in builds[0]
    return installed_packages(runtime), runtime_image, static_runtime


def local_swift_version():
    """"6.3" of the swift on PATH, or None."""
    if not shutil.which("swift"):
        return None
    output = subprocess.run(["swift", "--version"], capture_output=True, text=True, timeout=60).stdout
    match = re.search(r"Swift version (\d+\.\d+)", output)
    return match.group(1) if match else None


def linked_libraries(binary):
    """[(soname, path)] of what `ldd binary` resolves (the vDSO and the loader aside)."""
    output = subprocess.run(["ldd", binary], capture_output=True, text=True, timeout=60, check=True).stdout
    return re.findall(r"^\s*(\S+) => (/\S+)", output, re.M)


def owning_packages(paths):
    """path -> Debian package (no architecture) for the paths dpkg knows, trying /lib and /usr/lib spellings."""
    candidates = {}
    for path in paths:
        real = os.path.realpath(path)
        spellings = [path, real] + [p.replace("/usr/lib/", "/lib/", 1) if p.startswith("/usr/lib/") else p.replace("/lib/", "/usr/lib/", 1)
                                    for p in (path, real)]
        candidates[path] = list(dict.fromkeys(spellings))
    every = sorted({s for spellings in candidates.values() for s in spellings})
    output = subprocess.run(["dpkg-query", "-S", *every], capture_output=True, text=True, timeout=120).stdout
    owner = {}
    for line in output.splitlines():
        package, _, file = line.partition(": ")
        owner[file.strip()] = package.split(":")[0].split(",")[0].strip()
    return {path: next((owner[s] for s in spellings if s in owner), None) for path, spellings in candidates.items()}


def check_runtime_libraries(path, binary, installed, runtime_image, static_runtime, report):
    name = os.path.basename(path)
    if binary is None:
        report.skip(f"{name}: runtime stage has every library the binary links", "no typeahead binary given (--binary)")
        return
    if not (shutil.which("ldd") and shutil.which("dpkg-query")):
        report.skip(f"{name}: runtime stage has every library the binary links", "ldd or dpkg-query is missing")
        return
    libraries = linked_libraries(binary)
    owners = owning_packages([p for _, p in libraries])
    machine = os_release().get("VERSION_CODENAME")
    same_release = machine == codename(runtime_image)
    if not same_release:
        report.note(f"this machine is Debian {machine}, the runtime stage {runtime_image}: packages compared by library name")
    available = installed | BASE_PACKAGES
    for soname, library in libraries:
        package = owners.get(library)
        where = f"{name}: {soname}"
        if package is None:
            swift_runtime = "/lib/swift/" in library or "/lib/swift/" in os.path.realpath(library)
            report.check(swift_runtime and static_runtime, f"{where} is Swift's runtime, linked in by --static-swift-stdlib",
                         f"{library} belongs to no Debian package and is not the Swift runtime: the image would lack it")
        elif same_release:
            report.check(package in available, f"{where} comes from {package}, which the runtime stage has",
                         f"install {package} in the runtime stage")
        else:
            stem = soname.split(".so")[0].replace("_", "-")
            report.check(any(p.startswith(stem) for p in available), f"{where} ({package} here) has a package in the runtime stage",
                         f"no runtime package named like {stem}*")


def os_release():
    try:
        with open("/etc/os-release", encoding="utf-8") as handle:
            return dict(l.strip().split("=", 1) for l in handle if "=" in l)
    except OSError:
        return {}


def check_all(path, root, binary, report):
    result = check_stages(path, root, report)
    if result:
        check_runtime_libraries(path, binary, *result, report)
