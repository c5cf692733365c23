import Catalog
import Cluster
import Foundation
import Index

enum IndexCommand {
    static let help = """
    usage: typeahead index --catalog FILE --dir DIR [--skip-invalid] [--shard I --shards N] [--progress P]

    Builds a new index generation in DIR from a JSON Lines catalog ('-' reads standard input) and
    makes it current. The previous generation keeps serving until the new one is complete, and is
    kept for rollback. A catalog with bad lines is refused (each listed with its line number) and
    nothing changes, unless --skip-invalid indexes the valid lines and prints a summary.

    Options:
      --catalog FILE          the catalog ('-' for standard input)
      --dir DIR               the shard directory (created if missing)
      --skip-invalid          index the valid lines, report the others
      --shard I --shards N    index only the entries the shard assignment places in shard I of N
                              (0-based; see `typeahead shard-of`), as one node of a cluster holds
      --generation G          number the new generation G (above any the directory has; default
                              the next one) — every replica of a cluster serves one number
      --list-size N           entries kept per heavy trie node (default 32)
      --heavy-threshold N     postings that make a prefix heavy (default 32)
      --filterable A,B        attribute keys whose values become tokens ({"kind":"color",
                              "value":"red"}) and token chips beside categories; the generation
                              keeps them (upserts and merges index them too). Each 1 to 64 bytes
                              of [a-z0-9_-], not "category" (default none)
      --memory MB             what the build's sorts and postings hold in memory before they
                              spill runs to disk, in a folder of the generation being written
                              (default 512). Beyond it the build needs about 32 bytes an entry
                              and 64 MB a write transaction: 650 MiB in all for 10M entries. The
                              generation written is the same whatever the budget
      --progress P            terminal, plain or none: where reading and building stand, on
                              standard error (default: terminal on a terminal, else plain)
    """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, command: "index", flags: ["--skip-invalid"],
                                 options: ["--catalog", "--dir", "--list-size", "--heavy-threshold", "--shard", "--shards", "--generation",
                                           "--filterable", "--progress", "--memory"])
        if args.wantsHelp { print(help); return 0 }
        guard args.positionals.isEmpty else {
            throw UsageError(description: "typeahead index: unexpected argument \"\(args.positionals[0])\"")
        }
        let catalog = try args.required("--catalog")
        let directory = try args.required("--dir")
        let parameters = IndexParameters(listSize: try args.integer("--list-size", default: 32, range: 1...1024),
                                         heavyThreshold: try args.integer("--heavy-threshold", default: 32, range: 1...1_000_000),
                                         filterableAttributes: try IndexOptions.filterable(args, command: "index") ?? [])
        var part: (shard: Int, of: Int)?
        if args.value("--shard") != nil || args.value("--shards") != nil {
            let count = try args.integer("--shards", default: 0, range: 1...4096)
            guard args.value("--shard") != nil else { throw UsageError(description: "typeahead index: --shards needs --shard") }
            part = (try args.integer("--shard", default: 0, range: 0...(count - 1)), count)
        }
        let memory = try IndexOptions.buildMemory(args, option: "--memory")
        let requestedGeneration = args.value("--generation") == nil ? nil : try args.integer("--generation", default: 1, range: 1...Int(Int32.max))
        let style: IndexProgress.Style? = switch args.value("--progress") {
        case nil: nil
        case let name?:
            try IndexProgress.Style(rawValue: name)
                ?? { throw UsageError(description: "typeahead index: --progress must be terminal, plain or none, got \"\(name)\"") }()
        }
        let progress = IndexProgress(style: style)
        defer { progress.end() }
        let started = Date()
        // Read as it is indexed: the build takes batches from the stream, and holds none of them
        // once analysed (its memory is --memory's, whatever the catalog's size).
        let stream = try CatalogStream(path: catalog, policy: args.flag("--skip-invalid") ? .skipInvalid : .strict,
                                       progress: { progress.read($0, totalBytes: $1) })
        // The command ends once the generation is current: mapping its pages in (as a node does
        // when it opens one) would only add the file's size to the command's memory.
        Shard.prefaultsOnOpen = false
        let shard = try Shard(directory: directory, buildMemory: memory)
        var readEnded: Date?
        let info: GenerationInfo
        do {
            info = try shard.build(parameters: parameters, number: requestedGeneration, onStage: { progress.stage($0, seconds: $1) }) {
                while let batch = try stream.nextBatch() {
                    guard let part else { return batch[...] }
                    let mine = batch.filter { ShardAssignment.shard(of: $0.id, shardCount: part.of) == part.shard }
                    if !mine.isEmpty { return mine[...] }
                }
                progress.finishedReading(stream.summary)
                readEnded = Date()
                return nil
            }
        } catch let error as CatalogValidationError {
            progress.end()
            printError("typeahead index: \(error.description)")
            printError("nothing was indexed; the current generation keeps serving. Fix the lines above or pass --skip-invalid.")
            return 1
        }
        progress.end()
        for warning in stream.summary.notices.warnings { printError("typeahead index: warning: \(warning)") }
        if stream.totalErrors > 0 {
            for error in stream.errors { printError("skipped \(error)") }
            if stream.totalErrors > stream.errors.count { printError("… and \(stream.totalErrors - stream.errors.count) more invalid lines") }
        }
        let finished = Date()
        let seconds = finished.timeIntervalSince(started)
        let rate = Double(info.entries) / max(seconds, 1e-9)
        print("indexed \(info.entries) entries into \(directory) (generation \(info.number))"
              + (stream.totalErrors == 0 ? "" : ", skipped \(stream.totalErrors) invalid lines"))
        print(String(format: "  %.2f s (read and analyse %.2f s, write %.2f s), %.0f entries/s, %ld bytes on disk (%.1f per entry)",
                     seconds, (readEnded ?? finished).timeIntervalSince(started), finished.timeIntervalSince(readEnded ?? finished), rate,
                     info.bytes, Double(info.bytes) / Double(max(1, info.entries))))
        var usage = rusage()
        if getrusage(RUSAGE_SELF.rawValue, &usage) == 0 {
            print(String(format: "  peak memory %.0f MiB (the catalog read as it was indexed; see --memory)", Double(usage.ru_maxrss) / 1024))
        }
        if let build = info.build {
            print("  \(build.terms) terms, \(build.postings) postings, \(build.heavyNodes) heavy trie nodes")
            if build.spillFiles > 0 { print("  spilled sorted runs and postings to \(build.spillFiles) files (see --memory)") }
            print("  stages: " + build.stages.map { String(format: "%@ %.2f s", $0.name, $0.seconds) }.joined(separator: ", "))
        }
        return 0
    }
}

enum ShardOfCommand {
    static let help = """
    usage: typeahead shard-of --shards N ID...

    Prints which shard (0-based) of an N-shard cluster holds each id, by the shard assignment every
    part of a cluster uses: jump consistent hash of the mixed FNV-1a hash of the id's UTF-8 bytes
    (README, "Shards and replicas").
    """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, command: "shard-of", flags: [], options: ["--shards"])
        if args.wantsHelp { print(help); return 0 }
        let count = try args.integer("--shards", default: 0, range: 1...4096)
        guard !args.positionals.isEmpty else { throw UsageError(description: "typeahead shard-of: give at least one id") }
        for id in args.positionals { print("\(ShardAssignment.shard(of: id, shardCount: count))\t\(id)") }
        return 0
    }
}
