import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A cluster over real (virtual) network links instead of loopback: every node and the
/// coordinator in its own network namespace with its own address on one bridge, so that links
/// can be cut, slowed and hosts killed. python/netns_cluster_test.py builds the topology, starts
/// the `typeahead` processes in it, drives the scenarios with grpcio and removes everything it
/// made, whatever happens; this test runs it and reports its checks and numbers.
///
/// Needs root and iproute2 (CI runs as root); skipped otherwise.
final class ClusterNetworkTests: XCTestCase {
    /// The package root (this file is Tests/ClusterNetworkTests/ClusterNetworkTests.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("python/netns_cluster_test.py").path
    /// The script takes about 15 s; this only bounds a hang.
    static let timeout: TimeInterval = 150

    static var binary: URL { BuiltProducts.typeahead }

    /// Whether `tool` is an executable on PATH or in the sbin directories (where iproute2 lives and
    /// which a non-login PATH may lack).
    static func installed(_ tool: String) -> Bool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
        return directories.contains { FileManager.default.isExecutableFile(atPath: $0 + "/" + tool) }
    }

    override func setUpWithError() throws {
        guard getuid() == 0 else { throw XCTSkip("network namespaces need root (CI runs as root)") }
        guard Self.installed("ip"), Self.installed("tc") else { throw XCTSkip("iproute2 (ip, tc) is not installed") }
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else {
            throw XCTSkip("typeahead binary not built next to the tests")
        }
    }

    override func tearDown() {
        // The script cleans up after itself; this covers a script that was killed on timeout.
        _ = try? run(["--cleanup"], timeout: 30)
    }

    /// Runs the script with `arguments`; on timeout SIGTERM (the script then cleans up), SIGKILL 20 s later.
    func run(_ arguments: [String], timeout: TimeInterval) throws -> ChildRun {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = (environment["PATH"].map { $0 + ":" } ?? "") + "/usr/sbin:/sbin"
        return try ChildRun.run("/usr/bin/env", ["python3", "-u", Self.script] + arguments, environment: environment,
                                timeout: timeout, grace: 20)
    }

    /// Cut links, a slow replica, a killed node: partial answers within the deadline and recovery,
    /// hedging around latency, failover without a failed call (the script's docstring has the details).
    func testClusterOverNetworkNamespaces() throws {
        let started = Date()
        let result = try run(["--binary", Self.binary.path,
                              "--catalog", Self.packageRoot.appendingPathComponent("deploy/catalog/sample.jsonl").path,
                              "--proto-dir", Self.packageRoot.appendingPathComponent("proto").path,
                              "--relay", Self.packageRoot.appendingPathComponent("Tests/CoordinatorTests/python/delay_relay.py").path],
                             timeout: Self.timeout)
        print(result.output)
        print(String(format: "netns cluster test: %.1f s", Date().timeIntervalSince(started)))
        if result.status == 77 { throw XCTSkip(result.output.split(separator: "\n").last.map(String.init) ?? "skipped") }
        XCTAssertEqual(result.status, 0, "netns_cluster_test.py failed (its output, with the node and coordinator logs, is above)")
        XCTAssertTrue(result.output.contains("\nPASSED"), "netns_cluster_test.py did not finish")
    }
}
