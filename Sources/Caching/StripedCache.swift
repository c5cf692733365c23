import Synchronization

/// A bounded, striped, first-in-first-out cache of computed values: what a server keeps so that the
/// next request asking the same is answered without the work.
///
/// Bounded twice per stripe: by entries and by the summed ``cost`` of its values (bytes, say), and
/// a single value over ``maximumCost`` is never kept. When an insert would pass either bound, the
/// oldest entries of its stripe go first. First in, first out rather than least recently used: a
/// hit then costs one dictionary look-up under the lock and no bookkeeping, and on the workloads
/// served here (keystrokes, words being typed) the two keep nearly the same entries.
///
/// Striped: a key's hash picks one of `stripes` independent parts, each with its own lock, so
/// threads asking at once rarely meet on one lock; each lock is held for a look-up or an insert,
/// never while a value is computed (two threads missing the same key at once both compute it,
/// and the first insert wins).
///
/// Epochs (optional): a cache whose keys name the read snapshot they were computed at (so that a
/// write makes every older entry unreachable) says so with `epoch`. A stripe then keeps one
/// epoch's entries: the first insert of a newer epoch empties it (on the inserting thread, under
/// the stripe's lock: at most a stripe's entries are freed there), and an insert of an older one
/// is not kept (see ``CacheEpoch`` for "newer"). Without it, entries no request can reach again
/// would stay until they age out: under a steady stream of writes every such cache fills to its
/// bound with them, and `scripts/soak.sh` saw a node's memory grow for as long as the writes went
/// on. Lookups need no epoch: a key of another snapshot simply misses.
///
/// ```swift
/// let cache = StripedCache<String, [UInt8]>(stripes: 16, entriesPerStripe: 1024, costPerStripe: 4 << 20,
///                                           maximumCost: 64 << 10, cost: { $0.count })
/// let bytes = cache.value("red sh") { encode(answer("red sh")) }
/// ```
public final class StripedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    public let entriesPerStripe: Int
    public let costPerStripe: Int
    public let maximumCost: Int
    private let cost: @Sendable (Value) -> Int
    private let epoch: (@Sendable (Key) -> CacheEpoch)?
    private let stripes: [Stripe]

    /// - Parameters:
    ///   - entriesPerStripe: at least 1.
    ///   - costPerStripe: the summed cost a stripe may hold.
    ///   - maximumCost: values costing more are returned but not kept (at most `costPerStripe`).
    ///   - epoch: the snapshot a key was computed at, for caches whose older snapshots' entries
    ///     become unreachable (see the type's discussion); nil keeps entries of every age.
    public init(stripes: Int, entriesPerStripe: Int, costPerStripe: Int = .max, maximumCost: Int = .max,
                cost: @escaping @Sendable (Value) -> Int = { _ in 1 }, epoch: (@Sendable (Key) -> CacheEpoch)? = nil) {
        precondition(stripes >= 1 && entriesPerStripe >= 1 && costPerStripe >= 0, "a cache needs room")
        self.entriesPerStripe = entriesPerStripe
        self.costPerStripe = costPerStripe
        self.maximumCost = min(maximumCost, costPerStripe)
        self.cost = cost
        self.epoch = epoch
        self.stripes = (0..<stripes).map { _ in Stripe(capacity: entriesPerStripe) }
    }

    private final class Stripe: Sendable {
        struct State {
            var entries: [Key: (value: Value, cost: Int)] = [:]
            /// Keys in insertion order, a ring of `capacity` slots from `head`.
            var order: [Key?]
            var head = 0
            var count = 0
            var cost = 0
            var hits: UInt64 = 0
            var misses: UInt64 = 0
            /// The epoch of the entries kept (with an `epoch` function; nil until the first insert).
            var epoch: CacheEpoch?
            /// Entries dropped because a newer epoch came (counted for metrics).
            var retired: UInt64 = 0

            /// Empties the stripe, keeping its storage.
            mutating func clear() {
                entries.removeAll(keepingCapacity: true)
                for slot in order.indices { order[slot] = nil }
                head = 0
                count = 0
                cost = 0
            }
        }
        let state: Mutex<State>
        init(capacity: Int) { state = Mutex(State(order: Array(repeating: nil, count: capacity))) }
    }

    private func stripe(_ key: Key) -> Stripe {
        stripes[Int(UInt(bitPattern: key.hashValue) % UInt(stripes.count))]
    }

    /// The cached value of `key`, if any.
    public func cached(_ key: Key) -> Value? {
        stripe(key).state.withLock { state in
            if let entry = state.entries[key] {
                state.hits &+= 1
                return entry.value
            }
            state.misses &+= 1
            return nil
        }
    }

    /// Keeps `value` for `key` (unless it costs more than ``maximumCost``, or the key is kept already).
    public func insert(_ value: Value, for key: Key) {
        insert(value, for: key, cost: cost(value))
    }

    /// Keeps `value` for `key` at a cost the caller worked out (when the key's own size counts:
    /// the `cost` function sees only values).
    public func insert(_ value: Value, for key: Key, cost valueCost: Int) {
        guard valueCost <= maximumCost else { return }
        let keyEpoch = epoch?(key)
        stripe(key).state.withLock { state in
            guard admits(keyEpoch, &state), state.entries[key] == nil else { return }
            evict(&state, freeingSlot: true, toFit: valueCost)
            state.order[(state.head + state.count) % state.order.count] = key
            state.count += 1
            state.cost += valueCost
            state.entries[key] = (value, valueCost)
        }
    }

    /// Keeps `value` for `key` in place of the value kept for it, if any: for a value that knows
    /// more than the one it replaces (a term walk that also listed its terms; ``insert(_:for:)``
    /// keeps the first). The key keeps its place in the first-in-first-out order, and older
    /// entries make room for the difference (the key's own, if it is the oldest). A value over
    /// ``maximumCost`` is not kept, and the one it was to supersede is dropped.
    public func replace(_ value: Value, for key: Key) {
        let valueCost = cost(value)
        let replaced: Bool = stripe(key).state.withLock { state in
            guard let existing = state.entries[key] else { return false }
            state.cost -= existing.cost
            guard valueCost <= maximumCost else {
                state.entries.removeValue(forKey: key)
                removeSlot(&state, of: key)
                return true
            }
            state.entries[key] = (value, valueCost)
            state.cost += valueCost
            evict(&state, freeingSlot: false, toFit: 0)
            return true
        }
        if !replaced { insert(value, for: key, cost: valueCost) }
    }

    /// Whether an entry of `keyEpoch` may be kept in the stripe: not if it is an older snapshot
    /// than the stripe's; if it supersedes the stripe's, their entries go first (no request can
    /// reach them again). Two snapshots read at once (a query begun before a write, a switch's
    /// pinned reads) cost some hits, never an answer: keys name their snapshot.
    private func admits(_ keyEpoch: CacheEpoch?, _ state: inout Stripe.State) -> Bool {
        guard let keyEpoch else { return true }
        if let kept = state.epoch {
            if keyEpoch == kept { return true }
            if !keyEpoch.supersedes(kept) { return false }
        }
        state.retired &+= UInt64(state.count)
        state.clear()
        state.epoch = keyEpoch
        return true
    }

    /// Drops the oldest entries until a slot is free (if asked) and `cost` more fits the stripe's
    /// budget, as long as entries are left.
    private func evict(_ state: inout Stripe.State, freeingSlot: Bool, toFit cost: Int) {
        let capacity = state.order.count
        while state.count > 0 && ((freeingSlot && state.count == capacity) || state.cost + cost > costPerStripe) {
            let oldest = state.order[state.head]!
            state.order[state.head] = nil
            state.head = (state.head + 1) % capacity
            state.count -= 1
            state.cost -= state.entries.removeValue(forKey: oldest)?.cost ?? 0
        }
    }

    /// Removes `key`'s slot from the order ring, the others keeping their order. O(entries per stripe):
    /// only for a replacement too costly to keep, which is rare.
    private func removeSlot(_ state: inout Stripe.State, of key: Key) {
        let capacity = state.order.count
        let kept = (0..<state.count).compactMap { state.order[(state.head + $0) % capacity] }.filter { $0 != key }
        state.order = Array(repeating: nil, count: capacity)
        for (index, other) in kept.enumerated() { state.order[index] = other }
        state.head = 0
        state.count = kept.count
    }

    /// The cached value of `key`, or `compute()`'s (then kept).
    public func value(_ key: Key, compute: () throws -> Value) rethrows -> Value {
        if let hit = cached(key) { return hit }
        let found = try compute()
        insert(found, for: key)
        return found
    }

    /// Empties every stripe (the counters stay).
    public func removeAll() {
        for stripe in stripes {
            stripe.state.withLock { $0.clear() }
        }
    }

    /// Entries, summed cost, hits, misses and entries retired by newer epochs over every stripe
    /// (for metrics; each stripe is read under its lock, the sum is not one instant's).
    public func statistics() -> StripedCacheStatistics {
        var total = StripedCacheStatistics()
        for stripe in stripes {
            stripe.state.withLock { state in
                total.entries += state.count
                total.cost += state.cost
                total.hits &+= state.hits
                total.misses &+= state.misses
                total.retired &+= state.retired
            }
        }
        return total
    }
}
