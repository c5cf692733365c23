import Admin
import Cluster
import Dispatch
import Foundation
import Index
import Wire

enum AdminCommand {
    static let help = """
    usage: typeahead admin [--cluster FILE | --coordinator HOST:PORT] [--token-file F]
                           [--tls-ca F [--tls-cert F --tls-key F]] COMMAND [OPTIONS]

    Operates a running cluster. The cluster is described by its cluster file, or learned from a
    coordinator (which lists every replica). Every command works on one collection: the one
    --collection NAME names, else the cluster's default collection. The admin token comes from --token-file, the
    environment variable TYPEAHEAD_ADMIN_TOKEN, or the cluster file's settings.tokenFile.
    --tls-ca F reaches the coordinators over HTTPS, trusting the CA certificates of F (with
    --tls-cert and --tls-key: presenting that client certificate, for mutual TLS); with
    --coordinator, the replicas it lists are reached the same way, and with --cluster as the
    file's settings say.

    Commands:
      reindex --catalog FILE|-   zero-downtime full reindex: validate the whole catalog (nothing is
              [--skip-invalid]   sent if a line is bad), upload each shard's part to every replica in
              [--list-size N]    resumable batches, build the new generation beside the serving one,
              [--heavy-threshold N]  then switch the whole cluster to it at once (no query sees a mix)
              [--batch-size N]   and keep the old one for rollback. Interrupted, the cluster keeps
              [--patience S]     serving; run the same command again to continue.
              [--progress P]
      upsert FILE [--skip-invalid]   insert or replace entries (JSON Lines), each on every replica of its shard
      delete ID...               delete entries by id
      status [--json]            shards, replicas, health, generations, entries, disk and map use, latency
      rollback [--to N]          make the previous generation (or generation N) current again, cluster-wide
      drop-generation N          remove generation N from every replica (never the serving one)
      compact                    rewrite every replica's index without free pages, online, and switch to it
      Each takes --collection NAME: the collection to work on (default: the cluster's default
      collection), e.g. `typeahead admin --cluster c.json reindex --collection products --catalog p.jsonl`.
      search-key --secret-file F [--token category=NAME]... [--expires-in S]
                                 print a search key for a browser (offline; see its --help)

    `typeahead admin COMMAND --help` describes one command.
    Exit status: 0 done, 1 failed (the message says what to do), 2 usage error, 130 interrupted.
    """

    /// `typeahead admin COMMAND --help`: what the command does and its options, without
    /// connecting to anything.
    static let commandHelp: [String: String] = [
        "reindex": """
        usage: typeahead admin [--cluster FILE | --coordinator HOST:PORT] reindex [--collection NAME] --catalog FILE|- [OPTIONS]

        Zero-downtime full reindex. Validates the whole catalog first (every bad line with its
        number; nothing is sent if one is bad), uploads each shard's part to every replica in
        numbered batches, has every replica build the new generation beside the serving one, then
        activates it everywhere at once and waits until every coordinator serves it. The previous
        generation is kept for `rollback`. Interrupted (Ctrl-C, a node or coordinator restarted),
        the cluster keeps serving; the same command continues where each replica stands. Upserts
        and deletes made while it runs are logged by each replica and carried into the new
        generation (they override the file's version of an entry).

          --collection NAME      the collection to reindex (default: the cluster's default collection);
                                 the others keep serving what they serve
          --catalog FILE|-       the new catalog (JSON Lines); - reads standard input (spooled to a
                                 temporary file, since it is read once per shard)
          --skip-invalid         leave bad lines out instead of stopping (they are listed)
          --batch-size N         entries per upload batch (default 1000, at most 1000)
          --patience S           how long a replica may stay unreachable before the command gives up
                                 (default 120; counted from its last answer)
          --progress P           terminal, plain or none (default: terminal on a terminal, else plain)
          --list-size N, --heavy-threshold N   index parameters (default 32 and 32)
          --filterable A,B       attribute keys whose values become tokens and token chips; with
                                 --cluster, the collection's `filterableAttributes` in the file
                                 (an option that differs is refused), with --coordinator this
                                 option alone (default none)
        """,
        "upsert": """
        usage: typeahead admin [...] upsert FILE [--skip-invalid] [--collection NAME]

        Inserts or replaces the entries of FILE (JSON Lines) on every replica of each entry's
        shard, in the serving generation; visible to the next query. Bad lines stop it before
        anything is sent, unless --skip-invalid.
        """,
        "delete": """
        usage: typeahead admin [...] delete ID... [--collection NAME]

        Deletes entries by id from every replica of each id's shard; prints how many were found.
        """,
        "status": """
        usage: typeahead admin [...] status [--json] [--collection NAME]

        Shards, replicas, health, generations per replica, entries, disk and map use, recent
        latency, and what each coordinator serves: a table, or JSON with --json. Exit status 1
        when some replica or coordinator did not answer.
        """,
        "rollback": """
        usage: typeahead admin [...] rollback [--to N] [--collection NAME]

        Makes the previous generation current again on every replica (the current one becomes the
        previous), and waits until every coordinator serves it. With --to N, makes generation N
        current on every replica instead (any generation each still holds; `status` lists them).
        --to is safe to rerun: after a rollback that failed on some replicas, `rollback --to N`
        with the generation you meant finishes it.
        """,
        "drop-generation": """
        usage: typeahead admin [...] drop-generation N [--collection NAME]

        Removes generation N from every replica that holds it (never the serving one); an error
        when none does.
        """,
        "compact": """
        usage: typeahead admin [...] compact [--collection NAME]

        Rewrites every replica's serving generation without free pages as a new generation, then
        activates it cluster-wide like a reindex. Writes made meanwhile reach the copy.
        """,
    ]

    private static let globalOptions: Set<String> = ["--cluster", "--coordinator", "--token-file", "--tls-ca", "--tls-cert", "--tls-key"]

    /// Each command's flags and options (`--collection` on every one), parsed before anything is
    /// contacted: a usage error costs no connection, and the collection chooses the layout.
    private static let commandOptions: [String: (flags: Set<String>, options: Set<String>)] = [
        "reindex": (["--skip-invalid"], ["--catalog", "--list-size", "--heavy-threshold", "--batch-size", "--patience", "--progress", "--collection",
                                         "--filterable"]),
        "upsert": (["--skip-invalid"], ["--collection"]),
        "delete": ([], ["--collection"]),
        "status": (["--json"], ["--collection"]),
        "rollback": ([], ["--to", "--collection"]),
        "drop-generation": ([], ["--collection"]),
        "compact": ([], ["--collection"]),
    ]

    static func run(_ argv: [String]) throws -> Int32 {
        var global: [String] = []
        var rest = argv[...]
        while let first = rest.first, first.hasPrefix("-") {
            global.append(first)
            rest = rest.dropFirst()
            if globalOptions.contains(first), let value = rest.first {
                global.append(value)
                rest = rest.dropFirst()
            }
        }
        let args = try Arguments(global, command: "admin", flags: [], options: globalOptions)
        guard let command = rest.first, !args.wantsHelp, command != "help" else {
            print(help)
            return args.wantsHelp || rest.first == "help" ? 0 : 2
        }
        let sub = Array(rest.dropFirst())
        // Offline: needs the secret, not a cluster.
        if command == "search-key" { return try SearchKeyCommand.run(sub) }
        if sub.contains("--help") || sub.contains("-h") {
            guard let text = commandHelp[command] else {
                throw UsageError(description: "typeahead admin: unknown command \"\(command)\" (see typeahead admin --help)")
            }
            print(text)
            return 0
        }
        guard let spec = commandOptions[command] else {
            throw UsageError(description: "typeahead admin: unknown command \"\(command)\" (see typeahead admin --help)")
        }
        let commandArgs = try Arguments(sub, command: "admin \(command)", flags: spec.flags, options: spec.options)
        let collection = commandArgs.value("--collection")
        if let collection, let problem = CollectionName.problem(collection) {
            throw UsageError(description: "typeahead admin \(command): --collection \(problem)")
        }
        let target: AdminClient.Target
        var tokenFile = args.value("--token-file")
        switch (args.value("--cluster"), args.value("--coordinator")) {
        case (let path?, nil):
            do {
                let file = try ClusterFile.load(path: path)
                tokenFile = tokenFile ?? file.settings.tokenFile
                target = .cluster(file)
            } catch {
                throw UsageError(description: "typeahead admin: \(error)", status: 1)
            }
        case (nil, let address?):
            guard let endpoint = Endpoint(address) else {
                throw UsageError(description: "typeahead admin: --coordinator must look like HOST:PORT, got \"\(address)\"")
            }
            target = .coordinator(endpoint)
        default:
            throw UsageError(description: "typeahead admin: give --cluster FILE or --coordinator HOST:PORT (see typeahead admin --help)")
        }
        let token = try Tokens.read(file: tokenFile, environment: "TYPEAHEAD_ADMIN_TOKEN", command: "admin")
        let tls = try TLSFiles.clientTLS(args, command: "admin")
        let interrupt = interruptHandler(for: command)
        defer { withExtendedLifetime(interrupt) {} }
        do {
            return try Blocking.run {
                let admin = try await AdminClient.connect(to: target, token: token, tls: tls, collection: collection)
                defer { admin.close() }
                return try await execute(command, commandArgs, admin)
            }
        } catch let error as AdminError {
            printError("typeahead admin \(command): \(error.description)")
            return 1
        }
    }

    /// Ctrl-C: say what state the cluster is in, then stop (uploads on the nodes stay for a rerun).
    static func interruptHandler(for command: String) -> DispatchSourceSignal {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            printError(command == "reindex"
                       ? "\ntypeahead admin reindex: interrupted. The cluster keeps serving; run the same command again to continue."
                       : "\ntypeahead admin \(command): interrupted.")
            exit(130)
        }
        source.resume()
        return source
    }

    /// A reindex's filterable attributes: the cluster file's declaration for the collection
    /// (`--filterable`, if given, must name the same), or `--filterable` alone without one.
    static func filterable(_ args: Arguments, declared: [String]?) throws -> [String] {
        let given = try IndexOptions.filterable(args, command: "admin reindex")
        guard let declared else { return given ?? [] }
        if let given, Set(given) != Set(declared) {
            throw UsageError(description: "typeahead admin reindex: --filterable \(given.joined(separator: ",")) differs from the cluster "
                             + "file's filterableAttributes [\(declared.joined(separator: ", "))] for this collection; change the file")
        }
        return declared
    }

    /// Runs `command` with its parsed arguments (``commandOptions``) on `admin`'s collection.
    static func execute(_ command: String, _ args: Arguments, _ admin: AdminClient) async throws -> Int32 {
        switch command {
        case "reindex":
            var options = Reindex.Options(catalog: try args.required("--catalog"))
            options.skipInvalid = args.flag("--skip-invalid")
            options.parameters = IndexParameters(listSize: try args.integer("--list-size", default: 32, range: 1...1024),
                                                 heavyThreshold: try args.integer("--heavy-threshold", default: 32, range: 1...1_000_000),
                                                 filterableAttributes: try filterable(args, declared: admin.layout.filterableAttributes))
            options.batchSize = try args.integer("--batch-size", default: 1000, range: 1...1000)
            options.patience = .seconds(try args.integer("--patience", default: 120, range: 1...86_400))
            let style: ProgressReporter.Style? = switch args.value("--progress") {
            case "terminal": .terminal
            case "plain": .plain
            case "none": .silent
            case nil: nil
            case let other?: throw UsageError(description: "typeahead admin reindex: --progress must be terminal, plain or none, got \"\(other)\"")
            }
            let outcome = try await Reindex(admin: admin, options: options, progress: ProgressReporter(style: style)).run()
            let kept = outcome.alreadyServing ? "(this catalog was already serving)"
                : outcome.previous == 0 ? "the cluster's first generation" : "previous generation \(outcome.previous) kept for rollback"
            print(String(format: "reindexed %d entries into generation %llu in %.1f s (%.0f entries/s)%@; %@",
                         outcome.entries, outcome.generation, outcome.seconds, Double(outcome.entries) / max(outcome.seconds, 1e-3),
                         outcome.skippedLines > 0 ? ", \(outcome.skippedLines) invalid lines skipped" : "", kept))
        case "upsert":
            guard args.positionals.count == 1 else { throw UsageError(description: "typeahead admin upsert: give one JSON Lines file") }
            let summary = try await Operations.upsert(admin, path: args.positionals[0], skipInvalid: args.flag("--skip-invalid")) {
                printError("typeahead admin upsert: \($0)")
            }
            print("upserted: \(summary.inserted) inserted, \(summary.replaced) replaced")
        case "delete":
            guard !args.positionals.isEmpty else { throw UsageError(description: "typeahead admin delete: give at least one id") }
            let summary = try await Operations.delete(admin, ids: args.positionals)
            print("deleted: \(summary.deleted) deleted, \(summary.missing) not found")
        case "status":
            let report = await Operations.status(admin)
            print(args.flag("--json") ? Operations.json(report) : Operations.table(report), terminator: "")
            let complete = report.replicas.allSatisfy { $0.stats != nil } && report.coordinators.allSatisfy { $0.1 != nil }
            return complete ? 0 : 1
        case "rollback":
            if let to = args.value("--to") {
                guard let number = UInt64(to), number > 0 else {
                    throw UsageError(description: "typeahead admin rollback: --to takes a generation number, got \"\(to)\"")
                }
                try await Operations.activate(admin, generation: number)
                print("generation \(number) is current on every replica and serves")
            } else {
                let serving = try await Operations.rollback(admin)
                print("rolled back on every replica; generation \(serving) serves")
            }
        case "drop-generation":
            guard args.positionals.count == 1, let number = UInt64(args.positionals[0]), number > 0 else {
                throw UsageError(description: "typeahead admin drop-generation: give one generation number")
            }
            let replicas = try await Operations.dropGeneration(admin, number)
            print("dropped generation \(number) from \(replicas) replica\(replicas == 1 ? "" : "s")")
        case "compact":
            let (generation, before, after) = try await Operations.compact(admin, progress: ProgressReporter())
            print("compacted into generation \(generation): \(before) → \(after) bytes in use across replicas")
        default:
            throw UsageError(description: "typeahead admin: unknown command \"\(command)\" (see typeahead admin --help)")
        }
        return 0
    }
}
