import Analysis
internal import CSystem
import Catalog
import Dispatch
import Foundation
import Storage

/// Figures from one build, for logs and the benchmark.
public struct BuildStatistics: Sendable, Hashable {
    public var entries: Int
    public var terms: Int
    public var heavyNodes: Int
    public var postings: Int
    /// Bytes used by the generation's LMDB file.
    public var bytes: Int
    /// Seconds spent in each stage, in order.
    public var stages: [(name: String, seconds: Double)] = []

    public static func == (a: BuildStatistics, b: BuildStatistics) -> Bool {
        (a.entries, a.terms, a.heavyNodes, a.postings, a.bytes) == (b.entries, b.terms, b.heavyNodes, b.postings, b.bytes)
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(entries); hasher.combine(terms); hasher.combine(postings); hasher.combine(bytes)
    }
}

/// Writes a complete base segment into a fresh LMDB environment.
///
/// Stages: analyse and encode every entry (all cores); sort entries into static rank order; intern
/// words to numbers and collect (word, document) pairs in one flat array per field (while a second
/// thread sorts the documents into the key orders of `ids` and `titles`: ``KeyOrders``); sort the words
/// and the pairs (so each word's postings come out ascending, i.e. best first); then write every
/// database in key order with `MDB_APPEND` inside one write transaction, syncing only at the end.
/// The file is either complete (its `complete` flag set and synced) or removed by the caller.
/// Memory: their encoded records and words, 8 bytes per posting, and the entries themselves only
/// until they are analysed when the caller hands them over (`consume`).
struct GenerationBuilder {
    var parameters = TrieParameters()
    /// The layout written: ``GenerationFormat/current`` unless a test asks for an earlier one.
    var format = GenerationFormat.current
    /// Analyse on every core (true) or on the calling thread (see ``Shard/parallelBuilds``).
    var parallel = true
    /// The attribute keys declared filterable (checked and sorted: ``SearchToken/Kind/filterable(_:)``).
    var filterable: [String] = []
    /// Told of each stage as it ends (``BuildStageObserver``).
    var onStage: BuildStageObserver?
    let analyzer = Analyzer()

    func build(_ entries: consuming [CatalogEntry], at path: String) throws -> BuildStatistics {
        var clock = StageClock(observer: onStage)
        let analysed = analyse(entries)
        let weights = entries.map(\.weight)
        let ids = FlatStrings(entries.lazy.map(\.id))
        // Everything the build needs of an entry is in its record, words, weight and id now: the
        // entries themselves (a third of a build's peak memory) go, if the caller handed them over.
        entries = []
        // Their pages back to the kernel now: freed on the analysing threads, they would stay
        // with those threads' arenas (jemalloc) while this one allocates the postings, and add
        // to the build's peak (cities: 400 MB -> 530 MB). One purge costs milliseconds.
        _ = csystem_release_free_memory()
        clock.mark("analyse")
        // Static rank order: weight descending, sortTitle, id (UTF-8 byte order).
        // (Keys are gathered first: comparing through `analysed` would copy an entry per comparison;
        // titles and ids are flat bytes, see ``FlatStrings``.)
        let titles = FlatStrings(analysed.lazy.map(\.sortTitle))
        let order = analysed.indices.sorted { a, b in
            if weights[a] != weights[b] { return weights[a] > weights[b] }
            let byTitle = titles.compare(a, b)
            if byTitle != 0 { return byTitle < 0 }
            return ids.compare(a, b) < 0
        }
        guard order.count < Int(UInt32.max / 2) else {
            throw IndexError.invalidArgument("a shard holds at most \(UInt32.max / 2) entries")
        }
        clock.mark("rank")

        // The `ids` and `titles` orders depend only on the rank order: sorted on a second thread
        // while this one interns words (the two sorts were a third of a second each for 1M entries,
        // intern one second, on one core).
        let keyOrders = KeyOrders(order: order, ids: ids, titles: titles, writesTitles: format.titles, parallel: parallel)

        // Words to numbers, and (word, document) pairs; tokens (categories, filterable attribute
        // values) become filter pseudo-terms. Keyed by bytes, not String: names are not
        // normalised, and Swift's String equality would merge canonically equal spellings
        // (SearchToken hashes and compares bytes). A term's number is its entry in a TermTable (one
        // arena, FNV-1a): a `[[UInt8]: UInt32]` allocated a key array and ran SipHash per word
        // occurrence (intern was 0.89 s of a 4.7 s cities build).
        var table = TermTable<Void>()
        table.reserveCapacity(terms: analysed.count, bytes: analysed.count * 8)
        var namePairs: [UInt64] = []
        var descriptionPairs: [UInt64] = []
        var chipCounts: [SearchToken: UInt64] = [:]
        var firstWords = FlatStrings()
        // (term number, document) pairs whose word the document does not offer as a completion.
        var variants = Set<UInt64>()
        func intern(_ term: UnsafeRawBufferPointer) -> UInt64 { UInt64(table.update(term) { $0 = () }!) }
        for (docnum, index) in order.enumerated() {
            let number = UInt64(docnum)
            let document = analysed[index]
            firstWords.append(document.firstWord)
            document.forEachNameTerm { namePairs.append(intern($0) << 32 | number) }
            document.forEachVariantWord { variants.insert(intern($0) << 32 | number) }
            document.forEachDescriptionWord { descriptionPairs.append(intern($0) << 32 | number) }
            for token in document.tokens {
                chipCounts[token, default: 0] += 1
                namePairs.append(Schema.tokenTerm(token).withUnsafeBytes { intern($0) } << 32 | number)
            }
        }
        let terms = table.entries.indices.map { table.term(at: $0) }
        clock.mark("intern")

        // Words in byte order; pairs renumbered to that order and grouped, so postings are grouped.
        let sortedTerms = terms.indices.sorted { table.termPrecedes($0, $1) }
        var position = [UInt32](repeating: 0, count: terms.count)
        for (rank, id) in sortedTerms.enumerated() { position[id] = UInt32(rank) }
        namePairs = Self.groupByTerm(namePairs, position: position)
        descriptionPairs = Self.groupByTerm(descriptionPairs, position: position)
        clock.mark("sort postings")
        let forward = format.forwardIndex
            ? Self.forwardLists(namePairs, terms: terms.count, documents: order.count) { terms[sortedTerms[$0]][0] >= TermWalk.firstWordByte } : nil
        clock.mark("forward lists")

        var options = Environment.Options()
        options.noSync = true
        let environment = try Environment(path: path, options: options)
        let schema = try Schema(environment: environment, create: true, format: format)
        var statistics = BuildStatistics(entries: order.count, terms: terms.count, heavyNodes: 0,
                                         postings: namePairs.count + descriptionPairs.count, bytes: 0)

        try environment.write { txn in
            for (docnum, index) in order.enumerated() {
                try txn.put(schema.docs, schema.documentKey(UInt32(docnum)), analysed[index].record, flags: .append)
            }
            let (byID, byTitle) = keyOrders.wait()
            for docnum in byID { try ids.withElement(order[Int(docnum)]) { try txn.put(schema.ids, $0, docnum, flags: .append) } }
            if let titleIndex = schema.titles {
                var key = ByteWriter(capacity: TitleKey.maximumTitleBytes + 5)
                for docnum in byTitle {
                    key.removeAll()
                    titles.withElement(order[Int(docnum)]) { TitleKey.make(sortTitle: $0, docnum: docnum, into: &key) }
                    try txn.put(titleIndex, key.bytes, EmptyValue(), flags: .append)
                }
            }
            clock.mark("write documents")

            // Terms (postings) and the trie, in key order.
            var writer = ByteWriter(capacity: 4096)
            var nodes: [([UInt8], HeavyNode)] = []
            var trie = TrieBuilder(parameters: parameters, firstWords: firstWords) { nodes.append(($0, $1)) }
            var words: [[UInt8]] = []
            words.reserveCapacity(terms.count)
            var name: [UInt32] = [], description: [UInt32] = []
            var n = 0, d = 0
            for (rank, id) in sortedTerms.enumerated() {
                let key = UInt64(rank)
                name.removeAll(keepingCapacity: true)
                description.removeAll(keepingCapacity: true)
                while n < namePairs.count, namePairs[n] >> 32 == key { name.append(UInt32(truncatingIfNeeded: namePairs[n])); n += 1 }
                while d < descriptionPairs.count, descriptionPairs[d] >> 32 == key {
                    description.append(UInt32(truncatingIfNeeded: descriptionPairs[d])); d += 1
                }
                let term = terms[id]
                writer.removeAll()
                PostingList.encode(name: name, description: description, into: &writer)
                try txn.put(schema.terms, term, writer.bytes, flags: .append)
                if let database = schema.nameOrdinals, let forward, forward.ordinalOfRank[rank] != .max,
                   forward.ordinalOfRank[rank] % ForwardIndex.ordinalInterval == 0 {
                    try txn.put(database, term, forward.ordinalOfRank[rank], flags: .append)
                }
                if term[0] >= TermWalk.firstWordByte {
                    words.append(term)
                    if !name.isEmpty {
                        // A word's best entry is its first document that offers it as a completion
                        // (generations without recorded variants listed the first document: so do
                        // the tests' builds of that layout).
                        let offering = variants.isEmpty || schema.completionVariants == nil ? name.first
                            : name.first { !variants.contains(UInt64(id) << 32 | UInt64($0)) }
                        try trie.add(term: term, postings: name, completionBest: offering)
                    }
                }
            }
            try trie.finish()
            if let database = schema.completionVariants {
                var pairs = variants.map { (term: terms[Int($0 >> 32)], doc: UInt32(truncatingIfNeeded: $0)) }
                pairs.sort { $0.term != $1.term ? $0.term.lexicographicallyPrecedes($1.term) : $0.doc < $1.doc }
                for pair in pairs { try txn.put(database, pair.term, pair.doc.bigEndianBytes) }
            }
            if let database = schema.forward, let forward {
                var chunk = 0
                while chunk * ForwardIndex.chunkSize < order.count {
                    let first = chunk * ForwardIndex.chunkSize
                    writer.removeAll()
                    ForwardIndex.encodeChunk(count: min(ForwardIndex.chunkSize, order.count - first), into: &writer) { index in
                        forward.ordinals[Int(forward.starts[first + index])..<Int(forward.starts[first + index + 1])]
                    }
                    try txn.put(database, UInt32(chunk), writer.bytes, flags: .append)
                    chunk += 1
                }
            }
            clock.mark("write terms and trie")
            try txn.put(schema.termTrie, PackedTrie.key, PackedTrie.build(words, indexedFrom: format.indexedChildren))
            clock.mark("pack term trie")
            nodes.sort { $0.0.lexicographicallyPrecedes($1.0) }
            for (prefix, node) in nodes {
                writer.removeAll()
                node.encode(into: &writer, prefixLength: prefix.count)
                try txn.put(schema.trie, prefix, writer.bytes, flags: .append)
            }
            statistics.heavyNodes = nodes.count

            // Chips (categories, attribute values) and the words of their values.
            for (token, count) in chipCounts {
                let place = try schema.chipDatabases(token)
                try txn.put(place.counts, place.key, count)
                for word in Set(analyzer.terms(in: token.value)) { try txn.put(place.words, word, place.key) }
            }
            if !filterable.isEmpty {
                try txn.put(schema.meta, MetaKey.filterableAttributes, filterable.joined(separator: ","))
            }
            try txn.put(schema.meta, MetaKey.format, MetaKey.formatValue(layout: format.layout))
            try txn.put(schema.meta, MetaKey.baseCount, UInt32(order.count))
            try txn.put(schema.meta, MetaKey.nextDocument, UInt32(order.count))
            if schema.deltaLists != nil {
                // The delta is empty, so its (empty) lists are complete.
                try txn.put(schema.meta, MetaKey.deltaListsThrough, UInt32(order.count))
            }
            try txn.put(schema.meta, MetaKey.liveCount, UInt64(order.count))
            try txn.put(schema.meta, MetaKey.trieParameters, "\(parameters.listSize),\(parameters.heavyThreshold)")
        }
        clock.mark("commit")
        try environment.sync(force: true)
        // Only now, with everything on disk, is the generation marked complete.
        try environment.write { txn in try txn.put(schema.meta, MetaKey.complete, "1") }
        try environment.sync(force: true)
        clock.mark("sync")
        statistics.bytes = try environment.statistics().usedBytes
        statistics.stages = clock.stages
        return statistics
    }

    /// The forward index's lists (``ForwardIndex``) from the grouped name `pairs` (sorted term
    /// rank << 32 | document, by term, then document): each name word's ordinal (by rank; `.max`
    /// for token pseudo-terms, which `isWord` rejects), and every document's ordinals, ascending and
    /// distinct, at `ordinals[starts[d]..<starts[d + 1]]`. Two linear passes, a counting sort by
    /// document: the terms come in rank order, so each document's list fills in ascending order.
    static func forwardLists(_ pairs: [UInt64], terms: Int, documents: Int, isWord: (Int) -> Bool)
        -> (ordinalOfRank: [UInt32], ordinals: [UInt32], starts: [UInt32]) {
        var ordinalOfRank = [UInt32](repeating: .max, count: terms)
        var starts = [UInt32](repeating: 0, count: documents + 1)
        var next: UInt32 = 0
        var index = 0
        while index < pairs.count {
            let rank = Int(pairs[index] >> 32)
            var end = index
            while end < pairs.count, pairs[end] >> 32 == UInt64(rank) { end += 1 }
            if isWord(rank) {
                ordinalOfRank[rank] = next
                next += 1
                var previous: UInt32?
                for pair in pairs[index..<end] {
                    let doc = UInt32(truncatingIfNeeded: pair)
                    if doc != previous { starts[Int(doc) + 1] += 1 }
                    previous = doc
                }
            }
            index = end
        }
        for d in 0..<documents { starts[d + 1] += starts[d] }
        var fill = starts
        var ordinals = [UInt32](repeating: 0, count: Int(starts[documents]))
        for pair in pairs {
            let rank = Int(pair >> 32)
            let ordinal = ordinalOfRank[rank]
            guard ordinal != .max else { continue }
            let doc = Int(UInt32(truncatingIfNeeded: pair))
            // Repeats of a pair (a word twice in one document) come together: written once.
            if fill[doc] > starts[doc], ordinals[Int(fill[doc]) - 1] == ordinal { continue }
            ordinals[Int(fill[doc])] = ordinal
            fill[doc] += 1
        }
        return (ordinalOfRank, ordinals, starts)
    }

    /// `pairs` (term << 32 | document), appended in ascending document order, with each term
    /// renumbered to `position[term]`, in ascending order: a stable counting sort by term, so each
    /// term's documents stay ascending. That is the array `sort()` gives, in two linear passes
    /// instead of O(n log n) comparisons (sorting was most of the 0.25-0.30 s "sort postings"
    /// stage of a cities build, ~1M pairs).
    private static func groupByTerm(_ pairs: [UInt64], position: [UInt32]) -> [UInt64] {
        var next = [Int](repeating: 0, count: position.count + 1)
        for pair in pairs { next[Int(position[Int(pair >> 32)]) + 1] += 1 }
        for rank in position.indices { next[rank + 1] += next[rank] }
        return [UInt64](unsafeUninitializedCapacity: pairs.count) { grouped, initialized in
            for pair in pairs {
                let rank = Int(position[Int(pair >> 32)])
                grouped[next[rank]] = UInt64(rank) << 32 | (pair & 0xFFFF_FFFF)
                next[rank] += 1
            }
            initialized = pairs.count
        }
    }

    /// Analyses and encodes entries on every core (or on this thread alone, unless `parallel`);
    /// the result is in input order.
    private func analyse(_ entries: [CatalogEntry]) -> [BuildDocument] {
        let chunks = max(1, min(256, entries.count / 2048))
        let chunkSize = (entries.count + chunks - 1) / chunks
        let analyzer = self.analyzer
        let recordVersion = format.recordVersion
        let filterable = self.filterable
        return Array(unsafeUninitializedCapacity: entries.count) { buffer, initialized in
            // Each chunk initialises its own disjoint range of the result in place: joining
            // per-chunk arrays copied every entry and destroyed the originals.
            nonisolated(unsafe) let base = buffer.baseAddress
            let work = { @Sendable (chunk: Int) in
                let start = chunk * chunkSize
                let end = min(entries.count, start + chunkSize)
                guard start < end, let base else { return }
                var writer = ByteWriter(capacity: 1024)
                for index in start..<end {
                    let doc = AnalysedEntry(entries[index], analyzer: analyzer)
                    writer.removeAll()
                    DocumentRecord.encode(doc, version: recordVersion, into: &writer)
                    // An exact-size copy: `writer.bytes` itself shares the writer's buffer (1 KiB
                    // reserved), which the next `removeAll` would leave to this record, a kibibyte
                    // held per entry for the whole build (1 GB of the synthetic 1M build's peak).
                    let record = writer.bytes.withUnsafeBufferPointer { [UInt8]($0) }
                    (base + index).initialize(to: BuildDocument(doc, record: record, filterable: filterable))
                }
            }
            if parallel {
                DispatchQueue.concurrentPerform(iterations: chunks, execute: work)
            } else {
                for chunk in 0..<chunks { work(chunk) }
            }
            initialized = entries.count
        }
    }
}

/// memcmp order of two byte strings (-1, 0, 1).
func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
    a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in compareBytes(x, y) } }
}

/// memcmp order of two strings' UTF-8 (-1, 0, 1).
func compareUTF8(_ a: String, _ b: String) -> Int {
    var a = a, b = b
    return a.withUTF8 { x in b.withUTF8 { y in compareBytes(x, y) } }
}

func compareBytes(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int {
    let common = min(x.count, y.count)
    if common > 0, let xb = x.baseAddress, let yb = y.baseAddress {
        let order = memcmp(xb, yb, common)
        if order != 0 { return order < 0 ? -1 : 1 }
    }
    return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
}

/// Hears of each stage of a build as it ends: its name ("analyse", "intern", …) and seconds.
/// Called on the building thread, between stages (never while a write transaction waits on it
/// for long: an observer should only record or print).
public typealias BuildStageObserver = (_ stage: String, _ seconds: Double) -> Void

/// Times the stages of a build.
struct StageClock {
    private var last = DispatchTime.now().uptimeNanoseconds
    private(set) var stages: [(name: String, seconds: Double)] = []
    let observer: BuildStageObserver?

    init(observer: BuildStageObserver? = nil) {
        self.observer = observer
    }

    mutating func mark(_ name: String) {
        let now = DispatchTime.now().uptimeNanoseconds
        stages.append((name, Double(now - last) / 1e9))
        last = now
        observer?(name, stages[stages.count - 1].seconds)
    }
}
