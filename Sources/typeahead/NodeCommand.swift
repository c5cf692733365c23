import Dispatch
import Foundation
import Storage
import HTTP2
import Index
import Node
import Observability
import RPC
import Wire

enum NodeCommand {
    static let help = """
    usage: typeahead node --dir DIR [--collection NAME=DIR]... [--listen HOST:PORT] [--admin-token-file F] [--read-token-file F]
                          [--search-key-secret-file F] [--tls-cert F --tls-key F [--tls-client-ca F]]
                          [--threads N] [--max-message-bytes N] [--answer-cache-mb N]
                          [--merge-delta-percent P] [--merge-minimum N] [--merge-spread-percent S] [--build-memory MB]
                          [--log-format logfmt|json] [--log-level L] [--port-file F] [--request-head-timeout S]
                          [--no-prefault]

    Serves one shard over HTTP/2 (cleartext with prior knowledge, or TLS with ALPN): gRPC on the typeahead.v1.Typeahead,
    typeahead.v1.Shard and grpc.health.v1.Health services; the same client methods as JSON (POST
    with content-type application/json); GET /v1/suggest?q=…, /v1/search?q=…, /healthz, /readyz and
    /metrics. Stops gracefully on SIGTERM or SIGINT.

    A node may serve a shard of several collections (named catalogs), each its own directory:
    a request names its collection (`collection`, `?collection=NAME`); one that names none reads
    the default collection: --dir's (named "default"), or without --dir the first --collection.

    Options:
      --dir DIR                the shard directory (built with typeahead index) of the collection
                               named "default"
      --collection NAME=DIR    also serve collection NAME (1-64 bytes of a-z, 0-9, _ and -) from
                               the shard directory DIR; repeat for more
      --listen HOST:PORT       where to listen (default 127.0.0.1:7701)
      --admin-token-file F     bearer token required by writes and generation changes
                               (or the environment variable TYPEAHEAD_ADMIN_TOKEN); without one,
                               those methods are refused
      --read-token-file F      also require a bearer token for reads
      --search-key-secret-file F  accept search keys signed with a secret of F (one a line) for
                               reads, forcing each key's tokens onto the query (typeahead admin
                               search-key derives them)
      --tls-cert F, --tls-key F  serve HTTPS: a PEM certificate chain and its private key (ALPN h2
                               and http/1.1; both files are read again on SIGHUP)
      --tls-client-ca F        with --tls-cert: require every client (the coordinators, admin) to
                               present a certificate this CA signed (mutual TLS)
      --threads N              event-loop threads (default: one per core)
      --max-message-bytes N    largest request message (default 4194304)
      --answer-cache-mb N      megabytes of encoded Suggest answers kept for callers asking the
                               same again (default 64; 0 turns it off). Exact: answers are kept
                               per data version, and any write or activation retires them
      --merge-delta-percent P  fold the delta (entries upserted since the build, plus base entries
                               replaced or deleted) into a new base in the background once it is
                               P percent of the base (default 1; 0 never: only a reindex does).
                               Answers stay the same; queries get back the speed of a fresh build
      --merge-minimum N        ...and at least N entries (default 100). Each node raises both by a
                               share it draws once, up to --merge-spread-percent (default 50), so
                               replicas taking the same writes do not all merge at once
      --build-memory MB        what a build's sorts hold in memory before they spill runs beside
                               the generation being written (default 512; `typeahead index
                               --memory`). A reindex's upload and a merge's live entries stream
                               into the build
      --request-head-timeout S seconds a client has to send a whole request head (HTTP/1.1) or
                               header block (HTTP/2), however slowly it trickles (default 10)
      --log-format F           logfmt (default) or json, one line per event on standard error
      --log-level L            trace, debug, info (default), notice, warning or error: the least
                               severe events written (debug shows connections closed on errors)
      --port-file F            write the bound port to F once serving (for --listen HOST:0)
      --no-prefault            do not map a generation's pages into memory when it opens: by
                               default a background thread reads the whole index once after a
                               start or a switch, so that the first queries do not fault it in
                               page by page (the pages count in the node's resident memory as
                               file cache, which the kernel may reclaim)
      --fault-stall P:MS       fault injection for benchmarks and chaos tests: answer P percent of
                               shard calls MS milliseconds late (default off)
    """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, command: "node", flags: ["--no-prefault"],
                                 options: ["--dir", "--collection", "--listen", "--admin-token-file", "--read-token-file", "--search-key-secret-file", "--tls-cert", "--tls-key", "--tls-client-ca", "--threads",
                                           "--max-message-bytes", "--answer-cache-mb", "--merge-delta-percent", "--merge-minimum", "--merge-spread-percent", "--build-memory", "--log-format", "--log-level", "--port-file", "--fault-stall", "--request-head-timeout"])
        if args.wantsHelp { print(help); return 0 }
        guard args.positionals.isEmpty else {
            throw UsageError(description: "typeahead node: unexpected argument \"\(args.positionals[0])\"")
        }
        var configuration = NodeConfiguration()
        (configuration.server.host, configuration.server.port) = try ListenAddress.parse(args.value("--listen") ?? "127.0.0.1:7701", command: "node")
        configuration.server.threads = try args.integer("--threads", default: configuration.server.threads, range: 1...256)
        configuration.server.requestHeadTimeout = try args.seconds("--request-head-timeout", default: configuration.server.requestHeadTimeout,
                                                                   range: 0.1...3600)
        configuration.server.maximumMessageBytes = try args.integer("--max-message-bytes", default: configuration.server.maximumMessageBytes,
                                                                    range: 1024...(256 << 20))
        configuration.answerCacheBytes = try args.integer("--answer-cache-mb", default: configuration.answerCacheBytes >> 20, range: 0...65_536) << 20
        let mergePercent = try args.double("--merge-delta-percent", default: 1, range: 0...100_000)
        let mergeMinimum = try args.integer("--merge-minimum", default: 100, range: 0...Int(Int32.max))
        let buildMemory = try IndexOptions.buildMemory(args, option: "--build-memory")
        configuration.mergePolicy = mergePercent == 0 ? .never : MergePolicy(deltaFraction: mergePercent / 100, minimumDelta: mergeMinimum)
        configuration.mergeSpread = try args.double("--merge-spread-percent", default: 50, range: 0...1_000) / 100
        configuration.server.adminToken = try Tokens.read(file: args.value("--admin-token-file"), environment: "TYPEAHEAD_ADMIN_TOKEN", command: "node")
        configuration.server.readToken = try Tokens.read(file: args.value("--read-token-file"), environment: nil, command: "node")
        configuration.server.searchKeySecrets = try SearchKeySecrets.read(file: args.value("--search-key-secret-file"), command: "node")
        configuration.server.tls = try TLSFiles.context(args, command: "node")
        let format = try args.choice("--log-format", default: LogFormatChoice.logfmt)
        if let stall = args.value("--fault-stall") {
            let parts = stall.split(separator: ":").map { Double($0) }
            guard parts.count == 2, let share = parts[0], let millis = parts[1], (0...100).contains(share), (0...60_000).contains(millis) else {
                throw UsageError(description: "typeahead node: --fault-stall must look like PERCENT:MS (e.g. 1:10), got \"\(stall)\"")
            }
            configuration.faultStallShare = share / 100
            configuration.faultStall = .microseconds(Int64(millis * 1000))
        }

        if args.flag("--no-prefault") { Shard.prefaultsOnOpen = false }

        // A server's allocator: fixed thresholds, free pages handed back (see ServingAllocator).
        ServingAllocator.configure()
        let releasing = ServingAllocator.startReleasing()
        defer { releasing.cancel() }
        // Builds (a reindex's finish, compaction) run on the node's low-priority thread alone, so
        // that serving keeps its pace while they run (see BackgroundThread).
        let collections = try CollectionDirectories.parse(dir: args.value("--dir"), collections: args.all("--collection"), command: "node")
            .map { (name: $0.name, shard: try Shard(directory: $0.directory, parallelBuilds: false, buildMemory: buildMemory)) }
        let telemetry = ServerTelemetry(label: "node", json: format == .json,
                                        level: try args.choice("--log-level", default: LogLevelChoice.info).level)
        let node = NodeServer(collections: collections, configuration: configuration, telemetry: telemetry)
        let port = try node.start()
        try PortFile.write(port, to: args.value("--port-file"), command: "node")
        let scheme = configuration.server.tls == nil ? "http" : "https"
        for (index, collection) in collections.enumerated() {
            let shard = collection.shard
            let which = collections.count == 1 ? "" : " as collection \(collection.name)\(index == 0 ? " (default)" : "")"
            printError("typeahead node: serving \(shard.directory)\(which) on \(scheme)://\(configuration.server.host):\(port) (generation \(shard.currentGeneration.map(String.init) ?? "none"))")
        }
        let reloads = TLSFiles.reloadOnHangUp(configuration.server.tls, command: "node")
        defer { withExtendedLifetime(reloads) {} }
        Signals.waitForTermination()
        node.shutdown()
        return 0
    }
}

/// `--dir DIR` and `--collection NAME=DIR`: the collections a node serves, the default first.
enum CollectionDirectories {
    static func parse(dir: String?, collections: [String], command: String) throws -> [(name: String, directory: String)] {
        var all: [(name: String, directory: String)] = dir.map { [(CollectionName.default, $0)] } ?? []
        for value in collections {
            guard let equals = value.firstIndex(of: "="), case let name = String(value[..<equals]),
                  case let directory = String(value[value.index(after: equals)...]), !directory.isEmpty else {
                throw UsageError(description: "typeahead \(command): --collection must look like NAME=DIR, got \"\(value)\"")
            }
            if let problem = CollectionName.problem(name) {
                throw UsageError(description: "typeahead \(command): --collection: the name \(problem)")
            }
            guard !all.contains(where: { $0.name == name }) else {
                let clash = name == CollectionName.default && dir != nil ? " (--dir is the collection \"default\")" : ""
                throw UsageError(description: "typeahead \(command): collection \"\(name)\" is given twice\(clash)")
            }
            all.append((name, directory))
        }
        guard !all.isEmpty else {
            throw UsageError(description: "typeahead \(command): --dir or --collection is required (see typeahead \(command) --help)")
        }
        // One LMDB environment must never be opened twice in a process.
        let paths = all.map { URL(fileURLWithPath: $0.directory).standardizedFileURL.resolvingSymlinksInPath().path }
        if let repeated = paths.first(where: { path in paths.filter { $0 == path }.count > 1 }) {
            throw UsageError(description: "typeahead \(command): \(repeated) serves two collections; each needs its own directory")
        }
        return all
    }
}

enum LogFormatChoice: String, CaseIterable {
    case logfmt, json
}

/// `--log-level`: the least severe events a server writes.
enum LogLevelChoice: String, CaseIterable {
    case trace, debug, info, notice, warning, error

    var level: Logger.Level {
        switch self {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        }
    }
}

enum ListenAddress {
    /// HOST:PORT or [IPv6]:PORT; an empty host is every interface. `option` names the flag in errors.
    static func parse(_ text: String, command: String, option: String = "--listen") throws -> (String, Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw UsageError(description: "typeahead \(command): \(option) must look like HOST:PORT, got \"\(text)\"")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "0.0.0.0" : host, port)
    }
}

enum PortFile {
    /// Writes the port atomically (a reader never sees a partial number).
    static func write(_ port: Int, to path: String?, command: String) throws {
        guard let path else { return }
        do {
            try DurableFile.replace(path, with: Data("\(port)\n".utf8))
        } catch {
            throw UsageError(description: "typeahead \(command): cannot write the port file \(path): \(error)", status: 1)
        }
    }
}

enum Tokens {
    /// A bearer token shorter than this is refused wherever it comes from: one that guessing or a
    /// timing probe could find is no protection for the write API.
    static let minimumLength = 16

    /// A token from a file (surrounding white space trimmed) or the environment (likewise); nil if
    /// neither is given. Both sources obey the same rule: at least ``minimumLength`` characters.
    static func read(file: String?, environment: String?, command: String) throws -> String? {
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw UsageError(description: "typeahead \(command): cannot read token file \(file)", status: 1)
            }
            return try checked(String(decoding: data, as: UTF8.self), source: "the token in \(file)", command: command)
        }
        if let environment, let value = ProcessInfo.processInfo.environment[environment], !value.isEmpty {
            return try checked(value, source: "the token in \(environment)", command: command)
        }
        return nil
    }

    private static func checked(_ raw: String, source: String, command: String) throws -> String {
        let token = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.count >= minimumLength else {
            throw UsageError(description: "typeahead \(command): \(source) is shorter than \(minimumLength) characters", status: 1)
        }
        return token
    }
}

enum SearchKeySecrets {
    /// The secrets that verify search keys, or none without a file.
    static func read(file: String?, command: String) throws -> [[UInt8]] {
        guard let file else { return [] }
        do {
            return try SearchKey.secrets(fromFile: file)
        } catch let error as SearchKey.SecretsError {
            throw UsageError(description: "typeahead \(command): \(error)", status: 1)
        }
    }
}

/// `--tls-cert F --tls-key F`: the server's TLS context, read again on SIGHUP (a renewed
/// certificate is served to new connections without a restart; open ones keep theirs).
enum TLSFiles {
    static func context(_ args: Arguments, command: String) throws -> HTTP2TLSContext? {
        let clients = args.value("--tls-client-ca")
        switch (args.value("--tls-cert"), args.value("--tls-key")) {
        case (nil, nil):
            guard clients == nil else { throw UsageError(description: "typeahead \(command): --tls-client-ca needs --tls-cert and --tls-key") }
            return nil
        case (let certificate?, let key?):
            do {
                return try HTTP2TLSContext(certificateChain: certificate, privateKey: key, clientCertificateAuthorities: clients)
            } catch {
                throw UsageError(description: "typeahead \(command): \(error)", status: 1)
            }
        default:
            throw UsageError(description: "typeahead \(command): give both --tls-cert and --tls-key, or neither")
        }
    }

    /// A client's TLS files from `--tls-ca F` (the CA certificates to trust) and, for mutual TLS,
    /// `--tls-cert F --tls-key F` (the certificate to present); nil without any of them.
    static func clientFiles(_ args: Arguments, command: String) throws -> (authorities: String, certificate: String?, key: String?)? {
        let certificate = args.value("--tls-cert"), key = args.value("--tls-key")
        guard let authorities = args.value("--tls-ca") else {
            guard certificate == nil, key == nil else {
                throw UsageError(description: "typeahead \(command): --tls-cert and --tls-key need --tls-ca (the CA to trust)")
            }
            return nil
        }
        guard (certificate == nil) == (key == nil) else {
            throw UsageError(description: "typeahead \(command): give both --tls-cert and --tls-key, or neither")
        }
        return (authorities, certificate, key)
    }

    /// The same files, loaded: the TLS of a client that connects from this process.
    static func clientTLS(_ args: Arguments, command: String) throws -> HTTP2ClientTLS? {
        guard let files = try clientFiles(args, command: command) else { return nil }
        do {
            return try HTTP2ClientTLS(certificateAuthorities: files.authorities, certificateChain: files.certificate, privateKey: files.key)
        } catch {
            throw UsageError(description: "typeahead \(command): \(error)", status: 1)
        }
    }

    /// Installs the SIGHUP handler; keep the source alive while it should stay installed. A failed
    /// reload (a half-written file) keeps the certificate being served and says why.
    static func reloadOnHangUp(_ tls: HTTP2TLSContext?, command: String) -> DispatchSourceSignal? {
        guard let tls else { return nil }
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler {
            do {
                try tls.reload()
                printError("typeahead \(command): SIGHUP: reloaded \(tls.certificateChainPath) and \(tls.privateKeyPath)")
            } catch {
                printError("typeahead \(command): SIGHUP: kept the certificate in use: \(error)")
            }
        }
        source.resume()
        return source
    }
}

enum Signals {
    /// Calls `handler` (on a background queue) at the first SIGTERM or SIGINT; keep the returned
    /// sources alive for as long as the handler should stay installed.
    static func onTermination(_ handler: @escaping @Sendable () -> Void) -> [DispatchSourceSignal] {
        [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            return source
        }
    }

    /// Blocks until SIGTERM or SIGINT.
    static func waitForTermination() {
        let done = DispatchSemaphore(value: 0)
        var sources: [DispatchSourceSignal] = []
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { done.signal() }
            source.resume()
            sources.append(source)
        }
        done.wait()
        withExtendedLifetime(sources) {}
    }
}
