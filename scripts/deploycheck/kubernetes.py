"""Checks of deploy/k8s/ without a Kubernetes cluster.

A manifest can be valid YAML, even valid against the API schema, and still not work: a Service
whose selector matches no pod has no endpoints, a volume naming a missing ConfigMap leaves the
pod in ContainerCreating, a probe on an undeclared port restarts the pod forever, a cluster file
naming a pod that no StatefulSet creates sends every call for that shard to a name that does
not resolve. The API server accepts all of them. So besides the schema (kubernetes-validate,
when installed) this checks what refers to what:

- kustomization.yaml lists every manifest (templates aside) and nothing missing;
- every object has the fields its kind needs and lives in the one Namespace defined;
- each workload's selector matches its pod template; probes, Prometheus annotations and
  --listen name declared container ports; liveness is GET /healthz (HTTP/1.1, 200 whenever the
  process serves) or a TCP connect, never what readiness means (the gRPC health check or
  /readyz: NOT_SERVING without a generation or serving shards, so a liveness probe on it would
  restart every new node forever); volume mounts name volumes or claim templates;
  configMap and secret volumes name objects (and keys) that exist; $(VAR) in args names an env
  variable; file arguments (--cluster, --admin-token-file, --dir, ...) lie on a volume that
  holds them; every flag is one the subcommand accepts (from the binary's --help);
- pods meet the namespace's "restricted" Pod Security Standard, have requests and limits, and a
  termination grace above the servers' own 10 s shutdown grace plus any preStop delay;
- every Service selects pods whose ports it targets; each StatefulSet's serviceName is a
  headless Service that publishes not-ready addresses;
- every PodDisruptionBudget selects a workload, every workload has one, and it leaves a replica;
- the cluster file in the coordinators' ConfigMap parses, and its replicas are exactly the
  StatefulSets' pods, by their DNS names, on the nodes' port;
- the shard files differ only in their shard number.
"""
import json
import os
import re

import yaml

from .cli import check_flags, path_arguments

# The servers' shutdown grace (RPCServer.Configuration.shutdownGrace): in-flight calls get this
# long after SIGTERM, so Kubernetes must wait longer before SIGKILL.
SERVER_GRACE_SECONDS = 10

# The kinds the manifests use: API version, whether namespaced, and the fields each needs.
KINDS = {
    "Namespace": ("v1", False, []),
    "ConfigMap": ("v1", True, ["data"]),
    "Secret": ("v1", True, []),
    "Service": ("v1", True, ["spec.selector", "spec.ports"]),
    "StatefulSet": ("apps/v1", True, ["spec.serviceName", "spec.replicas", "spec.selector.matchLabels",
                                       "spec.template.metadata.labels", "spec.template.spec.containers",
                                       "spec.volumeClaimTemplates"]),
    "Deployment": ("apps/v1", True, ["spec.replicas", "spec.selector.matchLabels", "spec.template.metadata.labels",
                                      "spec.template.spec.containers"]),
    "PodDisruptionBudget": ("policy/v1", True, ["spec.selector"]),
}
WORKLOADS = ("StatefulSet", "Deployment")

# Schemas to validate against: the oldest Kubernetes these manifests are written for (grpc
# probes, PVC retention and PDB unhealthyPodEvictionPolicy are all on by default there) and the
# newest that kubernetes-validate bundles.
SCHEMA_VERSIONS = ("1.30.0", "1.37.0")

# A replica address under a headless Service: POD.SERVICE.NAMESPACE.svc.cluster.local
POD_DNS = re.compile(r"^([a-z0-9-]+)\.([a-z0-9-]+)\.([a-z0-9-]+)\.svc\.cluster\.local$")


class Manifest:
    def __init__(self, file, index, obj):
        self.file, self.index, self.obj = file, index, obj
        self.kind = obj.get("kind")
        metadata = obj.get("metadata") or {}
        self.name = metadata.get("name")
        self.namespace = metadata.get("namespace")

    def __str__(self):
        return f"{self.file}: {self.kind}/{self.name}"

    def get(self, path):
        return get(self.obj, path)


def get(obj, path):
    """obj["a"]["b"]... for "a.b"; None where anything is missing."""
    for part in path.split("."):
        if not isinstance(obj, dict) or part not in obj:
            return None
        obj = obj[part]
    return obj


def selects(selector, labels):
    """Whether a label selector (matchLabels and matchExpressions, or a Service's plain map) matches."""
    if not selector:
        return False
    labels = labels or {}
    if "matchLabels" in selector or "matchExpressions" in selector:
        plain = selector.get("matchLabels") or {}
        expressions = selector.get("matchExpressions") or []
    else:
        plain, expressions = selector, []
    if any(labels.get(key) != value for key, value in plain.items()):
        return False
    for expression in expressions:
        key, operator, values = expression.get("key"), expression.get("operator"), expression.get("values") or []
        present = key in labels
        if operator == "In" and not (present and labels[key] in values):
            return False
        if operator == "NotIn" and present and labels[key] in values:
            return False
        if operator == "Exists" and not present:
            return False
        if operator == "DoesNotExist" and present:
            return False
    return True


def quantity(text):
    """A Kubernetes quantity ("500m", "2", "512Mi", "3Gi") as a number."""
    units = {"m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
    match = re.fullmatch(r"([0-9.]+)([a-zA-Z]*)", str(text))
    if not match or (match.group(2) and match.group(2) not in units):
        raise ValueError(f"not a quantity: {text!r}")
    return float(match.group(1)) * units.get(match.group(2), 1)


def load(directory, report):
    """Every YAML document under `directory` (kustomization.yaml apart) and the kustomization."""
    manifests, kustomization = [], None
    for file in sorted(os.listdir(directory)):
        if not file.endswith((".yaml", ".yml")):
            continue
        try:
            with open(os.path.join(directory, file), encoding="utf-8") as handle:
                documents = [d for d in yaml.safe_load_all(handle) if d is not None]
        except yaml.YAMLError as error:
            report.fail(f"{file} parses as YAML", str(error).replace("\n", " "))
            continue
        report.ok(f"{file} parses as YAML ({len(documents)} documents)")
        for index, document in enumerate(documents):
            if not isinstance(document, dict):
                report.fail(f"{file} document {index}", "is not a mapping")
            elif document.get("kind") == "Kustomization":
                kustomization = (file, document)
            else:
                manifests.append(Manifest(file, index, document))
    return manifests, kustomization


def check_kustomization(directory, manifests, kustomization, report):
    if kustomization is None:
        report.fail("kustomization.yaml", "missing: `kubectl apply -k` needs it")
        return
    file, document = kustomization
    listed = document.get("resources") or []
    missing = [r for r in listed if not os.path.isfile(os.path.join(directory, r))]
    report.check(not missing, f"{file}: every resource listed exists", f"missing {missing}")
    files = sorted({m.file for m in manifests})
    unlisted = [f for f in files if f not in listed and not f.endswith(".template.yaml")]
    report.check(not unlisted, f"{file}: lists every manifest (templates aside)",
                 f"{unlisted} would not be applied; list them or name them *.template.yaml")
    names = {image.get("name") for image in document.get("images") or []}
    for m in manifests:
        for container in containers(m):
            report.check(container.get("image") in names, f"{m}: image {container.get('image')!r} is rewritten by images:",
                         f"kustomization images: names {sorted(names)}")


def containers(manifest):
    if manifest.kind not in WORKLOADS:
        return []
    return manifest.get("spec.template.spec.containers") or []


def check_fields(manifests, report):
    """Kinds, API versions, required fields, one namespace, unique names."""
    namespaces = [m.name for m in manifests if m.kind == "Namespace"]
    report.check(len(namespaces) == 1, "exactly one Namespace is defined", f"found {namespaces}")
    seen = set()
    for m in manifests:
        if m.kind not in KINDS:
            report.fail(str(m), f"kind {m.kind!r} is not one this check knows ({', '.join(KINDS)}): teach it")
            continue
        version, namespaced, required = KINDS[m.kind]
        missing = [path for path in ["metadata.name"] + required if m.get(path) in (None, "", [], {})]
        report.check(m.obj.get("apiVersion") == version and not missing, f"{m}: apiVersion and required fields",
                     f"apiVersion {m.obj.get('apiVersion')!r} (want {version!r}), missing {missing}")
        if namespaced:
            report.check(m.namespace in namespaces, f"{m}: in the namespace defined",
                         f"namespace {m.namespace!r}, defined: {namespaces}")
        key = (m.kind, m.namespace, m.name)
        report.check(key not in seen, f"{m}: name unique for its kind", "defined twice")
        seen.add(key)
    if any(m.kind == "Secret" for m in manifests):
        for m in manifests:
            if m.kind == "Secret":
                check_secret_template(m, report)


def check_secret_template(secret, report):
    """A committed Secret holds no usable token: every value is shorter than the 16 characters
    the servers require, so applying the template by mistake fails closed."""
    values = list((secret.get("stringData") or {}).values()) + list((secret.get("data") or {}).values())
    usable = [v for v in values if len(str(v).strip()) >= 16]
    report.check(secret.file.endswith(".template.yaml") and not usable,
                 f"{secret}: a template with no usable token",
                 "name it *.template.yaml and keep placeholders under 16 characters (the servers then refuse them)")


def pod_volumes(workload):
    """Volume name -> ("claim", template) for volumeClaimTemplates, or (type, source) for volumes."""
    volumes = {}
    for template in workload.get("spec.volumeClaimTemplates") or []:
        volumes[get(template, "metadata.name")] = ("claim", template)
    for volume in workload.get("spec.template.spec.volumes") or []:
        kinds = [k for k in volume if k != "name"]
        volumes[volume.get("name")] = (kinds[0] if kinds else None, volume.get(kinds[0]) if kinds else None)
    return volumes


def find(manifests, kind, namespace, name):
    return next((m for m in manifests if m.kind == kind and m.namespace == namespace and m.name == name), None)


def object_keys(obj):
    return set((obj.get("data") or {}).keys()) | set((obj.get("stringData") or {}).keys()) | set((obj.get("binaryData") or {}).keys())


def port_of(container, port):
    """The containerPort a probe or Service port names (a number or a port name), or None."""
    for declared in container.get("ports") or []:
        if port == declared.get("containerPort") or (isinstance(port, str) and port == declared.get("name")):
            return declared.get("containerPort")
    return None


def subcommand(container):
    arguments = (container.get("command") or [])[1:] + (container.get("args") or [])
    return (arguments[0] if arguments else None), arguments


def check_workloads(manifests, report, cli):
    for w in (m for m in manifests if m.kind in WORKLOADS):
        labels = w.get("spec.template.metadata.labels")
        report.check(selects(w.get("spec.selector"), labels), f"{w}: selector matches its pod template",
                     f"selector {w.get('spec.selector')} vs labels {labels}")
        volumes = pod_volumes(w)
        pod = w.get("spec.template.spec") or {}
        check_pod_security(w, pod, report)
        check_grace(w, pod, report)
        check_affinity(w, pod, labels, report)
        if w.kind == "StatefulSet":
            report.check(w.get("spec.podManagementPolicy") == "Parallel", f"{w}: podManagementPolicy Parallel",
                         "OrderedReady waits for pod 0 to be ready before creating pod 1, and a node is not ready "
                         "until the first reindex, which needs every replica up")
        for name, (kind, source) in volumes.items():
            if kind in ("configMap", "secret"):
                target_kind, target_name = ("ConfigMap", source.get("name")) if kind == "configMap" else ("Secret", source.get("secretName"))
                target = find(manifests, target_kind, w.namespace, target_name)
                if report.check(target is not None, f"{w}: volume {name} names {target_kind} {target_name} that exists",
                                f"no {target_kind} {target_name!r} in namespace {w.namespace} among the manifests"):
                    missing = [i.get("key") for i in source.get("items") or [] if i.get("key") not in object_keys(target.obj)]
                    report.check(not missing, f"{w}: volume {name} items are keys of {target_kind} {target_name}",
                                 f"missing keys {missing} (has {sorted(object_keys(target.obj))})")
        for container in pod.get("containers") or []:
            check_container(w, container, volumes, manifests, report, cli)
        annotations = w.get("spec.template.metadata.annotations") or {}
        if annotations.get("prometheus.io/scrape") == "true":
            port = int(annotations.get("prometheus.io/port", "0"))
            report.check(any(port_of(c, port) for c in pod.get("containers") or []),
                         f"{w}: prometheus.io/port is a declared container port", f"port {port} is not declared")


def check_container(w, container, volumes, manifests, report, cli):
    where = f"{w} container {container.get('name')}"
    mounts = container.get("volumeMounts") or []
    unknown = [m.get("name") for m in mounts if m.get("name") not in volumes]
    report.check(not unknown, f"{where}: volume mounts name volumes or claim templates", f"unknown {unknown}")
    for probe_name in ("readinessProbe", "livenessProbe"):
        probe = container.get(probe_name)
        if not report.check(probe is not None, f"{where}: has a {probe_name}", "missing"):
            continue
        handler = next((probe[k] for k in ("grpc", "tcpSocket", "httpGet") if k in probe), None)
        port = handler.get("port") if handler else None
        report.check(port is not None and port_of(container, port) is not None, f"{where}: {probe_name} port is declared",
                     f"port {port!r} is not among {container.get('ports')}")
    check_liveness(where, container.get("livenessProbe"), report)
    env = {e.get("name"): e for e in container.get("env") or []}
    for variable in env.values():
        reference = get(variable, "valueFrom.resourceFieldRef.containerName")
        if reference is not None:
            names = [c.get("name") for c in w.get("spec.template.spec.containers") or []]
            report.check(reference in names, f"{where}: env {variable.get('name')} refers to a container", f"{reference!r} not in {names}")
    command, arguments = subcommand(container)
    for argument in (container.get("command") or []) + (container.get("args") or []):
        for variable in re.findall(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", str(argument)):
            report.check(variable in env, f"{where}: $({variable}) is an env variable",
                         "Kubernetes leaves an undefined $(VAR) in place, literally")
    if command is None:
        return
    check_flags(report, cli, command, arguments[1:], where)
    if "--listen" in arguments:
        listen = arguments[arguments.index("--listen") + 1]
        port = int(listen.rsplit(":", 1)[1])
        report.check(port_of(container, port) is not None, f"{where}: --listen {listen} is a declared container port",
                     f"declared: {container.get('ports')}")
    for flag, path in path_arguments(arguments):
        check_path(where, flag, path, mounts, volumes, manifests, w, report)
    limits = get(container, "resources.limits") or {}
    requests = get(container, "resources.requests") or {}
    for resource in ("cpu", "memory"):
        if report.check(resource in limits and resource in requests, f"{where}: {resource} request and limit", f"requests {requests}, limits {limits}"):
            report.check(quantity(requests[resource]) <= quantity(limits[resource]), f"{where}: {resource} request within limit",
                         f"{requests[resource]} > {limits[resource]}")
    security = container.get("securityContext") or {}
    report.check(security.get("allowPrivilegeEscalation") is False and "ALL" in (get(security, "capabilities.drop") or [])
                 and security.get("readOnlyRootFilesystem") is True,
                 f"{where}: no privilege escalation, no capabilities, read-only root",
                 f"securityContext {security}")


# What a liveness probe may ask: whether the process serves, never whether it is ready. The
# servers answer GET /healthz 200 whenever they serve (HTTP/1.1 beside h2c, so the kubelet's
# httpGet reaches it), while the gRPC health check and /readyz stay NOT_SERVING / 503 on a node
# without a generation and on a coordinator whose shards serve none.
LIVENESS_PATHS = ("/healthz",)


def check_liveness(where, probe, report):
    if probe is None:
        return
    http = probe.get("httpGet")
    if "tcpSocket" in probe:
        ok, why = True, ""
    elif http is not None:
        ok = http.get("path") in LIVENESS_PATHS and str(http.get("scheme", "HTTP")).upper() == "HTTP"
        why = (f"httpGet {http.get('scheme', 'HTTP')} {http.get('path')}: the servers answer liveness on plain HTTP "
               f"{', '.join(LIVENESS_PATHS)} (/readyz is 503 until a generation serves)")
    else:
        ok = False
        why = ("grpc: the gRPC health check is NOT_SERVING on a node without a generation (and a coordinator "
               "without serving shards), so the kubelet would restart it forever" if "grpc" in probe
               else "no tcpSocket or httpGet handler: use httpGet /healthz on the servers' port")
    report.check(ok, f"{where}: livenessProbe is tcpSocket or httpGet /healthz (never readiness)", why)


def check_path(where, flag, path, mounts, volumes, manifests, w, report):
    """A file argument lies on a mounted volume that holds it (the root file system is read-only
    and the image has no such file)."""
    mount = max((m for m in mounts if path == m.get("mountPath") or path.startswith(m.get("mountPath", "").rstrip("/") + "/")),
                key=lambda m: len(m.get("mountPath")), default=None)
    if not report.check(mount is not None, f"{where}: {flag} {path} is on a mounted volume", f"mounts: {[m.get('mountPath') for m in mounts]}"):
        return
    kind, source = volumes.get(mount.get("name"), (None, None))
    relative = path[len(mount.get("mountPath").rstrip("/")) + 1:]
    if flag == "--dir":
        report.check(kind in ("claim", "persistentVolumeClaim") and not mount.get("readOnly"),
                     f"{where}: --dir {path} is on a writable persistent volume", f"volume {mount.get('name')} is {kind}")
        return
    if kind in ("configMap", "secret"):
        items = source.get("items")
        if items is not None:
            names = [i.get("path") for i in items]
        else:
            target = find(manifests, "ConfigMap" if kind == "configMap" else "Secret", w.namespace,
                          source.get("name") or source.get("secretName"))
            names = sorted(object_keys(target.obj)) if target else []
        report.check(relative in names, f"{where}: {flag} {path} is a file of volume {mount.get('name')}",
                     f"{relative!r} is not among {names}")


def check_pod_security(w, pod, report):
    security = pod.get("securityContext") or {}
    containers = pod.get("containers") or []
    non_root = all(security.get("runAsNonRoot") or get(c, "securityContext.runAsNonRoot") for c in containers)
    seccomp = all((get(c, "securityContext.seccompProfile.type") or get(security, "seccompProfile.type")) in ("RuntimeDefault", "Localhost")
                  for c in containers)
    report.check(non_root and security.get("runAsUser", 1) != 0 and seccomp, f"{w}: runs as non-root with a seccomp profile",
                 f"pod securityContext {security}")
    report.check(pod.get("automountServiceAccountToken") is False, f"{w}: no service account token",
                 "the servers never call the Kubernetes API; set automountServiceAccountToken: false")


def check_grace(w, pod, report):
    delay = 0
    for container in pod.get("containers") or []:
        pre_stop = get(container, "lifecycle.preStop") or {}
        command = get(pre_stop, "exec.command") or []
        if len(command) == 2 and command[0] == "sleep":
            delay = max(delay, float(command[1]))
        delay = max(delay, float(get(pre_stop, "sleep.seconds") or 0))
    grace = pod.get("terminationGracePeriodSeconds", 30)
    report.check(grace > SERVER_GRACE_SECONDS + delay, f"{w}: terminationGracePeriodSeconds {grace} > preStop {delay:g} s + {SERVER_GRACE_SECONDS} s grace",
                 "SIGKILL would cut in-flight calls short")


def check_affinity(w, pod, labels, report):
    anti = get(pod, "affinity.podAntiAffinity") or {}
    required = anti.get("requiredDuringSchedulingIgnoredDuringExecution") or []
    preferred = [t.get("podAffinityTerm") or {} for t in anti.get("preferredDuringSchedulingIgnoredDuringExecution") or []]
    spread = lambda terms: any(t.get("topologyKey") == "kubernetes.io/hostname" and selects(t.get("labelSelector"), labels) for t in terms)
    if w.kind == "StatefulSet":
        report.check(spread(required), f"{w}: replicas required on different machines",
                     "no required podAntiAffinity on kubernetes.io/hostname selecting the set's own pods")
    else:
        report.check(spread(required) or spread(preferred), f"{w}: replicas spread over machines",
                     "no podAntiAffinity on kubernetes.io/hostname selecting the workload's own pods")


def check_services(manifests, report):
    workloads = [m for m in manifests if m.kind in WORKLOADS]
    for s in (m for m in manifests if m.kind == "Service"):
        selected = [w for w in workloads if w.namespace == s.namespace and selects(s.get("spec.selector"), w.get("spec.template.metadata.labels"))]
        if not report.check(selected, f"{s}: selector matches a pod template", f"selector {s.get('spec.selector')} matches no workload's pods"):
            continue
        for port in s.get("spec.ports") or []:
            target = port.get("targetPort", port.get("port"))
            unresolved = [str(w) for w in selected if not any(port_of(c, target) for c in containers(w))]
            report.check(not unresolved, f"{s}: port {port.get('name')} targets a declared container port",
                         f"targetPort {target!r} is not declared by {unresolved}")
    for w in (m for m in manifests if m.kind == "StatefulSet"):
        service = find(manifests, "Service", w.namespace, w.get("spec.serviceName"))
        if not report.check(service is not None, f"{w}: serviceName names a Service", f"no Service {w.get('spec.serviceName')!r}"):
            continue
        report.check(service.get("spec.clusterIP") == "None" and selects(service.get("spec.selector"), w.get("spec.template.metadata.labels")),
                     f"{w}: serviceName {service.name} is headless and selects its pods",
                     "pod DNS names need clusterIP: None and a selector matching the set's pods")
        report.check(service.get("spec.publishNotReadyAddresses") is True, f"{w}: {service.name} publishes not-ready addresses",
                     "a node is not ready until its first generation, which is built through its DNS name")


def check_disruption_budgets(manifests, report):
    workloads = [m for m in manifests if m.kind in WORKLOADS]
    covered = {str(w): [] for w in workloads}
    for p in (m for m in manifests if m.kind == "PodDisruptionBudget"):
        selected = [w for w in workloads if w.namespace == p.namespace and selects(p.get("spec.selector"), w.get("spec.template.metadata.labels"))]
        if not report.check(selected, f"{p}: selector matches a workload's pods", f"selector {p.get('spec.selector')} matches nothing"):
            continue
        for w in selected:
            covered[str(w)].append(p.name)
            replicas = w.get("spec.replicas") or 1
            unavailable, available = p.get("spec.maxUnavailable"), p.get("spec.minAvailable")
            keeps = (unavailable is not None and available is None and int(unavailable) < replicas) or \
                    (available is not None and unavailable is None and 1 <= int(available) < replicas)
            report.check(keeps, f"{p}: leaves {w.name} a replica and allows a drain",
                         f"maxUnavailable {unavailable}, minAvailable {available}, replicas {replicas}")
    for workload, budgets in covered.items():
        report.check(len(budgets) == 1, f"{workload}: covered by one PodDisruptionBudget", f"covered by {budgets}")


def cluster_file_source(manifests):
    """(ConfigMap manifest, key, coordinator manifest) of the coordinators' --cluster file, or None."""
    for w in (m for m in manifests if m.kind in WORKLOADS):
        for container in containers(w):
            command, arguments = subcommand(container)
            if command != "coordinator" or "--cluster" not in arguments:
                continue
            path = arguments[arguments.index("--cluster") + 1]
            volumes = pod_volumes(w)
            for mount in container.get("volumeMounts") or []:
                base = mount.get("mountPath", "").rstrip("/") + "/"
                kind, source = volumes.get(mount.get("name"), (None, None))
                if path.startswith(base) and kind == "configMap":
                    relative = path[len(base):]
                    key = next((i.get("key") for i in source.get("items") or [] if i.get("path") == relative), relative)
                    return find(manifests, "ConfigMap", w.namespace, source.get("name")), key, w
    return None


def check_cluster_file(manifests, report):
    source = cluster_file_source(manifests)
    if not report.check(source and source[0] is not None, "the coordinators' --cluster file comes from a ConfigMap in the manifests",
                        "no coordinator container with --cluster on a configMap volume"):
        return
    config_map, key, coordinator = source
    text = (config_map.get("data") or {}).get(key)
    try:
        cluster = json.loads(text or "")
    except ValueError as error:
        report.fail(f"{config_map}: {key} parses as JSON", str(error))
        return
    report.ok(f"{config_map}: {key} parses as JSON")
    shards = cluster.get("shards") if isinstance(cluster, dict) else None
    if not report.check(isinstance(shards, list) and shards, f"{config_map}: {key} lists shards", "no shards array"):
        return
    node_sets = {w.name: w for w in manifests if w.kind == "StatefulSet"}
    listed = {}
    for index, shard in enumerate(shards):
        name, replicas = shard.get("name"), shard.get("replicas") or []
        owners = set()
        for replica in replicas:
            where = f"{config_map}: shards[{index}] ({name}) replica {replica}"
            host, _, port = str(replica).rpartition(":")
            match = POD_DNS.match(host)
            if not report.check(match, f"{where} is a pod DNS name", "expected POD.SERVICE.NAMESPACE.svc.cluster.local:PORT"):
                continue
            pod, service, namespace = match.groups()
            owner = next((w for w in node_sets.values() if w.namespace == namespace and w.get("spec.serviceName") == service), None)
            if not report.check(owner, f"{where}: {service}.{namespace} is a StatefulSet's Service", f"no StatefulSet in {namespace} has serviceName {service}"):
                continue
            ordinal = pod[len(owner.name) + 1:] if pod.startswith(owner.name + "-") else ""
            report.check(ordinal.isdigit() and int(ordinal) < (owner.get("spec.replicas") or 1),
                         f"{where}: {pod} is a pod of StatefulSet {owner.name}",
                         f"{owner.name} creates {owner.name}-0 .. {owner.name}-{(owner.get('spec.replicas') or 1) - 1}")
            report.check(port.isdigit() and any(port_of(c, int(port)) for c in containers(owner)), f"{where}: port {port} is the nodes' port",
                         f"{owner.name} declares {[c.get('ports') for c in containers(owner)]}")
            owners.add(owner.name)
            listed.setdefault(owner.name, []).append(pod)
        if report.check(len(owners) == 1, f"{config_map}: shards[{index}] ({name}) is one StatefulSet's pods", f"its replicas belong to {sorted(owners)}"):
            owner = next(iter(owners))
            report.check(owner.endswith("-" + str(name)), f"{config_map}: shards[{index}] ({name}) is served by {owner}",
                         f"a StatefulSet named for the shard keeps the layout readable (…-{name})")
    for name, w in node_sets.items():
        pods = [f"{name}-{i}" for i in range(w.get("spec.replicas") or 1)]
        report.check(sorted(listed.get(name, [])) == pods, f"{w}: every pod is a replica in the cluster file, once",
                     f"cluster file lists {sorted(listed.get(name, []))}, the set creates {pods}")


def cluster_file_text(directory):
    """The cluster file the coordinators read, as the ConfigMap holds it (for --print-cluster-file)."""
    class Quiet:
        def __getattr__(self, name):
            return lambda *a, **k: True
    manifests, _ = load(directory, Quiet())
    source = cluster_file_source(manifests)
    if not source or source[0] is None:
        raise SystemExit("no cluster file ConfigMap found")
    return source[0].get("data")[source[1]]


def check_shard_files(directory, report):
    """shard-N.yaml files are one shard group each and identical once N is replaced."""
    numbered = sorted((int(m.group(1)), f) for f in os.listdir(directory) for m in [re.fullmatch(r"shard-(\d+)\.yaml", f)] if m)
    if not report.check(numbered, "shard files exist", "no shard-N.yaml"):
        return
    report.check([n for n, _ in numbered] == list(range(len(numbered))), "shard files are numbered 0..N-1",
                 f"found {[f for _, f in numbered]}")
    def normalised(number, file):
        with open(os.path.join(directory, file), encoding="utf-8") as handle:
            return list(yaml.safe_load_all(handle.read().replace(f"shard-{number}", "shard-N")))
    reference_number, reference_file = numbered[0]
    reference = normalised(reference_number, reference_file)
    for number, file in numbered[1:]:
        difference = first_difference(reference, normalised(number, file), "")
        report.check(difference is None, f"{file} is {reference_file} with the shard number changed",
                     f"they differ at {difference}: change every shard file together")


def first_difference(a, b, path):
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            found = first_difference(a.get(key), b.get(key), f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path} (lengths {len(a)} and {len(b)})"
        for index, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}[{index}]")
            if found:
                return found
        return None
    return None if a == b else f"{path or '.'} ({a!r} vs {b!r})"


def check_schemas(manifests, report):
    try:
        import kubernetes_validate
    except ImportError:
        report.skip("manifests against the Kubernetes API schemas", "kubernetes-validate is not installed (scripts/requirements.txt)")
        return
    for version in SCHEMA_VERSIONS:
        failed = []
        for m in manifests:
            try:
                kubernetes_validate.validate(m.obj, version, strict=True)
            except kubernetes_validate.ValidationError as error:
                failed.append(f"{m} at {'.'.join(str(p) for p in error.path)}: {error.message}")
            except Exception as error:  # a schema the package lacks, a version it does not know
                failed.append(f"{m}: {error}")
        report.check(not failed, f"every manifest is valid against the Kubernetes {version} schemas (strict)", "; ".join(failed))


def check_all(directory, report, cli, schemas=True):
    manifests, kustomization = load(directory, report)
    check_kustomization(directory, manifests, kustomization, report)
    check_fields(manifests, report)
    check_workloads(manifests, report, cli)
    check_services(manifests, report)
    check_disruption_budgets(manifests, report)
    check_cluster_file(manifests, report)
    check_shard_files(directory, report)
    if schemas:
        check_schemas(manifests, report)
