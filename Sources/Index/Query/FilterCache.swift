import Caching

/// The documents that pass a query's filters (its complete words and its tokens, see
/// ``Generation/filteredDocuments(words:tokens:includeDescription:in:)``), kept for the
/// next query that asks the same of the same data.
///
/// Why: a person typing "stomwü staungrou cr", "… cru", "… crug" asks for the same complete words
/// on every keystroke of the last word, and on a big catalog decoding and intersecting their
/// posting lists (10⁵ documents for a common word) is most of the keystroke's cost. A kept list
/// costs a look-up: arrays are shared, not copied.
///
/// Exact by construction: the key holds the read snapshot's id (``ReadTransaction/snapshotID``),
/// and two snapshots with one id see the same postings, delta and deleted set. A write makes every
/// older entry unreachable, and the cache drops it (the snapshot is its epoch, see ``StripedCache``).
///
/// Bounded by bytes: 16 stripes of 4 MiB, or of 2 bytes a base document when that is more (64 MiB
/// a generation up to two million documents; 320 MiB for ten million), each holding a list of up
/// to half the base; first in, first out (a ``StripedCache``). The longest lists are the ones worth
/// keeping most: a word in half of a million entries costs a millisecond and a half to decode on
/// every keystroke of the word after it (at 2 MiB a list, "camakee …" on the synthetic 1M catalog
/// was never kept; at a fixed 4 MiB, its 2.5 million documents of the 10M catalog were decoded
/// again on every keystroke, 10 ms each).
enum FilterCache {
    struct Key: Hashable, Sendable {
        struct Word: Hashable, Sendable {
            var scalars: [UInt32]
            var budget: Int
            var isPartial: Bool
        }
        var snapshot: Int
        var words: [Word]
        var tokens: [SearchToken]
        var includeDescription: Bool

        init(snapshot: Int, words: [QueryWord], tokens: [SearchToken], includeDescription: Bool) {
            self.snapshot = snapshot
            self.words = words.map { Word(scalars: $0.scalars, budget: $0.budget, isPartial: $0.isPartial) }
            self.tokens = tokens
            self.includeDescription = includeDescription
        }
    }

    /// The filtered documents (nil: no filter at all) and each word's nearest distance.
    struct Value: Sendable {
        var docs: [UInt32]?
        var nearest: [Int]
    }

    static let bytesPerStripe = 4 << 20

    /// A category count of the filtered documents: |filtered ∩ category|, keyed by the filter
    /// (snapshot included) and the category's name. The keystrokes of a word after complete ones
    /// count the same categories of the same documents, and each count is a merge of two posting
    /// lists that can be 10⁵ long.
    ///
    /// The filter's hash is taken once, by the caller, for all of a keystroke's chips: hashing the
    /// filter's words and tokens again for each chip was most of the look-up ("griachijix B" on
    /// the synthetic 1M catalog counts a dozen chips).
    struct CategoryCountKey: Hashable, Sendable {
        let filter: Key
        /// `filter.hashValue`.
        let filterHash: Int
        /// The chip's token, as its filter pseudo-term (``Schema/tokenTerm(_:)``).
        let category: [UInt8]

        init(filter: Key, filterHash: Int, category: [UInt8]) {
            self.filter = filter
            self.filterHash = filterHash
            self.category = category
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(filterHash)
            hasher.combine(category)
        }

        static func == (a: Self, b: Self) -> Bool {
            a.filterHash == b.filterHash && a.category == b.category && a.filter == b.filter
        }
    }

    /// 16 stripes of 1,024 counts.
    static func makeCategoryCounts() -> StripedCache<CategoryCountKey, Int> {
        StripedCache(stripes: 16, entriesPerStripe: 1024, epoch: { CacheEpoch(minor: UInt64($0.filter.snapshot)) })
    }

    /// Bitmaps of filtered documents (``DocumentBitmap``), for the category counts of long lists:
    /// the filter's own and each category's, both used on every keystroke that counts that
    /// category. 16 stripes of 4 MiB, as the lists (a bitmap of a million numbers is 122 KiB).
    static func makeBitmaps() -> StripedCache<Key, DocumentBitmap> {
        StripedCache(stripes: 16, entriesPerStripe: 128, costPerStripe: bytesPerStripe, maximumCost: bytesPerStripe,
                     cost: { 64 + $0.bytes }, epoch: { CacheEpoch(minor: UInt64($0.snapshot)) })
    }

    static func make(documents: Int) -> StripedCache<Key, Value> {
        // Half the base at 4 bytes a number, and room for a value's own overhead.
        let bytesPerStripe = max(Self.bytesPerStripe, 2 * documents + 4096)
        return StripedCache(stripes: 16, entriesPerStripe: 128, costPerStripe: bytesPerStripe, maximumCost: bytesPerStripe,
                     cost: { 64 + 4 * ($0.docs?.count ?? 0) + 8 * $0.nearest.count },
                     epoch: { CacheEpoch(minor: UInt64($0.snapshot)) })
    }
}
