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
/// Bounded: 16 stripes × 256 entries of at most 4096 terms each, first in, first out (a
/// ``StripedCache``: two event loops asking at once rarely meet on one lock, and no lock is held
/// for a walk).
enum TermMatchCache {
    /// Everything a walk's result depends on, besides the (immutable) trie.
    struct Key: Hashable, Sendable {
        var word: [UInt32]
        var budget: Int
        var prefixMode: Bool
    }

    /// A walk of a database that updates change (the category words): also keyed by the read
    /// snapshot (``ReadTransaction/snapshotID``), so a write makes older entries unreachable.
    struct SnapshotKey: Hashable, Sendable {
        var snapshot: Int
        var word: Key
    }

    /// A cache of walks whose results have `size` terms (larger than 4096 are not kept: a short
    /// partial word with typos can match thousands of words).
    static func make<K, Value: Sendable>(size: @escaping @Sendable (Value) -> Int) -> StripedCache<K, Value> {
        StripedCache(stripes: 16, entriesPerStripe: 256, maximumCost: 4096, cost: size)
    }
}
