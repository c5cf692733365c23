import Storage

/// The delta's name words as a ``PackedTrie``, built from `delta_terms` for one read snapshot and
/// kept for the queries that follow, so that a typo-tolerant walk of the delta is the same walk in
/// memory as the base's (``PackedTrie/regions(_:query:budget:prefixMode:previous:terms:)``).
///
/// Why: walking `delta_terms` itself with a cursor costs a B+tree step per key it meets, and the
/// walk meets every key near the typed word, description words included: with a fifth of Debian
/// re-weighted, "limb" spent 110 µs a keystroke in that walk, four times the whole answer on a
/// fresh shard.
///
/// **Never a slow keystroke.** Building reads every delta key once: 5 ms for Debian's 127,000
/// delta postings, 40 ms for a fifth of cities (379,000). A small delta's trie
/// (``inlineBuildLimit`` postings at most) is built by the query that first needs it; a larger
/// one on a utility thread, while the queries of that snapshot walk `delta_terms` with a cursor
/// as before (``trie(of:environment:in:)`` returns nil). Every write makes a new snapshot, so a
/// node written to all day rebuilds at most one trie at a time, and its keystrokes never wait for one.
///
/// Exact: a trie is used only by reads of the snapshot it was built from
/// (``ReadTransaction/snapshotID``, which every write advances), so a query reads the words of
/// exactly the delta it sees. Only name words are in it (a key with at least one posting of field
/// 0): typo'd suggest matches are name words.
///
/// Thread-safety: a ``SnapshotCache``, which keeps the latest trie and builds one at a time.
final class DeltaTrie: Sendable {
    /// Delta postings (`delta_terms` entries) up to which a query builds the trie itself.
    static let inlineBuildLimit = 30_000

    private let cache = SnapshotCache<[UInt8]>(inlineBuildLimit: DeltaTrie.inlineBuildLimit, bytes: { $0.count })

    /// Builds by a query and by the utility thread, queries that walked `delta_terms` while a
    /// build was due (``SnapshotCacheStatistics/doneWithout``), the last build's duration and the
    /// trie kept.
    var statistics: SnapshotCacheStatistics { cache.statistics }

    /// The trie of the delta's name words as `txn` sees them, or nil when it is not built yet
    /// (a build of a large delta is then started in the background: walk the database instead).
    func trie(of schema: Schema, environment: Environment, in txn: borrowing ReadTransaction) throws -> [UInt8]? {
        try cache.value(size: try txn.count(schema.deltaTerms), environment: environment, in: txn) { txn in
            try Self.build(schema, in: txn)
        }
    }

    /// Whether the trie of `snapshot` is built (for tests).
    func isBuilt(for snapshot: Int) -> Bool { cache.isBuilt(for: snapshot) }

    private static func build(_ schema: Schema, in txn: borrowing ReadTransaction) throws -> [UInt8] {
        var words: [[UInt8]] = []
        try txn.withCursor(schema.deltaTerms) { cursor in
            var entry = try cursor.seek(atLeast: [TermWalk.firstWordByte])
            while let (key, value) = entry {
                if try Generation.deltaKeyHasNamePosting(&cursor, from: value) { words.append(Array(key)) }
                entry = try cursor.nextKey()
            }
        }
        return PackedTrie.build(words)
    }
}
