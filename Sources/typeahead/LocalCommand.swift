import Cluster
import Dispatch
import Foundation
import HTTP2
import Launcher
import RPC
import Synchronization
import Wire

enum LocalCommand {
    static let help = """
    usage: typeahead local [--shards N] [--replicas R] [--catalog [NAME=]FILE]... [--listen HOST:PORT]
                           [--data-dir DIR] [--skip-invalid] [--query TEXT] [--json] [--log-format logfmt|json] [--log-level L]

    Starts a whole cluster on loopback: the catalog split into N shards by the shard assignment,
    R replicas of each (every one its own `typeahead node` process) and a `typeahead coordinator`
    in front, which answers exactly as one node holding the whole catalog would. Prints the
    addresses and example queries, restarts a node that dies, and stops everything on Ctrl-C
    (SIGINT) or SIGTERM.

    With --catalog NAME=FILE (repeatable) it serves one collection per catalog, each split into
    the same N shards, every node serving its shard of each: a request names its collection
    (`collection`, `?collection=NAME`); one that names none reads the default collection, the
    catalog given without a name (the collection "default"), else the first named one.

    With no --catalog it serves the bundled sample (deploy/catalog/sample.jsonl) as two
    collections: "products" (the sample, the default collection: a request naming none reads
    what it read when the sample was the only catalog) and "departments" (one entry per category
    of the sample, weighted by its entry count), with the scope "all" (label "All", prompt
    "Departments and products") over both: `?scope=all` answers one section per collection.

    Options:
      --shards N           shards (default 2)
      --replicas R         replicas per shard (default 2)
      --catalog FILE       JSON Lines catalog of the collection "default"
      --catalog NAME=FILE  a collection NAME (1-64 bytes of a-z, 0-9, _ and -) from FILE; repeat
                           for more (write ./FILE for a file whose name has = in it)
      --listen HOST:PORT   the coordinator's address (default 127.0.0.1:7700)
      --data-dir DIR       keep shards, logs, the cluster file and the admin token here
                           (default: a temporary directory removed on exit)
      --filterable A,B     attribute keys whose values become tokens and token chips (beside
                           categories) in every collection; --filterable NAME=A,B in the
                           collection NAME only (repeatable). The cluster file declares them
                           (`filterableAttributes`), so `typeahead admin reindex` keeps them
      --skip-invalid       index the catalog's valid lines, report the others
      --query TEXT         answer one suggest through the coordinator, print it, and stop
      --json               with --query: print the answer as JSON
      --log-format F       the processes' log format: logfmt (default) or json
      --log-level L        the processes' log level: trace, debug, info (default), notice, warning, error
    """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, command: "local", flags: ["--skip-invalid", "--json"],
                                 options: ["--shards", "--replicas", "--catalog", "--listen", "--data-dir", "--query", "--log-format", "--log-level",
                                           "--filterable"])
        if args.wantsHelp { print(help); return 0 }
        guard args.positionals.isEmpty else {
            throw UsageError(description: "typeahead local: unexpected argument \"\(args.positionals[0])\"")
        }
        let (unnamed, named) = try catalogs(args.all("--catalog"))
        var options: LocalCluster.Options
        if unnamed == nil, named.isEmpty {
            let sample = "deploy/catalog/sample.jsonl"
            guard FileManager.default.fileExists(atPath: sample) else {
                throw UsageError(description: "typeahead local: --catalog is required (no \(sample) here)")
            }
            options = .sample(catalog: sample, executable: try selfExecutable())
        } else {
            options = LocalCluster.Options(catalog: unnamed, executable: try selfExecutable())
            options.collections = named
        }
        options.filterable = try filterable(args.all("--filterable"), collections: options.catalogs.map(\.name) + [options.derived?.name].compactMap { $0 })
        options.shards = try args.integer("--shards", default: 2, range: 1...64)
        options.replicas = try args.integer("--replicas", default: 2, range: 1...8)
        let (host, port) = try ListenAddress.parse(args.value("--listen") ?? "127.0.0.1:7700", command: "local")
        options.listen = Endpoint(host: host, port: port)
        options.dataDirectory = args.value("--data-dir")
        options.skipInvalid = args.flag("--skip-invalid")
        let format = try args.choice("--log-format", default: LogFormatChoice.logfmt)
        let level = try args.choice("--log-level", default: LogLevelChoice.info)
        options.nodeArguments = ["--log-format", format.rawValue, "--log-level", level.rawValue]
        options.coordinatorArguments = ["--log-format", format.rawValue, "--log-level", level.rawValue]

        let cluster = LocalCluster(options: options) { printError("typeahead local: \($0)") }
        // From here on a signal stops the children first, whatever the cluster is doing: a local
        // cluster must never leave node processes behind.
        let stopping = Signals.onTermination {
            printError("typeahead local: stopping")
            cluster.stop()
            exit(0)
        }
        defer { withExtendedLifetime(stopping) {} }
        let summary: LocalCluster.Summary
        do {
            summary = try Blocking.run { try await cluster.start() }
        } catch {
            cluster.stop()
            throw UsageError(description: "typeahead local: \(error)", status: 1)
        }
        defer { cluster.stop() }
        if let text = args.value("--query") {
            let response = try Blocking.run { try await query(text, at: summary.coordinator) }
            print(SuggestCommand.render(response, text: text, json: args.flag("--json")), terminator: "")
            return 0
        }
        printSummary(summary)
        while true { sleep(3600) }   // until a signal (above) stops the cluster and exits
    }

    /// `--filterable A,B` (every collection) and `--filterable NAME=A,B` (the collection NAME,
    /// which must be one of `collections`), as the filterable attributes of each collection.
    static func filterable(_ values: [String], collections: [String]) throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        for value in values {
            if let equals = value.firstIndex(of: "=") {
                let name = String(value[..<equals])
                guard collections.contains(name) else {
                    throw UsageError(description: "typeahead local: --filterable \(name)=…: no collection \"\(name)\" (collections: "
                                     + collections.joined(separator: ", ") + ")")
                }
                result[name] = try IndexOptions.filterable(String(value[value.index(after: equals)...]), command: "local")
            } else {
                let names = try IndexOptions.filterable(value, command: "local")
                for collection in collections where result[collection] == nil { result[collection] = names }
            }
        }
        return result
    }

    /// `--catalog FILE` (the collection "default", at most once) and `--catalog NAME=FILE` (a
    /// named collection): NAME=FILE when what precedes the first `=` is a valid collection name.
    static func catalogs(_ values: [String]) throws -> (unnamed: String?, named: [(name: String, catalog: String)]) {
        var unnamed: String?
        var named: [(name: String, catalog: String)] = []
        for value in values {
            if let equals = value.firstIndex(of: "="), case let name = String(value[..<equals]), CollectionName.problem(name) == nil {
                let file = String(value[value.index(after: equals)...])
                guard !file.isEmpty else { throw UsageError(description: "typeahead local: --catalog \(name)= needs a file") }
                guard name != CollectionName.default || unnamed == nil, !named.contains(where: { $0.name == name }) else {
                    throw UsageError(description: "typeahead local: the collection \"\(name)\" is given twice")
                }
                named.append((name, file))
            } else {
                guard unnamed == nil, !named.contains(where: { $0.name == CollectionName.default }) else {
                    throw UsageError(description: "typeahead local: one --catalog FILE only (the collection \"default\"); "
                                     + "name the others: --catalog NAME=FILE")
                }
                unnamed = value
            }
        }
        // `--catalog default=FILE` is the unnamed catalog by another spelling.
        if let index = named.firstIndex(where: { $0.name == CollectionName.default }) {
            unnamed = named.remove(at: index).catalog
        }
        return (unnamed, named)
    }

    static func printSummary(_ summary: LocalCluster.Summary) {
        let base = "http://\(summary.coordinator)"
        let replicaCount = summary.nodes.first?.count ?? 0
        var lines: [String] = []
        if summary.collections.count == 1, let only = summary.collections.first {
            lines.append("typeahead local: \(summary.nodes.count) shards × \(replicaCount) replicas from \(only.catalog) "
                         + "(\(summary.entriesPerShard.reduce(0, +)) entries, generation \(summary.generation))")
            for (shard, replicas) in summary.nodes.enumerated() {
                lines.append("  shard-\(shard)  \(summary.entriesPerShard[shard]) entries  "
                             + replicas.map { "http://\($0)" }.joined(separator: "  "))
            }
        } else {
            lines.append("typeahead local: \(summary.nodes.count) shards × \(replicaCount) replicas of \(summary.collections.count) collections")
            for (index, collection) in summary.collections.enumerated() {
                lines.append("  collection \(collection.name)\(index == 0 ? " (default)" : "") from \(collection.catalog): "
                             + "\(collection.entriesPerShard.reduce(0, +)) entries (" + collection.entriesPerShard.map(String.init).joined(separator: " + ")
                             + "), generation \(collection.generation)")
            }
            for (shard, replicas) in summary.nodes.enumerated() {
                lines.append("  shard-\(shard)  " + replicas.map { "http://\($0)" }.joined(separator: "  "))
            }
        }
        for scope in summary.scopes {
            lines.append("  scope \(scope.name)  \"\(scope.label)\", prompt \"\(scope.prompt)\": " + scope.collections.joined(separator: ", "))
        }
        let other = summary.collections.dropFirst().first.map { "  curl '\(base)/v1/suggest?q=gar&limit=3&collection=\($0.name)'" }
        let scoped = summary.scopes.first.map { ["  curl '\(base)/v1/suggest?q=gar&limit=3&scope=\($0.name)'", "  curl '\(base)/v1/describe'"] }
        lines += [
            "  coordinator  \(base)",
            "  cluster file \(summary.clusterFile)   admin token \(summary.tokenFile)",
            "  logs         \(summary.logDirectory)",
            "",
            "Open \(base)/ in a browser: the search field, live suggestions and each keystroke's latency.",
            "Try:",
            "  curl '\(base)/v1/suggest?q=red%20sh&limit=3'",
        ] + (other.map { [$0] } ?? []) + (scoped ?? []) + [
            "  curl '\(base)/v1/search?q=knife&pageSize=5'",
            "  curl --http2-prior-knowledge -H 'content-type: application/json' -d '{\"text\":\"gard\",\"session\":\"s1\",\"revision\":\"4\"}' \(base)/typeahead.v1.Typeahead/Suggest",
            "  curl \(base)/metrics",
            "or gRPC on \(summary.coordinator) (proto/typeahead/v1/typeahead.proto). Ctrl-C stops the cluster.",
        ]
        // Straight to the descriptor: a pipe sees it at once, not when the buffer fills.
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    static func query(_ text: String, at endpoint: Endpoint) async throws -> Typeahead_V1_SuggestResponse {
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let connection = try await client.connect(host: endpoint.host, port: endpoint.port)
        return try await GRPCClient.call(Typeahead_V1_TypeaheadService.suggest, Typeahead_V1_SuggestRequest(text: text),
                                         on: connection, options: .init(timeout: .seconds(5)))
    }

    /// This executable (the processes of the cluster run it too).
    static func selfExecutable() throws -> String {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw UsageError(description: "typeahead local: cannot find its own executable", status: 1)
        }
        return path
    }
}

/// Runs async work from the synchronous command line (the main thread waits; the work runs on
/// the concurrency pool, never on the main actor).
enum Blocking {
    static func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let result = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do {
                let value = try await work()
                result.withLock { $0 = .success(value) }
            } catch {
                result.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0 }!.get()
    }
}
