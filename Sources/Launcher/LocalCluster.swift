import Catalog
import Cluster
import Dispatch
import Foundation
import Storage
import HTTP2
import Index
import Synchronization

/// A whole cluster on this machine's loopback: N shards × R replicas, each replica its own
/// `typeahead node` process, and a `typeahead coordinator` process in front — what `typeahead
/// local` runs, and what the cluster tests drive.
///
/// ```swift
/// var options = LocalCluster.Options(catalog: "deploy/catalog/sample.jsonl", executable: "/usr/bin/typeahead")
/// options.shards = 2
/// options.replicas = 2
/// let cluster = LocalCluster(options: options)
/// let summary = try await cluster.start()      // built, started, ready
/// print(summary.coordinator)                    // 127.0.0.1:7700
/// cluster.stop()
/// ```
///
/// Starting: the catalog is validated (bad lines refuse the start, each named with its line
/// number, unless ``Options/skipInvalid``), split by ``ShardAssignment``, and every replica builds
/// its shard's part as one new generation — the same number on every replica, above any the data
/// directory already holds, so the coordinator can pin it everywhere. Nodes bind ephemeral
/// ports (reported through port files, so nothing collides), then keep their port across
/// restarts: a node that dies is restarted one second later on the same address, as a process
/// manager would. The cluster file, the admin token and every process's log are in the data
/// directory.
public final class LocalCluster: Sendable {
    public struct Options: Sendable {
        public var shards = 2
        public var replicas = 2
        /// The JSON Lines catalog ('-': standard input).
        public var catalog: String
        public var skipInvalid = false
        /// The coordinator's address (port 0: an ephemeral one).
        public var listen = Endpoint(host: "127.0.0.1", port: 7700)
        /// Where shards, logs, the cluster file and the token live; nil: a temporary directory
        /// removed by ``LocalCluster/stop()``.
        public var dataDirectory: String?
        /// The `typeahead` executable the processes run.
        public var executable: String
        /// Extra arguments for every node and for the coordinator (`--log-format json`).
        public var nodeArguments: [String] = []
        public var coordinatorArguments: [String] = []
        public var parameters = IndexParameters()

        public init(catalog: String, executable: String) {
            self.catalog = catalog
            self.executable = executable
        }
    }

    /// Where everything is, once started.
    public struct Summary: Sendable {
        public var coordinator: Endpoint
        /// Per shard, its replicas' addresses.
        public var nodes: [[Endpoint]]
        public var entriesPerShard: [Int]
        public var skippedLines: Int
        public var generation: Int
        public var clusterFile: String
        public var tokenFile: String
        public var dataDirectory: String
        public var logDirectory: String
    }

    public let options: Options
    public let dataDirectory: String
    private let ownsDirectory: Bool
    private let children = Mutex<(nodes: [[ChildProcess]], coordinator: ChildProcess?)>(([], nil))
    /// Told about unexpected exits and restarts.
    private let report: @Sendable (String) -> Void

    public init(options: Options, report: @escaping @Sendable (String) -> Void = { _ in }) {
        self.options = options
        self.report = report
        if let directory = options.dataDirectory {
            dataDirectory = directory
            ownsDirectory = false
        } else {
            dataDirectory = NSTemporaryDirectory() + "typeahead-local-\(UUID().uuidString.prefix(8))"
            ownsDirectory = true
        }
    }

    /// The processes of shard `shard` (by replica), for tests that kill one.
    public func nodes(of shard: Int) -> [ChildProcess] { children.withLock { $0.nodes[shard] } }
    public var coordinator: ChildProcess? { children.withLock { $0.coordinator } }

    // MARK: Starting

    public func start() async throws -> Summary {
        guard (1...64).contains(options.shards), (1...8).contains(options.replicas) else {
            throw LocalClusterError("--shards must be 1 to 64 and --replicas 1 to 8")
        }
        let fm = FileManager.default
        let logs = dataDirectory + "/logs", run = dataDirectory + "/run"
        for directory in [dataDirectory, logs, run] {
            try fm.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        // 1. The catalog, validated, split by the shard assignment.
        let loaded: (entries: [CatalogEntry], errors: [CatalogLineError], summary: CatalogSummary)
        do {
            loaded = try loadCatalog(path: options.catalog, policy: options.skipInvalid ? .skipInvalid : .strict)
        } catch let error as CatalogValidationError {
            throw LocalClusterError("\(error.description)\nnothing was started. Fix the lines above or pass --skip-invalid.")
        }
        var parts = [[CatalogEntry]](repeating: [], count: options.shards)
        for entry in loaded.entries { parts[ShardAssignment.shard(of: entry.id, shardCount: options.shards)].append(entry) }

        // 2. Every replica builds its shard's part as one generation number, above any on disk.
        let directories = (0..<options.shards).map { shard in
            (0..<options.replicas).map { replica in "\(dataDirectory)/shard-\(shard)/replica-\(replica)" }
        }
        var highest = 0
        for directory in directories.joined() { highest = max(highest, try Shard(directory: directory).highestGeneration()) }
        let generation = highest + 1
        let jobs = Array(directories.enumerated().flatMap { shard, replicas in replicas.map { (shard, $0) } })
        let failures = Mutex<[String]>([])
        let parameters = options.parameters
        let shardParts = parts
        DispatchQueue.concurrentPerform(iterations: jobs.count) { index in
            let (shard, directory) = jobs[index]
            do {
                try Shard(directory: directory).build(from: shardParts[shard], parameters: parameters, number: generation)
            } catch {
                failures.withLock { $0.append("\(directory): \(error)") }
            }
        }
        if let failure = failures.withLock({ $0.first }) { throw LocalClusterError("building the shards failed: \(failure)") }

        // 3. The admin token (kept across runs of one data directory).
        let tokenFile = dataDirectory + "/admin.token"
        if !fm.fileExists(atPath: tokenFile) {
            var bytes = [UInt8](repeating: 0, count: 32)
            for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255) }
            try Data(Data(bytes).base64EncodedString().utf8).write(to: URL(fileURLWithPath: tokenFile))
            chmod(tokenFile, 0o600)
        }

        // 4. Nodes on ephemeral ports, then pinned to them for restarts.
        var nodes: [[ChildProcess]] = []
        var endpoints: [[Endpoint]] = []
        for (shard, replicas) in directories.enumerated() {
            var shardNodes: [ChildProcess] = []
            var shardEndpoints: [Endpoint] = []
            for (replica, directory) in replicas.enumerated() {
                let name = "shard-\(shard)-replica-\(replica)"
                let portFile = "\(run)/\(name).port"
                try? fm.removeItem(atPath: portFile)
                func arguments(port: Int) -> [String] {
                    ["node", "--dir", directory, "--listen", "127.0.0.1:\(port)", "--admin-token-file", tokenFile, "--port-file", portFile]
                        + options.nodeArguments
                }
                let child = ChildProcess(name: name, executable: options.executable, arguments: arguments(port: 0),
                                         logPath: "\(logs)/\(name).log", onExit: report)
                try child.start()
                children.withLock { $0.nodes = nodes + [shardNodes + [child]] }
                let port = try await Self.readPort(portFile, child: child)
                child.setArguments(arguments(port: port))
                shardNodes.append(child)
                shardEndpoints.append(Endpoint(host: "127.0.0.1", port: port))
            }
            nodes.append(shardNodes)
            endpoints.append(shardEndpoints)
        }
        children.withLock { $0.nodes = nodes }

        // 5. The cluster file, then the coordinator.
        let clusterFile = dataDirectory + "/cluster.json"
        try DurableFile.replace(clusterFile, with: Data(Self.clusterJSON(endpoints, tokenFile: "admin.token").utf8))
        let coordinatorPortFile = "\(run)/coordinator.port"
        try? fm.removeItem(atPath: coordinatorPortFile)
        func coordinatorArguments(port: Int) -> [String] {
            ["coordinator", "--cluster", clusterFile, "--listen", "\(options.listen.host):\(port)", "--port-file", coordinatorPortFile]
                + options.coordinatorArguments
        }
        let coordinator = ChildProcess(name: "coordinator", executable: options.executable,
                                       arguments: coordinatorArguments(port: options.listen.port), logPath: "\(logs)/coordinator.log",
                                       onExit: report)
        try coordinator.start()
        children.withLock { $0.coordinator = coordinator }
        let port = try await Self.readPort(coordinatorPortFile, child: coordinator)
        coordinator.setArguments(coordinatorArguments(port: port))
        let address = Endpoint(host: options.listen.host == "0.0.0.0" ? "127.0.0.1" : options.listen.host, port: port)
        // Now that its port is known, the file names the coordinator too, so `typeahead admin
        // --cluster` sees it switch generations (the running coordinator has read the file already).
        try DurableFile.replace(clusterFile, with: Data(Self.clusterJSON(endpoints, tokenFile: "admin.token", coordinator: address).utf8))
        try await Self.waitUntilReady(address, timeout: .seconds(60))
        return Summary(coordinator: address, nodes: endpoints, entriesPerShard: parts.map(\.count), skippedLines: loaded.errors.count,
                       generation: generation, clusterFile: clusterFile, tokenFile: tokenFile, dataDirectory: dataDirectory,
                       logDirectory: logs)
    }

    /// The cluster file of a local cluster: shards in assignment order, relative token file.
    static func clusterJSON(_ endpoints: [[Endpoint]], tokenFile: String, coordinator: Endpoint? = nil) -> String {
        let shards = endpoints.enumerated().map { shard, replicas in
            "    {\"name\": \"shard-\(shard)\", \"replicas\": [" + replicas.map { "\"\($0)\"" }.joined(separator: ", ") + "]}"
        }
        return """
        {
          "name": "local",
          "shards": [
        \(shards.joined(separator: ",\n"))
          ],
          "coordinators": [\(coordinator.map { "\"\($0)\"" } ?? "")],
          "settings": {"tokenFile": "\(tokenFile)"}
        }

        """
    }

    /// Waits for a port file written by a child (or fails when the child dies first).
    static func readPort(_ path: String, child: ChildProcess, timeout: Duration = .seconds(60)) async throws -> Int {
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            if let text = try? String(contentsOfFile: path, encoding: .utf8),
               let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                return port
            }
            // Died before it ever served (a port in use, a bad directory): restarting cannot help.
            if child.restarts > 0 || (child.pid == nil && ContinuousClock.now > end - timeout + .milliseconds(500)) {
                let log = (try? String(contentsOfFile: child.logPath, encoding: .utf8)) ?? ""
                throw LocalClusterError("\(child.name) exited before serving:\n\(log.suffix(2000))")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw LocalClusterError("\(child.name) did not start serving within \(timeout) (log: \(child.logPath))")
    }

    /// Polls `GET /readyz` until 200.
    public static func waitUntilReady(_ endpoint: Endpoint, timeout: Duration) async throws {
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            if let connection = try? await client.connect(host: endpoint.host, port: endpoint.port) {
                defer { connection.close() }
                if let response = try? await connection.send(HTTP2ClientRequest(path: "/readyz")), response.status == 200 { return }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw LocalClusterError("the coordinator at \(endpoint) was not ready within \(timeout)")
    }

    // MARK: Stopping

    /// The coordinator first (clients stop being answered), then the nodes; waits for them all.
    /// A temporary data directory is removed.
    public func stop() {
        let (nodes, coordinator) = children.withLock { children in
            defer { children = ([], nil) }
            return children
        }
        coordinator?.stop()
        let all = nodes.flatMap { $0 }
        DispatchQueue.concurrentPerform(iterations: all.count) { all[$0].stop() }
        if ownsDirectory { try? FileManager.default.removeItem(atPath: dataDirectory) }
    }
}

public struct LocalClusterError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}
