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
    /// Files the build spilled sorted runs and postings to (0: it ran in memory).
    public var spillFiles = 0
    /// Seconds spent in each stage, in order.
    public var stages: [(name: String, seconds: Double)] = []

    public static func == (a: BuildStatistics, b: BuildStatistics) -> Bool {
        (a.entries, a.terms, a.heavyNodes, a.postings, a.bytes) == (b.entries, b.terms, b.heavyNodes, b.postings, b.bytes)
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(entries); hasher.combine(terms); hasher.combine(postings); hasher.combine(bytes)
    }
}

/// Writes a complete base segment into a fresh LMDB environment, in memory bounded by
/// ``memoryBudget`` whatever the catalog's size.
///
/// Three passes, each streaming:
/// 1. **Analyse** (``analyse(_:)``, all cores, a batch at a time, the next batch read meanwhile on a
///    thread of its own: ``ReadAhead``): each entry becomes its record and its words; on another
///    thread (``RankedIntake``) words become term numbers
///    (``BuildVocabulary``, which also counts each term's postings) and the entry goes into an
///    ``ExternalSorter`` keyed by static rank (``RankedRecord``). The entries need not be held: the
///    caller can stream them (``build(at:batches:)``).
/// 2. **Documents** (``writeDocuments``): the sorter gives the entries back in rank order, which
///    numbers them. Each record goes to `docs` and each forward list to `forward` as it comes; its
///    (term, document) pairs go to ``PostingPairs``, cut into buckets of consecutive terms; its id
///    and title key go to two more sorters, fed on a thread of their own (``KeySorts``).
/// 3. **Terms and keys** (``writeTerms``, ``writeKeys``): every term in byte order with its
///    postings, the trie's heavy nodes and the packed term trie, while another thread finishes the
///    ids and titles sorts (``KeySorts``, fed during pass 2); then `ids` and `titles` in key order.
///
/// Every database is written in key order with `MDB_APPEND`, in write transactions of about
/// ``commitBytes`` each (LMDB keeps a transaction's dirty pages in memory, up to half a gigabyte,
/// before it spills them), syncing only at the end. The file is either complete (its `complete`
/// flag set and synced) or removed by the caller; the spill files live in a `build` folder of the
/// generation's directory and go with it.
///
/// Memory: ``memoryBudget`` for the sorters and postings, plus 4 bytes a document (its first
/// title word, for the trie's startsWith lists), the vocabulary (``BuildVocabulary``), one batch
/// of entries being analysed, two read ahead and two being interned. The budget's parts may all be
/// held at once (the ids and titles are sorted while the postings are written), so the sum stays
/// within it.
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
    /// Bytes the build's sorts and postings hold in memory before they spill to disk: half to the
    /// records in rank order, a quarter to the postings, an eighth each to the ids and titles.
    var memoryBudget = Self.defaultMemoryBudget
    let analyzer = Analyzer()

    /// 512 MB: with the rest of a build, a peak under a gigabyte (648 MiB for 10M entries). A
    /// catalog of a few hundred thousand entries never touches the disk.
    static let defaultMemoryBudget = 512 << 20
    /// Bytes written per write transaction.
    static let commitBytes = 64 << 20
    /// Entries analysed at a time when the caller hands over an array.
    static let batchSize = 1 << 16

    /// Builds from `entries`; handed over (`consume`), they are freed once analysed.
    func build(_ entries: consuming [CatalogEntry], at path: String) throws -> BuildStatistics {
        try build(at: path, batches: Self.batches(of: entries))
    }

    /// `entries` as batches of ``batchSize``, for ``build(at:batches:)``: the closure owns them,
    /// and frees them after the last batch.
    static func batches(of entries: consuming [CatalogEntry]) -> () -> ArraySlice<CatalogEntry>? {
        var entries = entries
        var next = 0
        return {
            guard next < entries.count else {
                entries = []
                return nil
            }
            let batch = entries[next..<min(entries.count, next + batchSize)]
            next = batch.endIndex
            return batch
        }
    }

    /// Builds from the entries `batches` gives, batch by batch, until it returns nil. The ids must
    /// be unique (INVALID_ARGUMENT naming the first repeated one otherwise, and nothing is built).
    func build(at path: String, batches: () throws -> ArraySlice<CatalogEntry>?) throws -> BuildStatistics {
        var clock = StageClock(observer: onStage)
        let spill = path + "/build"
        do {
            try FileManager.default.createDirectory(atPath: spill, withIntermediateDirectories: true)
        } catch {
            throw IndexError(.internal, "cannot create \(spill): \(error)")
        }
        defer { try? FileManager.default.removeItem(atPath: spill) }

        var attributeKeys: AttributeKeys?
        let intake = RankedIntake(ranked: ExternalSorter(directory: spill, name: "ranked", budget: memoryBudget / 2), threaded: parallel)
        do {
            try withoutActuallyEscaping(batches) { batches in
                // The next batch is read (and parsed, and checked) while this one is analysed.
                let reader = parallel ? ReadAhead(source: batches) : nil
                defer { reader?.stop() }
                func next() throws -> ArraySlice<CatalogEntry>? {
                    if let reader { return try reader.next() }
                    return try batches()
                }
                // The first batches wait until the sample that numbers the attribute keys is in
                // (one batch: both sources' batches are larger than the sample).
                var waiting: [ArraySlice<CatalogEntry>] = []
                func numberKeys() {
                    let keys = format.numbersAttributeKeys ? AttributeKeys.choose(from: waiting.joined()) : .empty
                    attributeKeys = keys
                    for batch in waiting where !intake.hasFailed { intake.submit(analyse(batch, keys: keys), batch) }
                    waiting = []
                }
                while !intake.hasFailed, let batch = try next() {
                    guard let keys = attributeKeys else {
                        waiting.append(batch)
                        if waiting.reduce(0, { $0 + $1.count }) >= AttributeKeys.sampleSize { numberKeys() }
                        continue
                    }
                    intake.submit(analyse(batch, keys: keys), batch)
                }
                if attributeKeys == nil { numberKeys() }
            }
        } catch {
            intake.drain()
            throw error
        }
        let ranked = try intake.finish()
        let vocabulary = intake.vocabulary
        clock.mark("analyse")
        let count = ranked.count
        var spillFiles = ranked.spilledRuns
        let records = try ranked.sorted()
        // Their pages back to the kernel now: freed on the analysing threads, they would stay with
        // those threads' arenas (jemalloc) and add to the build's peak. One purge costs milliseconds.
        _ = csystem_release_free_memory()
        clock.mark("rank")

        var options = Environment.Options()
        options.noSync = true
        let environment = try Environment(path: path, options: options)
        let schema = try Schema(environment: environment, create: true, format: format)
        let terms = BuildTerms(vocabulary: vocabulary, forwardIndex: format.forwardIndex)
        var pairs = try PostingPairs(counts: terms.pairCounts, budget: memoryBudget / 4, directory: spill)
        // Fed and sorted on another core while this one writes the documents and the terms, then
        // written (one writer).
        let keys = KeySorts(ids: ExternalSorter(directory: spill, name: "ids", budget: memoryBudget / 8),
                            titles: ExternalSorter(directory: spill, name: "titles", budget: memoryBudget / 8))
        defer { keys.drain() }   // before the spill folder goes (the defer above)
        let documents = try writeDocuments(records, count: count, terms: terms, pairs: &pairs, keys: keys,
                                           into: environment, schema: schema)
        keys.finish()
        clock.mark("write documents")
        spillFiles += pairs.spillFiles
        var statistics = BuildStatistics(entries: count, terms: terms.count, heavyNodes: 0, postings: pairs.count, bytes: 0)
        statistics.heavyNodes = try writeTerms(terms, pairs: &pairs, documents: documents, into: environment, schema: schema,
                                               clock: &clock)
        let sortedKeys = try keys.wait()
        statistics.spillFiles = spillFiles + sortedKeys.spilledRuns
        try writeKeys(ids: sortedKeys.ids, titles: sortedKeys.titles, into: environment, schema: schema)
        clock.mark("write ids and titles")
        try environment.write { txn in
            // Chips (categories, attribute values) and the words of their values.
            for (token, count) in terms.chipCounts {
                let place = try schema.chipDatabases(token)
                try txn.put(place.counts, place.key, count)
                for word in Set(analyzer.terms(in: token.value)) { try txn.put(place.words, word, place.key) }
            }
            if !filterable.isEmpty {
                try txn.put(schema.meta, MetaKey.filterableAttributes, filterable.joined(separator: ","))
            }
            if let attributeKeys, !attributeKeys.isEmpty { try txn.put(schema.meta, MetaKey.attributeKeys, attributeKeys.encoded) }
            try txn.put(schema.meta, MetaKey.format, MetaKey.formatValue(layout: format.layout))
            try txn.put(schema.meta, MetaKey.baseCount, UInt32(count))
            try txn.put(schema.meta, MetaKey.nextDocument, UInt32(count))
            if schema.deltaLists != nil {
                // The delta is empty, so its (empty) lists are complete.
                try txn.put(schema.meta, MetaKey.deltaListsThrough, UInt32(count))
            }
            try txn.put(schema.meta, MetaKey.liveCount, UInt64(count))
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

    /// Analyses and encodes entries on every core (or on this thread alone, unless `parallel`),
    /// numbering attribute keys by `keys`; the result is in input order.
    private func analyse(_ entries: ArraySlice<CatalogEntry>, keys: AttributeKeys) -> [BuildDocument] {
        // Small chunks: the last chunk of a batch runs alone while the other core idles (or
        // interns), so it should be short. A catalog batch is 8,192 entries: 32 chunks.
        let chunks = max(1, min(256, entries.count / 256))
        let chunkSize = (entries.count + chunks - 1) / chunks
        let analyzer = self.analyzer
        let recordVersion = format.recordVersion
        let filterable = self.filterable
        let first = entries.startIndex
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
                    let doc = AnalysedEntry(entries[first + index], analyzer: analyzer)
                    writer.removeAll()
                    DocumentRecord.encode(doc, version: recordVersion, keys: keys, into: &writer)
                    // An exact-size copy: `writer.bytes` itself shares the writer's buffer (1 KiB
                    // reserved), which the next `removeAll` would leave to this record.
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
