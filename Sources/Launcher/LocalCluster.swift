import Catalog
import Cluster
import Dispatch
import Foundation
import Storage
import HTTP2
import Index
import Synchronization
import Wire

/// A whole cluster on this machine's loopback: N shards × R replicas, each replica its own
/// `typeahead node` process, and a `typeahead coordinator` process in front — what `typeahead
/// local` runs, and what the cluster tests drive.
///
/// It serves one collection per catalog: ``Options/catalog`` is the collection `default` (as
/// before collections), ``Options/collections`` add named ones (`typeahead local --catalog
/// products=FILE`). Every catalog is split into the same N shards, and the node of shard i,
/// replica r serves shard i of every collection (`typeahead node --dir … --collection NAME=…`).
/// The default collection is `default` when ``Options/catalog`` is given, else the first named.
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
        /// The JSON Lines catalog of the collection `default` ('-': standard input); nil: only the
        /// named ``collections``.
        public var catalog: String?
        /// More collections, each its name (``Wire/CollectionName``) and JSON Lines catalog.
        public var collections: [(name: String, catalog: String)] = []
        /// A collection made at start from another catalog, after the others: one entry per
        /// category of `of` (``SampleCollections/departments(of:)``), written to
        /// `DATA/NAME.jsonl`. The sample's `departments`.
        public var derived: (name: String, of: String)?
        /// The cluster file's scopes (``Cluster/ClusterFile/Scope``), over these collections.
        public var scopes: [ClusterFile.Scope] = []
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
        /// Filterable attributes by collection name (``IndexParameters/filterableAttributes``):
        /// each collection's generations are built with them, and the cluster file declares them.
        public var filterable: [String: [String]] = [:]

        public init(catalog: String?, executable: String) {
            self.catalog = catalog
            self.executable = executable
        }

        /// Every collection's name and catalog, the default collection first.
        public var catalogs: [(name: String, catalog: String)] {
            (catalog.map { [(CollectionName.default, $0)] } ?? []) + collections
        }
    }

    /// What one collection holds, once started.
    public struct CollectionSummary: Sendable {
        public var name: String
        public var catalog: String
        public var entriesPerShard: [Int]
        public var skippedLines: Int
        public var generation: Int
    }

    /// Where everything is, once started.
    public struct Summary: Sendable {
        public var coordinator: Endpoint
        /// Per shard, its replicas' addresses (each serves that shard of every collection).
        public var nodes: [[Endpoint]]
        /// The default collection's figures (the whole cluster's, with one collection).
        public var entriesPerShard: [Int]
        public var skippedLines: Int
        public var generation: Int
        /// Every collection, the default first.
        public var collections: [CollectionSummary]
        /// The cluster file's scopes.
        public var scopes: [ClusterFile.Scope]
        public var clusterFile: String
        public var tokenFile: String
        public var dataDirectory: String
        public var logDirectory: String
    }

    public let options: Options
    public let dataDirectory: String
    private let ownsDirectory: Bool
    private let children = Mutex<(nodes: [[ChildProcess]], coordinator: ChildProcess?)>(([], nil))
    /// Told about unexpected exits and restarts, and the catalogs' warnings (values read as meant).
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
        // 1–2. Every collection's catalog, validated, split, built on every replica.
        var catalogs = options.catalogs
        if let (name, source) = options.derived {
            let path = "\(dataDirectory)/\(name).jsonl"
            do { try SampleCollections.writeDepartments(of: source, to: path) } catch {
                throw LocalClusterError("collection \(name) from \(source): \(error)")
            }
            catalogs.append((name, path))
        }
        guard !catalogs.isEmpty else { throw LocalClusterError("give a catalog") }
        for (name, _) in catalogs {
            if let problem = CollectionName.problem(name) { throw LocalClusterError("the collection name \(problem)") }
        }
        guard Set(catalogs.map(\.name)).count == catalogs.count else { throw LocalClusterError("a collection is named twice") }
        var built: [(summary: CollectionSummary, directories: [[String]])] = []
        for (name, catalog) in catalogs {
            built.append(try build(collection: name, catalog: catalog))
        }
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
        for shard in 0..<options.shards {
            var shardNodes: [ChildProcess] = []
            var shardEndpoints: [Endpoint] = []
            for replica in 0..<options.replicas {
                let name = "shard-\(shard)-replica-\(replica)"
                let portFile = "\(run)/\(name).port"
                try? fm.removeItem(atPath: portFile)
                // Shard `shard` of every collection; the first named is the node's default.
                let served = built.flatMap { collection -> [String] in
                    let directory = collection.directories[shard][replica]
                    return collection.summary.name == CollectionName.default ? ["--dir", directory]
                        : ["--collection", "\(collection.summary.name)=\(directory)"]
                }
                func arguments(port: Int) -> [String] {
                    ["node"] + served + ["--listen", "127.0.0.1:\(port)", "--admin-token-file", tokenFile, "--port-file", portFile]
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
        let names = built.map(\.summary.name)
        let scopes = options.scopes
        let filterable = options.filterable
        try DurableFile.replace(clusterFile, with: Data(Self.clusterJSON(endpoints, collections: names, filterable: filterable, scopes: scopes,
                                                                          tokenFile: "admin.token").utf8))
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
        try DurableFile.replace(clusterFile, with: Data(Self.clusterJSON(endpoints, collections: names, filterable: filterable, scopes: scopes,
                                                                          tokenFile: "admin.token", coordinator: address).utf8))
        try await Self.waitUntilReady(address, timeout: .seconds(60))
        let main = built[0].summary
        return Summary(coordinator: address, nodes: endpoints, entriesPerShard: main.entriesPerShard, skippedLines: main.skippedLines,
                       generation: main.generation, collections: built.map(\.summary), scopes: scopes, clusterFile: clusterFile,
                       tokenFile: tokenFile, dataDirectory: dataDirectory, logDirectory: logs)
    }

    /// One collection's catalog validated (bad lines refuse the start, each named with its line
    /// number, unless ``Options/skipInvalid``), split by ``ShardAssignment``, and built by every
    /// replica as one new generation — the same number on every replica, above any the
    /// collection's directories hold, so the coordinator can pin it everywhere. The collection
    /// `default` lives in `DATA/shard-S/replica-R` (as before collections), another in
    /// `DATA/collections/NAME/shard-S/replica-R`.
    private func build(collection name: String, catalog: String) throws -> (summary: CollectionSummary, directories: [[String]]) {
        let which = name == CollectionName.default ? "" : "collection \(name): "
        let loaded: (entries: [CatalogEntry], errors: [CatalogLineError], summary: CatalogSummary)
        do {
            loaded = try loadCatalog(path: catalog, policy: options.skipInvalid ? .skipInvalid : .strict)
        } catch let error as CatalogValidationError {
            throw LocalClusterError("\(which)\(error.description)\nnothing was started. Fix the lines above or pass --skip-invalid.")
        }
        // One line per kind of value read as meant (blank optional fields…), as `typeahead index` says them.
        for warning in loaded.summary.notices.warnings { report("warning: \(which)\(warning)") }
        var parts = [[CatalogEntry]](repeating: [], count: options.shards)
        for entry in loaded.entries { parts[ShardAssignment.shard(of: entry.id, shardCount: options.shards)].append(entry) }
        let root = name == CollectionName.default ? dataDirectory : "\(dataDirectory)/collections/\(name)"
        let directories = (0..<options.shards).map { shard in
            (0..<options.replicas).map { replica in "\(root)/shard-\(shard)/replica-\(replica)" }
        }
        var highest = 0
        for directory in directories.joined() { highest = max(highest, try Shard(directory: directory).highestGeneration()) }
        let generation = highest + 1
        let jobs = Array(directories.enumerated().flatMap { shard, replicas in replicas.map { (shard, $0) } })
        let failures = Mutex<[String]>([])
        var collectionParameters = options.parameters
        collectionParameters.filterableAttributes = options.filterable[name] ?? []
        let parameters = collectionParameters
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
        return (CollectionSummary(name: name, catalog: catalog, entriesPerShard: parts.map(\.count), skippedLines: loaded.errors.count,
                                  generation: generation), directories)
    }

    /// The cluster file of a local cluster: shards in assignment order, relative token file. One
    /// collection named `default` is the top-level `shards`, as before collections; any other is
    /// listed in `collections` (every one over the same nodes), the first being the default;
    /// `scopes`, if any, follow.
    static func clusterJSON(_ endpoints: [[Endpoint]], collections: [String] = [CollectionName.default], filterable: [String: [String]] = [:],
                            scopes: [ClusterFile.Scope] = [], tokenFile: String, coordinator: Endpoint? = nil) -> String {
        /// A collection's `filterableAttributes` member (names are [a-z0-9_-]: no escaping), if any.
        func declared(_ name: String, indent: String) -> String {
            guard let names = filterable[name], !names.isEmpty else { return "" }
            return "\(indent)\"filterableAttributes\": [" + names.map { "\"\($0)\"" }.joined(separator: ", ") + "],"
        }
        let shards = endpoints.enumerated().map { shard, replicas in
            "{\"name\": \"shard-\(shard)\", \"replicas\": [" + replicas.map { "\"\($0)\"" }.joined(separator: ", ") + "]}"
        }
        var layout = ""
        if collections.contains(CollectionName.default) {
            layout += "  \"shards\": [\n    " + shards.joined(separator: ",\n    ") + "\n  ],\n"
            let top = declared(CollectionName.default, indent: "  ")
            if !top.isEmpty { layout += top + "\n" }
        }
        let named = collections.filter { $0 != CollectionName.default }
        if !named.isEmpty {
            let listed = named.map { name in
                "    {\"name\": \"\(name)\",\(declared(name, indent: " ")) \"shards\": [\n      " + shards.joined(separator: ",\n      ") + "\n    ]}"
            }
            layout += "  \"collections\": [\n" + listed.joined(separator: ",\n") + "\n  ],\n"
            layout += "  \"defaultCollection\": \"\(collections[0])\",\n"
        }
        if !scopes.isEmpty {
            layout += "  \"scopes\": [\n    " + scopes.map(scopeJSON).joined(separator: ",\n    ") + "\n  ],\n"
        }
        return """
        {
          "name": "local",
        \(layout)  "coordinators": [\(coordinator.map { "\"\($0)\"" } ?? "")],
          "settings": {"tokenFile": "\(tokenFile)"}
        }

        """
    }

    /// One scope as the cluster file writes it (strings escaped by JSONSerialization).
    private static func scopeJSON(_ scope: ClusterFile.Scope) -> String {
        var object: [String: Any] = ["name": scope.name, "label": scope.label, "prompt": scope.prompt, "collections": scope.collections]
        if !scope.tokens.isEmpty { object["tokens"] = scope.tokens.map { ["kind": $0.kind, "value": $0.value] } }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
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
