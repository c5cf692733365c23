import Caching
import Foundation
import Storage
import Synchronization

/// One open index generation: its LMDB environment, databases and fixed facts.
///
/// Thread-safety: immutable after `init`; LMDB environments serve concurrent readers, and writes
/// are serialised by LMDB's writer lock. Lifetime: the environment closes when the last reference to
/// the generation goes, so queries that still hold it finish on it after a switch.
final class Generation: Sendable {
    let number: Int
    /// Which merge of the generation this is (0: as built; see ``Shard/beginMerge()``). Each
    /// revision has an environment of its own; all revisions of a generation hold the same entries
    /// when they switch, so answers never change with it, only their speed does.
    let revision: Int
    let path: String
    let environment: Environment
    let schema: Schema
    /// Documents 0..<baseCount are the base segment, in static rank order.
    let baseCount: UInt32
    let parameters: TrieParameters
    /// Attribute keys declared filterable, sorted by bytes (empty in generations without the meta
    /// key): the token kinds this generation takes besides "category".
    let filterable: [String]
    /// The attribute keys its records number (``AttributeKeys``; empty before layout 4).
    let attributeKeys: AttributeKeys
    /// The base term trie's root children by second scalar, read once at open (see ``RootFanout``);
    /// nil without a trie, for a root too small to need it, or when its top levels are corrupt
    /// (the walks then say so themselves).
    let rootFanout: RootFanout?
    /// Typo-tolerant walks of the base term trie, remembered (see ``TermMatchCache``): the terms
    /// a complete word matches, and a partial word's regions with their terms.
    let termMatches: StripedCache<TermMatchCache.Key, TermList> = TermMatchCache.make { $0.memoryBytes }
    let termRegions: StripedCache<TermMatchCache.Key, TermRegions> = TermMatchCache.make { found in
        // A region is 24 bytes in its list, plus its prefix.
        TermMatchCache.bytes(ofTerms: found.regions.lazy.map(\.prefix)) + 8 * found.regions.count
            + (found.terms?.memoryBytes ?? 0)
    }
    /// Complete words' matches as forward-index ordinals (``WordOrdinals``), by word.
    let ordinalMatches: StripedCache<TermMatchCache.Key, OrdinalMatches> = TermMatchCache.make { $0.ordinals?.memoryBytes ?? 64 }
    /// The chips a partial word's walk of the chip words found, by read snapshot.
    let categoryMatches: StripedCache<TermMatchCache.SnapshotKey, [SearchToken: Int]> = TermMatchCache.makeBySnapshot { found in
        // A dictionary slot (a token of two strings and a distance, 40 bytes) at a load of three
        // quarters, plus the strings' bytes (a small one lives in the slot).
        found.keys.reduce(64) { $0 + 54 + $1.kind.rawValue.utf8.count + $1.value.utf8.count }
    }
    /// The documents passing a query's complete words and tokens, by read snapshot (see ``FilterCache``).
    /// Sized by the base (``FilterCache/make(documents:)``): set when the generation opens.
    let filtered: StripedCache<FilterCache.Key, FilterCache.Value>
    /// Common words' base name postings as bitmaps, by read snapshot (see ``TermBitmaps``). Sized
    /// by the base: set when the generation opens.
    let termBitmaps: StripedCache<TermBitmaps.Key, DocumentBitmap>
    /// Bitmaps of long filtered lists, by read snapshot (see ``FilterCache/makeBitmaps()``).
    let filteredBitmaps: StripedCache<FilterCache.Key, DocumentBitmap> = FilterCache.makeBitmaps()
    /// Category counts of filtered documents, by read snapshot (see ``FilterCache/CategoryCountKey``).
    let filteredCategoryCounts: StripedCache<FilterCache.CategoryCountKey, Int> = FilterCache.makeCategoryCounts()
    /// The delta's name words as a trie, for the snapshot last asked (see ``DeltaTrie``).
    let deltaTrie = DeltaTrie()
    /// A typo'd word's name words in the delta's trie, by read snapshot (see
    /// ``deltaTerms(matching:namesOnly:in:)``).
    let deltaMatchesCache: StripedCache<TermMatchCache.SnapshotKey, TermList> = TermMatchCache.makeBySnapshot { $0.memoryBytes }
    /// A partial word's regions in the delta's trie, by read snapshot (see ``deltaRegions(matching:in:)``).
    let deltaRegionsCache: StripedCache<TermMatchCache.SnapshotKey, [TermRegion]> = TermMatchCache.makeBySnapshot { regions in
        TermMatchCache.bytes(ofTerms: regions.lazy.map(\.prefix)) + 8 * regions.count
    }
    /// The deleted base documents as a bitmap, for the snapshot last asked (see ``DeletedSet``).
    let deletedBitmap = SnapshotCache<DocumentBitmap>(inlineBuildLimit: DeletedSet.inlineBuildLimit, bytes: { $0.bytes })
    /// The chips' words in memory, for the snapshot last asked (see ``ChipWordList``).
    let chipWords = SnapshotCache<ChipWordList>(inlineBuildLimit: ChipWordList.inlineBuildLimit, bytes: { $0.memoryBytes })
    /// The delta documents' weights, for the snapshot last asked (see ``DeltaWeights``).
    let deltaWeightCache = SnapshotCache<DeltaWeights>(inlineBuildLimit: DeltaWeights.inlineBuildLimit, bytes: { $0.bytes })
    /// When a read last named this generation while it was not the current one (``readClock()``
    /// nanoseconds; see ``Shard/releasePreviousGeneration(idleFor:)``). Written only by such reads
    /// (a switch's pinned calls), so the current generation's readers never touch it.
    let lastRead = Atomic<UInt64>(0)

    init(number: Int, revision: Int, path: String, readOnly: Bool) throws {
        self.number = number
        self.revision = revision
        self.path = path
        var options = Environment.Options()
        options.readOnly = readOnly
        environment = try Environment(path: path, options: options)
        schema = try Schema(environment: environment, create: false)
        let schema = self.schema
        let facts: (UInt32, TrieParameters, [String], RootFanout?, AttributeKeys)? = try environment.read { txn in
            guard schema.layout != nil else {
                throw IndexError.corrupt("\(path) is not a typeahead generation (format mismatch)")
            }
            guard try txn.get(schema.meta, MetaKey.complete) != nil else { return nil }
            guard let base = try txn.get(schema.meta, MetaKey.baseCount), base.count == 4,
                  let trie = try txn.get(schema.meta, MetaKey.trieParameters) else {
                throw IndexError.corrupt("\(path) lacks its metadata")
            }
            let parts = trie.string.split(separator: ",").compactMap { Int($0) }
            guard parts.count == 2 else { throw IndexError.corrupt("\(path) has bad trie parameters") }
            let filterable = try txn.get(schema.meta, MetaKey.filterableAttributes).map { value in
                value.string.split(separator: ",").map(String.init)
            } ?? []
            let fanout = try txn.get(schema.termTrie, PackedTrie.key).flatMap { trie in
                try? trie.withUnsafeBytes { try RootFanout(trie: $0) }
            }
            let keys = try txn.get(schema.meta, MetaKey.attributeKeys).map { try AttributeKeys(decoding: $0) } ?? .empty
            return (base.loadBigEndian(UInt32.self, at: 0), TrieParameters(listSize: parts[0], heavyThreshold: parts[1]), filterable,
                    fanout, keys)
        }
        guard let facts else {
            throw IndexError(.failedPrecondition, "generation \(number) at \(path) is incomplete (its build did not finish)")
        }
        (baseCount, parameters, filterable, rootFanout, attributeKeys) = facts
        filtered = FilterCache.make(documents: Int(facts.0))
        termBitmaps = TermBitmaps.make(documents: Int(facts.0))
    }
}

extension Generation {
    /// The clock of ``lastRead``: monotonic nanoseconds.
    static func readClock() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    func markRead() { lastRead.store(Self.readClock(), ordering: .relaxed) }

    /// Every query cache, by name; `countsBytes` when its cost is bytes (the category counts are
    /// bounded by entries alone). One list for the metrics and for ``dropQueryCaches()``.
    private var queryCaches: [(name: String, cache: any QueryCache, countsBytes: Bool)] {
        [("term_matches", termMatches, true),
         ("term_regions", termRegions, true),
         ("delta_regions", deltaRegionsCache, true),
         ("delta_matches", deltaMatchesCache, true),
         ("ordinal_matches", ordinalMatches, true),
         ("category_matches", categoryMatches, true),
         ("filtered", filtered, true),
         ("filtered_category_counts", filteredCategoryCounts, false),
         ("filtered_bitmaps", filteredBitmaps, true),
         ("term_bitmaps", termBitmaps, true)]
    }

    /// Forgets what every query cache holds (the walks and lists kept by word; not the tries and
    /// bitmaps built once per snapshot), as if the generation had just opened: for benchmarks
    /// that compare two shards from the same start.
    func dropQueryCaches() {
        for entry in queryCaches { entry.cache.removeAll() }
    }

    /// Each query cache's counts, by name (see ``queryCaches``).
    func cacheStatistics() -> [(name: String, statistics: StripedCacheStatistics, countsBytes: Bool)] {
        queryCaches.map { ($0.name, $0.cache.statistics(), $0.countsBytes) }
    }
}

extension Generation {
    /// Every generation this process has open, by path: LMDB forbids opening one environment twice
    /// in a process (closing the second copy would drop the first one's locks), so all `Shard`s of
    /// a process share one `Generation` per directory.
    private static let open = Mutex<[String: WeakGeneration]>([:])

    static func shared(number: Int, revision: Int, path: String, readOnly: Bool) throws -> Generation {
        let key = URL(fileURLWithPath: path).standardizedFileURL.path
        // The last reference to a generation may be going on another thread right now: the weak
        // entry reads nil at once, but the environment's close (and its release of the directory)
        // runs after it, so opening again in that moment finds the directory still open (EBUSY).
        // The close takes microseconds to milliseconds: wait for it, within a bound.
        // Likewise a read-only generation whose last `Shard` is gone may still be held for a moment
        // by its background prefault (one chunk: ``prefaultInBackground()``): a writable open
        // waits for it too, and fails only if it stays open.
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            do {
                return try open.withLock { open in
                    if let generation = open[key]?.value {
                        guard readOnly || !generation.environment.options.readOnly else {
                            throw ReadOnlyElsewhere()
                        }
                        return generation
                    }
                    let generation = try Generation(number: number, revision: revision, path: path, readOnly: readOnly)
                    open = open.filter { $0.value.value != nil }
                    open[key] = WeakGeneration(value: generation)
                    if prefaultsOnOpen.load(ordering: .relaxed) { generation.prefaultInBackground() }
                    return generation
                }
            } catch let error as StorageError where error.code == EBUSY && ContinuousClock.now < deadline {
                usleep(200)
            } catch is ReadOnlyElsewhere {
                guard ContinuousClock.now < deadline else {
                    throw IndexError(.failedPrecondition, "\(path) is already open read-only in this process")
                }
                usleep(200)
            }
        }
    }

    /// A writable open found the generation open read-only (see ``shared(number:revision:path:readOnly:)``).
    private struct ReadOnlyElsewhere: Error {}
}

extension Generation {
    /// Whether a generation this process opens has its memory map populated in the background
    /// (``prefault()``): on for serving; a test that counts faults or threads may turn it off.
    static let prefaultsOnOpen = Atomic<Bool>(true)

    /// Maps the generation's pages into the process's page tables now, so that queries do not
    /// fault them in one by one (``Environment/populateMap(from:atMost:)``); returns the bytes
    /// populated.
    @discardableResult
    func prefault() throws -> Int {
        try environment.populateMap()
    }

    /// Bytes populated at a time in the background.
    static let prefaultChunk = 16 << 20

    /// ``prefault()`` on a utility thread, a chunk at a time. Thread ownership: the task holds the
    /// generation only for each chunk (a few milliseconds), so a generation retired meanwhile
    /// closes when it would have, and the rest is not populated. A failure leaves the pages to
    /// be faulted in by reads.
    private func prefaultInBackground() {
        DispatchQueue.global(qos: .utility).async { [weak self] in
            var offset = 0
            while let generation = self, Generation.prefaultsOnOpen.load(ordering: .relaxed),
                  let populated = try? generation.environment.populateMap(from: offset, atMost: Generation.prefaultChunk),
                  populated > 0 {
                offset += populated
            }
        }
    }
}

private struct WeakGeneration {
    weak var value: Generation?
}

/// What ``Generation`` asks of each of its query caches (``StripedCache`` of any key and value).
protocol QueryCache: AnyObject {
    func statistics() -> StripedCacheStatistics
    func removeAll()
}

extension StripedCache: QueryCache {}
