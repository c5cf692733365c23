import Catalog
import Cluster
import Coordinator
import Foundation
import HTTP2
import Index
import Node
import Observability
import RPC
import Synchronization
import TestSupport
import Wire
import WireConversions
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A real cluster in the test process: every replica a `NodeServer` on loopback over its own shard
/// directory, a `CoordinatorServer` in front, and optionally a delay relay (delay_relay.py, a
/// process) between the coordinator and a replica, to make that replica slow.
///
/// `@unchecked Sendable`: load tasks call ``suggest(_:timeout:)`` concurrently, which touches only
/// the client and the connection (behind a mutex); nodes are stopped and started by the test's
/// own task only.
final class TestCluster: @unchecked Sendable {
    static let adminToken = "coordinator-tests-admin-token-0123456789"
    static let relayScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("python/delay_relay.py").path

    let directory = TemporaryDirectory("typeahead-cluster")
    let shardCount: Int
    let replicaCount: Int
    /// [shard][replica]
    private(set) var shards: [[Shard]] = []
    private(set) var nodes: [[NodeServer?]] = []
    private(set) var ports: [[Int]] = []
    private var relays: [Process] = []
    private(set) var coordinator: CoordinatorServer!
    private(set) var coordinatorPort = 0
    let stall: (share: Double, duration: Duration)?
    /// The nodes serve HTTPS with it (the settings must then name the CA, for the coordinator).
    let nodeTLS: HTTP2TLSContext?
    let client: HTTP2Client
    private let connection = Mutex<HTTP2ClientConnection?>(nil)

    /// - Parameter delays: replicas reached through a relay that delays every byte by the given milliseconds.
    /// - Parameter stall: every node answers this share of shard calls this late (fault injection).
    init(entries: [CatalogEntry], shards shardCount: Int, replicas: Int, settings: ClusterFile.Settings = TestCluster.settings(),
         delays: [(shard: Int, replica: Int, milliseconds: Int)] = [], parameters: IndexParameters = IndexParameters(),
         stall: (share: Double, duration: Duration)? = nil, searchKeySecrets: [[UInt8]] = [],
         nodeTLS: HTTP2TLSContext? = nil, coordinatorTLS: HTTP2TLSContext? = nil) throws {
        self.stall = stall
        self.nodeTLS = nodeTLS
        self.shardCount = shardCount
        replicaCount = replicas
        client = try HTTP2Client()
        var parts = [[CatalogEntry]](repeating: [], count: shardCount)
        for entry in entries { parts[ShardAssignment.shard(of: entry.id, shardCount: shardCount)].append(entry) }
        var layout: [ClusterFile.Shard] = []
        for shard in 0..<shardCount {
            var shardDirs: [Shard] = []
            var endpoints: [Endpoint] = []
            var shardNodes: [NodeServer?] = []
            var shardPorts: [Int] = []
            for replica in 0..<replicas {
                let store = try Shard(directory: directory.path + "/shard-\(shard)/replica-\(replica)")
                try store.build(from: parts[shard], parameters: parameters, number: 1)
                shardDirs.append(store)
                let node = Self.node(store, port: 0, stall: stall, tls: nodeTLS)
                let port = try node.start()
                shardNodes.append(node)
                shardPorts.append(port)
                var reached = port
                if let delay = delays.first(where: { $0.shard == shard && $0.replica == replica }) {
                    reached = try startRelay(to: port, milliseconds: delay.milliseconds)
                }
                endpoints.append(Endpoint(host: "127.0.0.1", port: reached))
            }
            shards.append(shardDirs)
            nodes.append(shardNodes)
            ports.append(shardPorts)
            layout.append(ClusterFile.Shard(name: "shard-\(shard)", replicas: endpoints))
        }
        var configuration = CoordinatorServer.Configuration()
        configuration.server.port = 0
        configuration.server.threads = 2
        configuration.server.adminToken = Self.adminToken
        configuration.server.shutdownGrace = .milliseconds(500)
        configuration.server.searchKeySecrets = searchKeySecrets
        configuration.server.tls = coordinatorTLS
        coordinator = CoordinatorServer(cluster: ClusterFile(name: "test", shards: layout, settings: settings),
                                        configuration: configuration,
                                        telemetry: ServerTelemetry(label: "coordinator", sink: MemorySink()))
        coordinatorPort = try coordinator.start()
        guard coordinator.waitUntilReady(timeout: .seconds(20)) else { throw TestClusterError("the coordinator did not become ready") }
    }

    /// Fast health checks, so tests see failures and recoveries in well under a second.
    static func settings() -> ClusterFile.Settings {
        var settings = ClusterFile.Settings()
        settings.healthInterval = .milliseconds(100)
        settings.healthTimeout = .milliseconds(300)
        settings.suggestDeadline = .seconds(5)
        settings.searchDeadline = .seconds(10)
        settings.reconnectBackoff = .milliseconds(20) ... .milliseconds(200)
        settings.connectTimeout = .milliseconds(500)
        return settings
    }

    static func node(_ shard: Shard, port: Int, stall: (share: Double, duration: Duration)? = nil,
                     tls: HTTP2TLSContext? = nil) -> NodeServer {
        var configuration = NodeConfiguration()
        configuration.server.tls = tls
        if let stall {
            configuration.faultStallShare = stall.share
            configuration.faultStall = stall.duration
        }
        configuration.server.port = port
        configuration.server.threads = 1
        configuration.server.adminToken = adminToken
        configuration.server.shutdownGrace = .milliseconds(200)
        return NodeServer(shard: shard, configuration: configuration, telemetry: ServerTelemetry(label: "node", sink: MemorySink()))
    }

    private func startRelay(to port: Int, milliseconds: Int) throws -> Int {
        let portFile = directory.path + "/relay-\(relays.count).port"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.relayScript, "--target", "127.0.0.1:\(port)", "--delay-ms", "\(milliseconds)",
                             "--port-file", portFile]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        relays.append(process)
        let end = Date().addingTimeInterval(20)
        while Date() < end {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                return port
            }
            usleep(10_000)
        }
        throw TestClusterError("the delay relay did not start")
    }

    /// Stops one replica's node (GOAWAY, grace, close).
    func stopNode(shard: Int, replica: Int) {
        nodes[shard][replica]?.shutdown()
        nodes[shard][replica] = nil
    }

    /// Starts it again on the same port.
    func startNode(shard: Int, replica: Int) throws {
        let node = Self.node(shards[shard][replica], port: ports[shard][replica], stall: stall, tls: nodeTLS)
        _ = try node.start()
        nodes[shard][replica] = node
    }

    func shutdown() {
        connection.withLock { $0 }?.close()
        client.shutdown()
        coordinator?.shutdown()
        for shard in nodes { for node in shard { node?.shutdown() } }
        for relay in relays where relay.isRunning {
            relay.terminate()
            relay.waitUntilExit()
        }
    }

    // MARK: Calls

    func connect() async throws -> HTTP2ClientConnection {
        if let open = connection.withLock({ $0 }), open.isAcceptingRequests { return open }
        let fresh = try await client.connect(host: "127.0.0.1", port: coordinatorPort)
        connection.withLock { $0 = fresh }
        return fresh
    }

    func suggest(_ request: Typeahead_V1_SuggestRequest, timeout: Duration = .seconds(10),
                 bearer: String? = nil) async throws -> Typeahead_V1_SuggestResponse {
        try await GRPCClient.call(Typeahead_V1_TypeaheadService.suggest, request, on: try await connect(),
                                  options: .init(timeout: timeout, bearerToken: bearer))
    }

    func search(_ request: Typeahead_V1_SearchRequest, timeout: Duration = .seconds(10),
                bearer: String? = nil) async throws -> Typeahead_V1_SearchResponse {
        try await GRPCClient.call(Typeahead_V1_TypeaheadService.search, request, on: try await connect(),
                                  options: .init(timeout: timeout, bearerToken: bearer))
    }

    func status(refresh: Bool = false) async throws -> Typeahead_V1_ClusterStatusResponse {
        try await GRPCClient.call(Typeahead_V1_ClusterService.status, Typeahead_V1_ClusterStatusRequest(refresh: refresh),
                                  on: try await connect(), options: .init(timeout: .seconds(10), bearerToken: Self.adminToken))
    }

    func metrics() async throws -> String {
        String(decoding: try await connect().send(HTTP2ClientRequest(path: "/metrics")).body, as: UTF8.self)
    }

    /// The value of one metric line (`name{labels}`), or 0 when absent.
    func metric(_ series: String) async throws -> Double {
        let text = try await metrics()
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1)) ?? 0
        }
        return 0
    }

    /// Polls `condition` until it holds (liveness only: generous).
    func eventually(_ what: String, timeout: Duration = .seconds(15), _ condition: () async throws -> Bool) async throws {
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTFail("\(what) did not happen within \(timeout)")
    }
}

struct TestClusterError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A node serving one whole catalog: what the cluster's answers must equal.
final class SingleNode {
    let directory = TemporaryDirectory("typeahead-single")
    let node: NodeServer
    let client: HTTP2Client
    let port: Int

    init(entries: [CatalogEntry], parameters: IndexParameters = IndexParameters()) throws {
        let shard = try Shard(directory: directory.path)
        try shard.build(from: entries, parameters: parameters)
        node = TestCluster.node(shard, port: 0)
        port = try node.start()
        client = try HTTP2Client()
    }

    func connect() async throws -> HTTP2ClientConnection {
        try await client.connect(host: "127.0.0.1", port: port)
    }

    func shutdown() {
        client.shutdown()
        node.shutdown()
    }
}
