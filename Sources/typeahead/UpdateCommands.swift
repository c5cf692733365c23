import Catalog
import Foundation
import Index

enum UpsertCommand {
    static let help = """
    usage: typeahead upsert --dir DIR FILE

    Inserts or replaces (by id) the entries of a JSON Lines file ('-' for standard input) in the
    current generation, in one atomic batch, visible to the next query. A file with bad lines is
    refused whole.
    """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, command: "upsert", flags: [], options: ["--dir"])
        if args.wantsHelp { print(help); return 0 }
        guard args.positionals.count == 1 else {
            throw UsageError(description: "typeahead upsert: give exactly one FILE (see typeahead upsert --help)")
        }
        let shard = try ExistingShard.open(try args.required("--dir"), command: "upsert")
        let loaded: (entries: [CatalogEntry], errors: [CatalogLineError], summary: CatalogSummary)
        do {
            loaded = try loadCatalog(path: args.positionals[0], policy: .strict)
        } catch let error as CatalogValidationError {
            printError("typeahead upsert: \(error.description)")
            printError("nothing was changed.")
            return 1
        }
        for warning in loaded.summary.notices.warnings { printError("typeahead upsert: warning: \(warning)") }
        let summary = try shard.upsert(loaded.entries)
        print("upserted \(loaded.entries.count) entries: \(summary.inserted) new, \(summary.replaced) replaced")
        return 0
    }
}

enum DeleteCommand {
    static let help = """
    usage: typeahead delete --dir DIR ID...

    Deletes entries by id from the current generation, atomically. Unknown ids are reported.
    """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, command: "delete", flags: [], options: ["--dir"])
        if args.wantsHelp { print(help); return 0 }
        guard !args.positionals.isEmpty else {
            throw UsageError(description: "typeahead delete: give at least one ID (see typeahead delete --help)")
        }
        let shard = try ExistingShard.open(try args.required("--dir"), command: "delete")
        let summary = try shard.delete(ids: args.positionals)
        print("deleted \(summary.deleted) entries" + (summary.missing > 0 ? "; \(summary.missing) ids did not exist" : ""))
        return 0
    }
}

enum MergeCommand {
    static let help = """
    usage: typeahead merge --dir DIR [--memory MB]

    Folds the current generation's delta (entries upserted, replaced or deleted since its build)
    into a fresh base now, as a node does in the background once the delta passes its policy
    (typeahead node --merge-delta-percent). Answers stay the same; queries get the speed of a fresh
    build back. The generation keeps its number; the merged data is a new revision of it, named
    only once complete, so a crash or a kill mid-merge leaves the serving revision, and the
    half-built one is removed at the next open. --memory is the build's budget (typeahead index).
    """

    static func run(_ argv: [String]) throws -> Int32 {
        let args = try Arguments(argv, command: "merge", flags: [], options: ["--dir", "--memory"])
        if args.wantsHelp { print(help); return 0 }
        guard args.positionals.isEmpty else {
            throw UsageError(description: "typeahead merge: unexpected argument \"\(args.positionals[0])\"")
        }
        let memory = try IndexOptions.buildMemory(args, option: "--memory")
        Shard.prefaultsOnOpen = false
        let shard = try ExistingShard.open(try args.required("--dir"), command: "merge", buildMemory: memory)
        let started = Date()
        guard let merged = try shard.merge() else {
            print("nothing to merge: the current generation has no delta")
            return 0
        }
        print(String(format: "merged %d delta documents and %d replaced or deleted base documents into generation %d revision %d "
                     + "(%d entries) in %.2f s", merged.delta.documents, merged.delta.deletedBase, merged.generation, merged.revision,
                     merged.entries, Date().timeIntervalSince(started)))
        return 0
    }
}

/// Updates change a shard that exists: a mistyped `--dir` must not create an empty directory (and
/// then fail for want of a generation). `typeahead index` is what creates shards.
enum ExistingShard {
    static func open(_ directory: String, command: String, buildMemory: Int = Shard.defaultBuildMemory) throws -> Shard {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw UsageError(description: "typeahead \(command): no shard at \(directory) (typeahead index --dir \(directory) builds one)",
                             status: 1)
        }
        return try Shard(directory: directory, buildMemory: buildMemory)
    }
}
