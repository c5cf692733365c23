import Analysis
import Catalog
import Dispatch
import Storage
import Synchronization

/// Figures from one build, for logs and the benchmark.
public struct BuildStatistics: Sendable, Hashable {
    public var entries: Int
    public var terms: Int
    public var heavyNodes: Int
    public var postings: Int
    /// Bytes used by the generation's LMDB file.
    public var bytes: Int
}

/// Writes a complete base segment into a fresh LMDB environment.
///
/// The build analyses every entry (on all cores), sorts them into static rank order, and then writes
/// each database in key order with `MDB_APPEND` inside one write transaction, with syncing off until
/// the end: the file is either complete (its `complete` flag set and synced) or it is removed.
/// Memory: all entries and postings are held during the build (about 150 bytes per entry plus 4 per
/// posting).
struct GenerationBuilder {
    var parameters = TrieParameters()
    let analyzer = Analyzer()

    func build(_ entries: [CatalogEntry], at path: String) throws -> BuildStatistics {
        let analysed = analyse(entries)
        // Static rank order: weight descending, sortTitle, id (UTF-8 byte order).
        let order = analysed.indices.sorted { a, b in
            let x = analysed[a], y = analysed[b]
            if x.entry.weight != y.entry.weight { return x.entry.weight > y.entry.weight }
            if !x.sortTitle.utf8.elementsEqual(y.sortTitle.utf8) {
                return x.sortTitle.utf8.lexicographicallyPrecedes(y.sortTitle.utf8)
            }
            return x.entry.id.utf8.lexicographicallyPrecedes(y.entry.id.utf8)
        }
        guard order.count < Int(UInt32.max / 2) else {
            throw IndexError.invalidArgument("a shard holds at most \(UInt32.max / 2) entries")
        }

        var options = Environment.Options()
        options.noSync = true
        let environment = try Environment(path: path, options: options)
        let schema = try Schema(environment: environment, create: true)
        var statistics = BuildStatistics(entries: order.count, terms: 0, heavyNodes: 0, postings: 0, bytes: 0)

        try environment.write { txn in
            var writer = ByteWriter(capacity: 4096)
            // Documents, and postings gathered in document order (so each list is ascending).
            var postings: [String: (name: [UInt32], description: [UInt32])] = [:]
            var categoryCounts: [String: UInt64] = [:]
            var firstWords: [[UInt8]] = []
            firstWords.reserveCapacity(order.count)
            for (docnum, index) in order.enumerated() {
                let doc = analysed[index]
                let number = UInt32(docnum)
                writer.removeAll()
                DocumentRecord.encode(doc, into: &writer)
                try txn.put(schema.docs, number, writer.bytes, flags: .append)
                firstWords.append(Array((doc.titleWords.first ?? "").utf8))
                for term in doc.nameTerms { postings[term, default: ([], [])].name.append(number) }
                for term in doc.descriptionWords { postings[term, default: ([], [])].description.append(number) }
                for category in doc.categories {
                    categoryCounts[category, default: 0] += 1
                    let token = String(decoding: Schema.tokenTerm(.category(category)), as: UTF8.self)
                    postings[token, default: ([], [])].name.append(number)
                }
            }

            // Ids, in key order.
            let ids = order.enumerated().map { (Array(analysed[$0.element].entry.id.utf8), UInt32($0.offset)) }
                .sorted { $0.0.lexicographicallyPrecedes($1.0) }
            for (id, number) in ids { try txn.put(schema.ids, id, number, flags: .append) }

            // Terms and the trie, in key order.
            let terms = postings.keys.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
            var nodes: [([UInt8], HeavyNode)] = []
            var trie = TrieBuilder(parameters: parameters, firstWords: firstWords) { nodes.append(($0, $1)) }
            for term in terms {
                let list = postings[String(decoding: term, as: UTF8.self)]!
                writer.removeAll()
                PostingList.encode(name: list.name, description: list.description, into: &writer)
                try txn.put(schema.terms, term, writer.bytes, flags: .append)
                statistics.postings += list.name.count + list.description.count
                if term[0] >= TermWalk.firstWordByte, !list.name.isEmpty {
                    try trie.add(term: term, postings: list.name)
                }
            }
            try trie.finish()
            let words = terms.filter { $0[0] >= TermWalk.firstWordByte }
            try txn.put(schema.termTrie, PackedTrie.key, PackedTrie.build(words))
            statistics.terms = terms.count
            nodes.sort { $0.0.lexicographicallyPrecedes($1.0) }
            for (prefix, node) in nodes {
                writer.removeAll()
                node.encode(into: &writer, prefixLength: prefix.count)
                try txn.put(schema.trie, prefix, writer.bytes, flags: .append)
            }
            statistics.heavyNodes = nodes.count

            // Categories and the words of their names.
            var categoryWords: [([UInt8], [UInt8])] = []
            for (name, count) in categoryCounts {
                try txn.put(schema.categories, name, count)
                for word in Set(analyzer.terms(in: name)) { categoryWords.append((Array(word.utf8), Array(name.utf8))) }
            }
            for (word, name) in categoryWords { try txn.put(schema.categoryWords, word, name) }

            try txn.put(schema.meta, MetaKey.format, MetaKey.formatValue)
            try txn.put(schema.meta, MetaKey.baseCount, UInt32(order.count))
            try txn.put(schema.meta, MetaKey.nextDocument, UInt32(order.count))
            try txn.put(schema.meta, MetaKey.liveCount, UInt64(order.count))
            try txn.put(schema.meta, MetaKey.trieParameters, "\(parameters.listSize),\(parameters.heavyThreshold)")
        }
        try environment.sync(force: true)
        // Only now, with everything on disk, is the generation marked complete.
        try environment.write { txn in try txn.put(schema.meta, MetaKey.complete, "1") }
        try environment.sync(force: true)
        statistics.bytes = try environment.statistics().usedBytes
        return statistics
    }

    /// Analyses entries on every core; the result is in input order.
    private func analyse(_ entries: [CatalogEntry]) -> [AnalysedEntry] {
        let chunks = max(1, min(64, entries.count / 4096))
        let chunkSize = (entries.count + chunks - 1) / max(chunks, 1)
        let results = UnsafeSendableBox(Array<[AnalysedEntry]>(repeating: [], count: chunks))
        let analyzer = self.analyzer
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let start = chunk * chunkSize
            let end = min(entries.count, start + chunkSize)
            guard start < end else { return }
            let part = entries[start..<end].map { AnalysedEntry($0, analyzer: analyzer) }
            results.set(chunk, part)
        }
        return results.value.flatMap { $0 }
    }
}

/// Per-chunk results written from `concurrentPerform`: each chunk writes only its own slot, under
/// the mutex; the array is read after `concurrentPerform` returns.
private final class UnsafeSendableBox<T: Sendable>: Sendable {
    private let storage: Mutex<[T]>
    init(_ value: [T]) { storage = Mutex(value) }
    func set(_ index: Int, _ value: T) { storage.withLock { $0[index] = value } }
    var value: [T] { storage.withLock { $0 } }
}
