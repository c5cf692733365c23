import Foundation
import Index

/// Build settings shared by the commands that build generations (`index`, `local`, `admin reindex`).
enum IndexOptions {
    /// `--filterable A,B`: attribute keys declared filterable, checked by the token kind rule
    /// (nil when the option is absent; `--filterable ""` declares none).
    static func filterable(_ args: Arguments, command: String) throws -> [String]? {
        try args.value("--filterable").map { try filterable($0, command: command) }
    }

    /// A comma-separated list of attribute keys, checked and sorted.
    static func filterable(_ text: String, command: String) throws -> [String] {
        let names = text.split(separator: ",", omittingEmptySubsequences: true).map { String($0).trimmingCharacters(in: .whitespaces) }
        do {
            return try SearchToken.Kind.filterable(names)
        } catch {
            throw UsageError(description: "typeahead \(command): --filterable: \(error.message)")
        }
    }

    /// `--memory MB` (`index`, `merge`) or `--build-memory MB` (`node`): what a build's sorts hold
    /// in memory before they spill (``Shard/buildMemory``), in bytes; 16 MB at least.
    static func buildMemory(_ args: Arguments, option: String) throws -> Int {
        try args.integer(option, default: Shard.defaultBuildMemory >> 20, range: 16...1 << 20) << 20
    }
}
