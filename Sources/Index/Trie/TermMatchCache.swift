import Synchronization

/// What the typo-tolerant walks of one generation's base term trie found, kept for the next query
/// that asks the same: a person typing "python3 dj", "python3 dja", "python3 djan" asks for the
/// words within one edit of "python3" on every keystroke, and the walk is most of such a
/// keystroke's cost.
///
/// Exact by construction: the base trie is written once by the build and never changes while the
/// generation is open (updates go to the delta segment, which callers still read fresh), and the
/// key is everything a walk depends on.
///
/// Bounded: `stripes × entriesPerStripe` entries of at most `maximumSize` terms each, first in,
/// first out. Striped, so two event loops asking at once rarely meet on one lock, and each lock is
/// held for a dictionary look-up or insert only, never for a walk.
final class TermMatchCache<Value: Sendable>: Sendable {
    /// Everything a walk's result depends on, besides the (immutable) trie.
    struct Key: Hashable, Sendable {
        var word: [UInt32]
        var budget: Int
        var prefixMode: Bool
    }

    static var stripes: Int { 16 }
    static var entriesPerStripe: Int { 256 }
    /// Larger results are not kept (a short partial word with typos can match thousands of words).
    static var maximumSize: Int { 4096 }

    /// A result's size, for ``maximumSize``.
    private let size: @Sendable (Value) -> Int

    init(size: @escaping @Sendable (Value) -> Int) {
        self.size = size
        stripes = (0..<Self.stripes).map { _ in Stripe() }
    }

    private final class Stripe: Sendable {
        struct State {
            var entries: [Key: Value] = [:]
            var order: [Key] = []
            var next = 0
        }
        let state = Mutex(State())
    }

    private let stripes: [Stripe]

    /// The cached matches of `key`, or `compute()`'s (then kept, if small enough).
    func value(_ key: Key, compute: () throws -> Value) rethrows -> Value {
        let stripe = stripes[Int(UInt(bitPattern: key.hashValue) % UInt(Self.stripes))]
        if let hit = stripe.state.withLock({ $0.entries[key] }) { return hit }
        let found = try compute()
        guard size(found) <= Self.maximumSize else { return found }
        stripe.state.withLock { state in
            guard state.entries[key] == nil else { return }
            if state.order.count < Self.entriesPerStripe {
                state.order.append(key)
            } else {
                state.entries[state.order[state.next]] = nil
                state.order[state.next] = key
                state.next = (state.next + 1) % Self.entriesPerStripe
            }
            state.entries[key] = found
        }
        return found
    }
}
