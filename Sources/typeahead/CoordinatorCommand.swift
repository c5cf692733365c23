import Cluster
import Coordinator
import Foundation
import RPC

enum CoordinatorCommand {
    static let help = """
    usage: typeahead coordinator --cluster FILE [--listen HOST:PORT] [--token-file F] [--read-token-file F]
                                 [--node-token-file F] [--threads N] [--log-format logfmt|json] [--log-level L] [--port-file F]
                                 [--request-head-timeout S] [--search-key-secret-file F] [--tls-cert F --tls-key F]

    Serves a cluster to clients: the typeahead.v1.Typeahead service (gRPC, JSON POST, GET
    /v1/suggest and /v1/search) exactly as one node holding the whole catalog would answer it, by
    fanning every call out to one replica of each shard and merging their answers. Also
    typeahead.v1.Cluster (status, admin token), grpc.health.v1.Health, /healthz, /readyz (200 once
    a generation is served by the shards of every collection) and /metrics. Stops gracefully on
    SIGTERM or SIGINT.

    A cluster file may declare several collections (named catalogs, each with its own shards):
    a request names one (`collection`, `?collection=NAME`), or reads the file's defaultCollection.

    Options:
      --cluster FILE           the cluster file: collections, shards, replicas, settings (see deploy/cluster/)
      --listen HOST:PORT       where to listen (default 127.0.0.1:7700)
      --token-file F           admin token for the Cluster service (default: the cluster file's
                               settings.tokenFile, or TYPEAHEAD_ADMIN_TOKEN)
      --read-token-file F      require a bearer token from clients (default: settings.readTokenFile)
      --search-key-secret-file F  also accept search keys signed with a secret of F (one a line),
                               forcing each key's tokens onto the query (typeahead admin search-key)
      --node-token-file F      token sent to nodes with every call (default: the read token)
      --tls-cert F, --tls-key F  serve HTTPS to clients: a PEM certificate chain and its private key
                               (ALPN h2 and http/1.1; read again on SIGHUP)
      --threads N              event-loop threads (default: one per core)
      --request-head-timeout S seconds a client has to send a whole request head (HTTP/1.1) or
                               header block (HTTP/2), however slowly it trickles (default 10)
      --log-format F           logfmt (default) or json, one line per event on standard error
      --log-level L            trace, debug, info (default), notice, warning or error
      --port-file F            write the bound port to F once serving (for --listen HOST:0)
    """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, command: "coordinator", flags: [],
                                 options: ["--cluster", "--listen", "--token-file", "--read-token-file", "--search-key-secret-file", "--tls-cert", "--tls-key", "--node-token-file",
                                           "--threads", "--log-format", "--log-level", "--port-file", "--request-head-timeout"])
        if args.wantsHelp { print(help); return 0 }
        guard args.positionals.isEmpty else {
            throw UsageError(description: "typeahead coordinator: unexpected argument \"\(args.positionals[0])\"")
        }
        let cluster: ClusterFile
        do {
            cluster = try ClusterFile.load(path: try args.required("--cluster"))
        } catch let error as ClusterFileError {
            throw UsageError(description: "typeahead coordinator: \(error)", status: 1)
        }
        var configuration = CoordinatorServer.Configuration()
        (configuration.server.host, configuration.server.port) = try ListenAddress.parse(args.value("--listen") ?? "127.0.0.1:7700",
                                                                                         command: "coordinator")
        configuration.server.threads = try args.integer("--threads", default: configuration.server.threads, range: 1...256)
        configuration.server.requestHeadTimeout = try args.seconds("--request-head-timeout", default: configuration.server.requestHeadTimeout,
                                                                   range: 0.1...3600)
        configuration.server.adminToken = try Tokens.read(file: args.value("--token-file") ?? cluster.settings.tokenFile,
                                                          environment: "TYPEAHEAD_ADMIN_TOKEN", command: "coordinator")
        configuration.server.readToken = try Tokens.read(file: args.value("--read-token-file") ?? cluster.settings.readTokenFile,
                                                         environment: nil, command: "coordinator")
        configuration.server.searchKeySecrets = try SearchKeySecrets.read(file: args.value("--search-key-secret-file"),
                                                                          command: "coordinator")
        configuration.server.tls = try TLSFiles.context(args, command: "coordinator")
        configuration.nodeToken = try Tokens.read(file: args.value("--node-token-file"), environment: nil, command: "coordinator")
            ?? configuration.server.readToken
        let format = try args.choice("--log-format", default: LogFormatChoice.logfmt)
        ServingAllocator.configure()
        let releasing = ServingAllocator.startReleasing()
        defer { releasing.cancel() }
        let coordinator = CoordinatorServer(cluster: cluster, configuration: configuration,
                                            telemetry: ServerTelemetry(label: "coordinator", json: format == .json,
                                                                       level: try args.choice("--log-level", default: LogLevelChoice.info).level))
        let port = try coordinator.start()
        try PortFile.write(port, to: args.value("--port-file"), command: "coordinator")
        // One collection reads as before collections; several are listed, the default first.
        let layout = cluster.collections.count == 1 ? "\(cluster.shards.count) shards, \(cluster.replicas.count) replicas"
            : "collections " + cluster.collections.map { collection in
                "\(collection.name)\(collection.name == cluster.defaultCollection ? " (default)" : ""): \(collection.shards.count) shards"
            }.joined(separator: ", ") + ", \(cluster.replicas.count) nodes"
        printError("typeahead coordinator: serving cluster \(cluster.name) (\(layout)) on "
                   + "\(configuration.server.tls == nil ? "http" : "https")://\(configuration.server.host):\(port)")
        let reloads = TLSFiles.reloadOnHangUp(configuration.server.tls, command: "coordinator")
        defer { withExtendedLifetime(reloads) {} }
        Signals.waitForTermination()
        coordinator.shutdown()
        return 0
    }
}
