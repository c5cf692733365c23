import Cluster
import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The deployment files in deploy/ are checked by scripts/check-deploy.py (no Kubernetes, systemd
/// or container engine needed; see scripts/deploycheck/ for what it verifies). These tests run it
/// on the real files, load the cluster files with the same `ClusterFile` the coordinator uses, and
/// feed the check deliberately broken copies, each of which must fail naming the break.
///
/// In CI (`CI=true`) the check runs with --require-tools: a missing validator (kubernetes-validate,
/// systemd-analyze, ldd/dpkg, the binary) fails instead of silently skipping its checks.
final class DeployTests: XCTestCase {
    /// The package root (this file is Tests/DeployTests/DeployTests.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let script = packageRoot.appendingPathComponent("scripts/check-deploy.py").path
    static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// The typeahead executable of the same build: the check reads its --help and ldd.
    static var binary: String? { TypeaheadExecutable.isBuilt ? TypeaheadExecutable.url.path : nil }


    var scratch: TemporaryDirectory!

    override func setUpWithError() throws {
        scratch = TemporaryDirectory("typeahead-deploy")
        // The check needs PyYAML (scripts/requirements.txt, installed by scripts/setup.sh).
        if try python(["-c", "import yaml"]).status != 0 {
            if Self.inCI { XCTFail("PyYAML is not installed: scripts/setup.sh installs scripts/requirements.txt") }
            throw XCTSkip("PyYAML is not installed (scripts/setup.sh)")
        }
    }

    override func tearDown() {
        scratch = nil
    }

    // MARK: The real files

    func testEverythingInDeployPassesTheCheck() throws {
        var arguments = [Self.script]
        if let binary = Self.binary { arguments += ["--binary", binary] }
        if Self.inCI { arguments.append("--require-tools") }
        let result = try python(arguments, timeout: 300)
        XCTAssertEqual(result.status, 0, "scripts/check-deploy.py failed:\n\(result.failures)\n\(result.output.suffix(400))")
        XCTAssertTrue(result.output.contains("check-deploy: all "), result.output)
    }

    /// Every sample cluster file loads as the coordinator would load it.
    func testSampleClusterFilesLoad() throws {
        let directory = Self.packageRoot.appendingPathComponent("deploy/cluster").path
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertEqual(files, ["cluster-3x2.json", "local-2x2.json"])
        let expected = ["cluster-3x2.json": (3, 2), "local-2x2.json": (2, 2)]
        for file in files {
            let cluster = try ClusterFile.load(path: directory + "/" + file)
            XCTAssertEqual(cluster.shards.count, expected[file]?.0, file)
            XCTAssertEqual(Set(cluster.shards.map(\.replicas.count)), [expected[file]?.1 ?? 0], file)
            XCTAssertTrue(cluster.replicas.allSatisfy { $0.port == 7701 || (7711...7714).contains($0.port) }, file)
            XCTAssertNotNil(cluster.settings.tokenFile, file)
        }
        // Relative token files are relative to the cluster file's directory.
        XCTAssertEqual(try ClusterFile.load(path: directory + "/local-2x2.json").settings.tokenFile, directory + "/admin.token")
    }

    /// The cluster file inside the Kubernetes ConfigMap is one `ClusterFile` accepts, and its replicas
    /// are the StatefulSets' pod DNS names (which the check cross-checks against the manifests).
    func testConfigMapClusterFileParses() throws {
        let printed = try python([Self.script, "--print-cluster-file"])
        XCTAssertEqual(printed.status, 0, printed.output)
        let cluster = try ClusterFile.parse(Array(printed.stdout.utf8), name: "deploy/k8s/cluster-configmap.yaml cluster.json")
        XCTAssertEqual(cluster.shards.map(\.name), ["shard-0", "shard-1", "shard-2"])
        for (index, shard) in cluster.shards.enumerated() {
            XCTAssertEqual(shard.replicas.map(\.description), (0..<2).map {
                "typeahead-shard-\(index)-\($0).typeahead-shard-\(index).typeahead.svc.cluster.local:7701"
            })
        }
    }

    // MARK: Broken copies must fail

    /// One break per case, each in a fresh copy of deploy/k8s/, and the FAIL line that must name it.
    func testBrokenManifestsFail() throws {
        let cases: [(file: String, find: String, replace: String, failure: String)] = [
            // A Service whose selector matches no pod.
            ("coordinator.yaml", "  selector:\n    app.kubernetes.io/name: typeahead\n    app.kubernetes.io/component: coordinator\n  ports:",
             "  selector:\n    app.kubernetes.io/name: typeahead\n    app.kubernetes.io/component: coordinatr\n  ports:",
             "Service/typeahead-coordinator: selector matches a pod template"),
            // A volume naming a ConfigMap that does not exist.
            ("coordinator.yaml", "name: typeahead-cluster\n", "name: typeahead-clusters\n",
             "volume cluster names ConfigMap typeahead-clusters that exists"),
            // A Secret key that does not exist.
            ("shard-1.yaml", "- key: admin.token", "- key: admin-token",
             "volume admin-token items are keys of Secret typeahead-admin-token"),
            // A probe on an undeclared port.
            ("shard-2.yaml", "grpc:\n              port: 7701", "grpc:\n              port: 7702",
             "StatefulSet/typeahead-shard-2 container node: readinessProbe port is declared"),
            // Liveness on readiness: /readyz is 503 on a node without a generation (restarted forever).
            ("shard-1.yaml", "path: /healthz", "path: /readyz",
             "StatefulSet/typeahead-shard-1 container node: livenessProbe is tcpSocket or httpGet /healthz"),
            // Liveness on the gRPC health, NOT_SERVING while the shards serve no generation.
            ("coordinator.yaml", "livenessProbe:\n            httpGet:\n              path: /healthz\n              port: grpc",
             "livenessProbe:\n            grpc:\n              port: 7700",
             "Deployment/typeahead-coordinator container coordinator: livenessProbe is tcpSocket or httpGet /healthz"),
            // A mount of a volume that is not defined.
            ("shard-0.yaml", "- name: data\n              mountPath", "- name: date\n              mountPath",
             "volume mounts name volumes or claim templates"),
            // The cluster file naming a pod the StatefulSet does not create.
            ("cluster-configmap.yaml", "typeahead-shard-1-1.typeahead-shard-1", "typeahead-shard-1-2.typeahead-shard-1",
             "typeahead-shard-1-2 is a pod of StatefulSet typeahead-shard-1"),
            // The cluster file on the wrong port.
            ("cluster-configmap.yaml", "typeahead-shard-0-0.typeahead-shard-0.typeahead.svc.cluster.local:7701",
             "typeahead-shard-0-0.typeahead-shard-0.typeahead.svc.cluster.local:7700", "port 7700 is the nodes' port"),
            // A StatefulSet whose serviceName is no Service.
            ("shard-0.yaml", "serviceName: typeahead-shard-0", "serviceName: typeahead-shards-0",
             "StatefulSet/typeahead-shard-0: serviceName names a Service"),
            // A PodDisruptionBudget selecting nothing.
            ("coordinator.yaml", "spec:\n  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: typeahead\n      app.kubernetes.io/component: coordinator",
             "spec:\n  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: typeahead\n      app.kubernetes.io/component: coordinators",
             "PodDisruptionBudget/typeahead-coordinator: selector matches a workload's pods"),
            // An env variable used in args but never defined.
            ("coordinator.yaml", "- $(TYPEAHEAD_THREADS)", "- $(TYPEAHEAD_THREAD)", "$(TYPEAHEAD_THREAD) is an env variable"),
            // A termination grace shorter than the servers' own.
            ("shard-1.yaml", "terminationGracePeriodSeconds: 30", "terminationGracePeriodSeconds: 10", "terminationGracePeriodSeconds 10 >"),
            // A manifest kustomization.yaml does not list.
            ("kustomization.yaml", "  - shard-2.yaml\n", "", "lists every manifest"),
        ]
        for broken in cases {
            let copy = try copyOfDirectory("deploy/k8s", breaking: broken.file, broken.find, with: broken.replace)
            let result = try python([Self.script, "--only", "k8s", "--k8s", copy, "--no-schemas"] + binaryArguments)
            XCTAssertEqual(result.status, 1, "\(broken.file): \(broken.failure) not caught:\n\(result.output.suffix(400))")
            XCTAssertTrue(result.failures.contains(broken.failure), "expected a FAIL naming \"\(broken.failure)\", got:\n\(result.failures)")
        }
    }

    /// A misspelt field passes every reference check (it is simply absent) except the schema's.
    func testMisspeltFieldFailsTheSchemaCheck() throws {
        if try python(["-c", "import kubernetes_validate"]).status != 0 {
            if Self.inCI { XCTFail("kubernetes-validate is not installed: scripts/setup.sh installs scripts/requirements.txt") }
            throw XCTSkip("kubernetes-validate is not installed (scripts/setup.sh)")
        }
        let copy = try copyOfDirectory("deploy/k8s", breaking: "coordinator.yaml", "      enableServiceLinks: false",
                                       with: "      enableServiceLink: false")
        let result = try python([Self.script, "--only", "k8s", "--k8s", copy] + binaryArguments)
        XCTAssertEqual(result.status, 1, result.output)
        XCTAssertTrue(result.failures.contains("valid against the Kubernetes 1.30.0 schemas"), result.failures)
        XCTAssertTrue(result.failures.contains("'enableServiceLink' was unexpected"), result.failures)
    }

    func testBrokenUnitsFail() throws {
        let cases: [(file: String, find: String, replace: String, failure: String)] = [
            // A flag the node does not have (caught from `typeahead node --help`).
            ("typeahead-node@.service", "--listen ${TYPEAHEAD_LISTEN}", "--listn ${TYPEAHEAD_LISTEN}", "unknown --listn"),
            // A misspelt variable in the example environment file.
            ("node-shard-0-a.env", "TYPEAHEAD_LISTEN=", "TYPEAHEAD_LISTN=", "unused (misspelt?) ['TYPEAHEAD_LISTN']"),
            // A stop timeout below the servers' grace.
            ("typeahead-coordinator.service", "TimeoutStopSec=20s", "TimeoutStopSec=5s", "TimeoutStopSec 5 s > the 10 s grace"),
            // Hardening lost to a typo.
            ("typeahead-node@.service", "ProtectSystem=strict", "ProtectSytem=strict", "typeahead-node@.service: ProtectSystem=None"),
            // A token flag naming a credential that is not loaded.
            ("typeahead-coordinator.service", "LoadCredential=admin.token:", "LoadCredential=admin-token:", "is a loaded credential"),
        ]
        for broken in cases {
            let copy = try copyOfDirectory("deploy/systemd", breaking: broken.file, broken.find, with: broken.replace)
            let result = try python([Self.script, "--only", "systemd", "--systemd", copy] + binaryArguments)
            XCTAssertEqual(result.status, 1, "\(broken.file): \(broken.failure) not caught:\n\(result.output.suffix(400))")
            XCTAssertTrue(result.failures.contains(broken.failure), "expected a FAIL naming \"\(broken.failure)\", got:\n\(result.failures)")
        }
        // An unknown key is only a warning to systemd itself ("ignoring"); the check makes it a failure.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") || FileManager.default.isExecutableFile(atPath: "/bin/systemd-analyze") {
            let copy = try copyOfDirectory("deploy/systemd", breaking: "typeahead-coordinator.service", "LockPersonality=yes",
                                           with: "LockPersonality=yes\nLockPersonalty=yes")
            let result = try python([Self.script, "--only", "systemd", "--systemd", copy] + binaryArguments)
            XCTAssertTrue(result.failures.contains("Unknown key 'LockPersonalty'"), result.failures)
        }
    }

    func testBrokenContainerfileFails() throws {
        guard Self.binary != nil else {
            if Self.inCI { XCTFail("the typeahead binary is not built next to the tests") }
            throw XCTSkip("typeahead binary not built next to the tests")
        }
        let cases: [(find: String, replace: String, failure: String)] = [
            // A runtime library the binary links, left out of the runtime stage.
            ("        libutf8proc2 \\\n", "", "libutf8proc.so.2 comes from libutf8proc2, which the runtime stage has"),
            // The Swift runtime not linked in: the slim image has none.
            (" --static-swift-stdlib \\", " \\", "is Swift's runtime, linked in by --static-swift-stdlib"),
            // Built on Ubuntu, run on Debian.
            ("FROM swift:6.3-bookworm AS build", "FROM swift:6.3 AS build", "build and runtime on the same Debian release"),
            // A C library of scripts/setup.sh missing from the build stage.
            ("        libyajl-dev \\\n", "", "build stage installs every C library of scripts/setup.sh"),
            // A COPY source that is not in the repository.
            ("COPY Tests ./Tests", "COPY Test ./Tests", "COPY Test is in the build context"),
        ]
        for broken in cases {
            let copy = try copyOfDirectory("deploy/container", breaking: "Containerfile", broken.find, with: broken.replace)
            let result = try python([Self.script, "--only", "container", "--containerfile", copy + "/Containerfile"] + binaryArguments)
            XCTAssertEqual(result.status, 1, "\(broken.failure) not caught:\n\(result.output.suffix(400))")
            XCTAssertTrue(result.failures.contains(broken.failure), "expected a FAIL naming \"\(broken.failure)\", got:\n\(result.failures)")
        }
    }

    // MARK: Helpers

    var binaryArguments: [String] { Self.binary.map { ["--binary", $0] } ?? [] }

    /// A copy of a folder of the repository in the scratch directory, with `find` replaced by
    /// `replacement` in `file` (which must contain it: a case that breaks nothing proves nothing).
    func copyOfDirectory(_ relative: String, breaking file: String, _ find: String, with replacement: String) throws -> String {
        let copy = scratch.path + "/" + UUID().uuidString
        try FileManager.default.copyItem(atPath: Self.packageRoot.appendingPathComponent(relative).path, toPath: copy)
        let path = copy + "/" + file
        let text = try String(contentsOfFile: path, encoding: .utf8)
        guard let range = text.range(of: find) else {
            throw XCTSkip("test case out of date: \(relative)/\(file) no longer contains \(find.debugDescription)")
        }
        try text.replacingCharacters(in: range, with: replacement).write(toFile: path, atomically: true, encoding: .utf8)
        return copy
    }

    /// Runs python3 with the arguments to its end (or `timeout`).
    func python(_ arguments: [String], timeout: TimeInterval = 120) throws -> ChildRun {
        try ChildRun.run("/usr/bin/env", ["python3"] + arguments, timeout: timeout)
    }
}

extension ChildRun {
    /// The check's FAIL lines, for assertion messages that stay readable.
    var failures: String { output.split(separator: "\n").filter { $0.hasPrefix("FAIL") }.joined(separator: "\n") }
}
