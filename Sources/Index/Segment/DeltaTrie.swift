import Dispatch
import Storage
import Synchronization

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
/// Thread-safety: the latest trie behind a mutex, held only to swap or copy a reference; at most
/// one background build at a time (``building``).
final class DeltaTrie: Sendable {
    /// Delta postings (`delta_terms` entries) up to which a query builds the trie itself.
    static let inlineBuildLimit = 30_000

    private let latest = Mutex<(snapshot: Int, trie: [UInt8])?>(nil)
    private let building = Atomic<Bool>(false)
    private let queryBuilds = Atomic<Int>(0)
    private let backgroundBuilds = Atomic<Int>(0)
    private let walks = Atomic<Int>(0)
    private let lastBuildNanoseconds = Atomic<Int>(0)

    /// Builds by a query and by the utility thread, queries that walked `delta_terms` while a
    /// build was due, the last build's duration and the trie kept (for an operator's metrics: many
    /// walks mean writes come faster than the tries are built).
    var statistics: DeltaTrieStatistics {
        DeltaTrieStatistics(queryBuilds: queryBuilds.load(ordering: .relaxed), backgroundBuilds: backgroundBuilds.load(ordering: .relaxed),
                            walks: walks.load(ordering: .relaxed),
                            lastBuildSeconds: Double(lastBuildNanoseconds.load(ordering: .relaxed)) / 1e9,
                            bytes: latest.withLock { $0?.trie.count ?? 0 })
    }

    /// The trie of the delta's name words as `txn` sees them, or nil when it is not built yet
    /// (a build of a large delta is then started in the background: walk the database instead).
    func trie(of schema: Schema, environment: Environment, in txn: borrowing ReadTransaction) throws -> [UInt8]? {
        let snapshot = txn.snapshotID
        if let cached = latest.withLock({ $0?.snapshot == snapshot ? $0?.trie : nil }) { return cached }
        if try txn.count(schema.deltaTerms) <= Self.inlineBuildLimit {
            let trie = try timedBuild(schema, in: txn)
            keep(trie, of: snapshot)
            queryBuilds.add(1, ordering: .relaxed)
            return trie
        }
        walks.add(1, ordering: .relaxed)
        if building.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            DispatchQueue.global(qos: .utility).async { [self] in
                defer { building.store(false, ordering: .releasing) }
                // The newest snapshot by then, which is the one queries will soon read.
                try? environment.read { txn in keep(try timedBuild(schema, in: txn), of: txn.snapshotID) }
                backgroundBuilds.add(1, ordering: .relaxed)
            }
        }
        return nil
    }

    private func timedBuild(_ schema: Schema, in txn: borrowing ReadTransaction) throws -> [UInt8] {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { lastBuildNanoseconds.store(Int(DispatchTime.now().uptimeNanoseconds - start), ordering: .relaxed) }
        return try Self.build(schema, in: txn)
    }

    /// Whether the trie of `snapshot` is built (for tests).
    func isBuilt(for snapshot: Int) -> Bool { latest.withLock { $0?.snapshot == snapshot } }

    /// Keeps `trie` unless a newer snapshot's is kept already.
    private func keep(_ trie: [UInt8], of snapshot: Int) {
        latest.withLock { current in
            if current.map({ $0.snapshot <= snapshot }) ?? true { current = (snapshot, trie) }
        }
    }

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

/// What ``DeltaTrie`` did for the serving generation (see ``Shard/deltaTrieStatistics()``).
public struct DeltaTrieStatistics: Sendable, Hashable {
    /// Tries built by the query that first needed them (small deltas).
    public var queryBuilds: Int
    /// Tries built on the utility thread (large deltas).
    public var backgroundBuilds: Int
    /// Typo'd keystrokes that walked `delta_terms` because their snapshot's trie was not built.
    public var walks: Int
    /// How long the last build took.
    public var lastBuildSeconds: Double
    /// Bytes of the trie kept.
    public var bytes: Int
}
