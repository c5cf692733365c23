import Caching

/// What the typo-tolerant walks of one generation's base term trie found, kept for the next query
/// that asks the same: a person typing "python3 dj", "python3 dja", "python3 djan" asks for the
/// words within one edit of "python3" on every keystroke, and the walk is most of such a
/// keystroke's cost.
///
/// Exact by construction: the base trie is written once by the build and never changes while the
/// generation is open (updates go to the delta segment, which callers still read fresh), and the
/// key is everything a walk depends on.
///
/// Bounded by bytes: 16 stripes of at most 256 entries and ``bytesPerStripe`` each (8 MiB a cache),
/// a single result of at most ``maximumBytes``, first in, first out (a ``StripedCache``: two event
/// loops asking at once rarely meet on one lock, and no lock is held for a walk). The cost is the
/// memory a result takes (``TermList/memoryBytes``), not its number of terms: counted by terms, two of
/// these caches could hold 4,096 lists of up to 4,096 terms, and a node's memory grew for as long
/// as people typed new words (+13–17% over 8 minutes of the soak after its answer cache was full).
enum TermMatchCache {
    /// Everything a walk's result depends on, besides the (immutable) trie.
    struct Key: Hashable, Sendable {
        var word: [UInt32]
        var budget: Int
        var prefixMode: Bool
    }

    /// A walk of a database that updates change (the category words): also keyed by the read
    /// snapshot (``ReadTransaction/snapshotID``), so a write makes older entries unreachable
    /// (and ``makeBySnapshot(bytes:)`` drops them).
    struct SnapshotKey: Hashable, Sendable {
        var snapshot: Int
        var word: Key
    }

    static let bytesPerStripe = 512 << 10
    /// About 10,000 terms of ten bytes in a ``TermList`` (a short partial word with typos can
    /// match tens of thousands: such walks are redone rather than kept).
    static let maximumBytes = 160 << 10

    /// A cache of walks whose results take `bytes` of memory.
    static func make<K, Value: Sendable>(bytes: @escaping @Sendable (Value) -> Int) -> StripedCache<K, Value> {
        StripedCache(stripes: 16, entriesPerStripe: 256, costPerStripe: bytesPerStripe, maximumCost: maximumBytes, cost: bytes)
    }

    /// A cache of walks of a database that updates change, by read snapshot: a write retires the
    /// older snapshots' entries (see ``StripedCache``).
    static func makeBySnapshot<Value: Sendable>(bytes: @escaping @Sendable (Value) -> Int) -> StripedCache<SnapshotKey, Value> {
        StripedCache(stripes: 16, entriesPerStripe: 256, costPerStripe: bytesPerStripe, maximumCost: maximumBytes, cost: bytes,
                     epoch: { CacheEpoch(minor: UInt64($0.snapshot)) })
    }

    /// The memory of a list of terms as Swift holds it: the list's storage (a 32-byte header and
    /// 16 bytes an element) and each term's own array (a 32-byte header and its bytes, rounded up
    /// to the allocator's 16).
    static func bytes(ofTerms terms: some Collection<[UInt8]>) -> Int {
        terms.reduce(32) { $0 + 16 + arrayBytes($1) }
    }

    /// One byte array's allocation.
    static func arrayBytes(_ bytes: [UInt8]) -> Int { (32 + bytes.count + 15) & ~15 }
}
