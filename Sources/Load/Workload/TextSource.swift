import Catalog
import Foundation

/// The texts simulated people set out to type: catalog titles picked by popularity, or the final
/// queries of a query log picked uniformly (a log's repeats already carry its popularity).
///
/// ```swift
/// let source = try TextSource.catalog(path: "deploy/catalog/sample.jsonl")
/// var random = SplitMix64(seed: 1)
/// let text = source.pick(&random)          // "Red Running Shoes", more often than rare titles
/// ```
public struct TextSource: Sendable {
    /// Where the texts came from, for the report ("catalog deploy/catalog/sample.jsonl").
    public let origin: String
    public let texts: [String]
    /// nil: uniform.
    private let sampler: WeightedSampler?

    /// Catalog titles, each with probability ∝ weight + 1 (the `+ 1` gives weightless entries a chance).
    public init(entries: [CatalogEntry], origin: String = "catalog") {
        precondition(!entries.isEmpty, "TextSource needs at least one entry")
        self.origin = origin
        texts = entries.map(\.title)
        sampler = WeightedSampler(weights: entries.lazy.map { Double($0.weight) + 1 })
    }

    /// Query texts, each line equally likely.
    public init(queries: [String], origin: String = "queries") {
        precondition(!queries.isEmpty, "TextSource needs at least one query")
        self.origin = origin
        texts = queries
        sampler = nil
    }

    /// One text. O(log n) for a catalog, O(1) for queries.
    public func pick(_ random: inout SplitMix64) -> String {
        texts[sampler?.sample(&random) ?? random.below(texts.count)]
    }

    /// Reads a JSON Lines catalog with the Catalog module (strict: any invalid line fails the
    /// whole file, naming up to 20 lines and the reason). Throws ``LoadError``.
    public static func catalog(path: String) throws(LoadError) -> TextSource {
        let entries: [CatalogEntry]
        do {
            entries = try loadCatalog(path: path, policy: .strict).entries
        } catch {
            throw LoadError(.workload, "catalog \(path): \(error)")
        }
        guard !entries.isEmpty else { throw LoadError(.workload, "catalog \(path) has no entries") }
        return TextSource(entries: entries, origin: "catalog \(path)")
    }

    /// Reads a query log: one final query text per line (UTF-8; blank lines are skipped; a
    /// trailing CR is dropped). Lines that are not UTF-8 or longer than the API's 4096 bytes fail
    /// the file, each named by its number. Throws ``LoadError``.
    public static func queries(path: String) throws(LoadError) -> TextSource {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw LoadError(.workload, "query file \(path) \(reason)")
        }
        let parsed = parseQueries(Array(data))
        if !parsed.errors.isEmpty {
            var message = "query file \(path) has \(parsed.errors.count) invalid line\(parsed.errors.count == 1 ? "" : "s"):"
            for error in parsed.errors.prefix(20) { message += "\n  \(error)" }
            if parsed.errors.count > 20 { message += "\n  … and \(parsed.errors.count - 20) more" }
            throw LoadError(.workload, message)
        }
        guard !parsed.queries.isEmpty else { throw LoadError(.workload, "query file \(path) has no queries (only blank lines)") }
        return TextSource(queries: parsed.queries, origin: "queries \(path)")
    }

    /// The largest text a Suggest or Search takes (typeahead.proto: "At most 4096 bytes of UTF-8").
    static let maximumQueryBytes = 4096

    /// Splits a query log into its queries and the invalid lines (1-based line numbers).
    static func parseQueries(_ bytes: [UInt8]) -> (queries: [String], errors: [CatalogLineError]) {
        var queries: [String] = []
        var errors: [CatalogLineError] = []
        var lineNumber = 0
        for var line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard let text = String(validating: line, as: UTF8.self) else {
                errors.append(CatalogLineError(line: lineNumber, reason: "invalid UTF-8"))
                continue
            }
            if text.allSatisfy(\.isWhitespace) { continue }
            guard line.count <= maximumQueryBytes else {
                errors.append(CatalogLineError(line: lineNumber, reason: "query is \(line.count) bytes long, over the API's limit of \(maximumQueryBytes)"))
                continue
            }
            queries.append(text)
        }
        return (queries, errors)
    }
}
