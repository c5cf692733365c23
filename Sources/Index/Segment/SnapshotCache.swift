import Dispatch
import Storage
import Synchronization

/// A value derived from everything one read snapshot holds (the delta's words as a trie, the
/// deleted documents as a bitmap), kept for the queries of that snapshot that follow.
///
/// **Never a slow keystroke.** A value derived from a small input (``inlineBuildLimit`` items at
/// most, as the caller counts them) is built by the query that first needs it; a larger one on a
/// utility thread, while the queries of that snapshot do without it (``value(size:environment:in:build:)``
/// returns nil, and they read the database as before). Every write makes a new snapshot, so a node
/// written to all day builds at most one value of a kind at a time, and its keystrokes never wait.
///
/// **Exact.** A value is used only by reads of the snapshot it was built from
/// (``ReadTransaction/snapshotID``, which every write advances), so a query sees exactly the data
/// its transaction sees. Only the newest snapshot's value is kept: a read of an older snapshot
/// still open after a write does without.
///
/// Thread-safety: the latest value behind a mutex, held only to swap or copy a reference; at most
/// one background build at a time (``building``).
final class SnapshotCache<Value: Sendable>: Sendable {
    /// Input items (as counted by the caller) up to which a query builds the value itself.
    let inlineBuildLimit: Int
    private let bytes: @Sendable (Value) -> Int
    private let latest = Mutex<(snapshot: Int, value: Value)?>(nil)
    private let building = Atomic<Bool>(false)
    private let queryBuilds = Atomic<Int>(0)
    private let backgroundBuilds = Atomic<Int>(0)
    private let doneWithout = Atomic<Int>(0)
    private let lastBuildNanoseconds = Atomic<Int>(0)

    /// - Parameter bytes: the memory a value holds, for the statistics.
    init(inlineBuildLimit: Int, bytes: @escaping @Sendable (Value) -> Int) {
        self.inlineBuildLimit = inlineBuildLimit
        self.bytes = bytes
    }

    /// The value of the snapshot `txn` reads, or nil when it is not built yet (a build is then
    /// started in the background: do without it).
    ///
    /// - Parameters:
    ///   - size: how many items the build reads (``inlineBuildLimit`` decides who builds); asked
    ///     only when the value is not built.
    ///   - build: derives the value from a read transaction: `txn` inline, a transaction of the
    ///     newest snapshot on the utility thread.
    func value(size: @autoclosure () throws -> Int, environment: Environment, in txn: borrowing ReadTransaction,
               build: @escaping @Sendable (borrowing ReadTransaction) throws -> Value) throws -> Value? {
        let snapshot = txn.snapshotID
        if let cached = cached(in: txn) { return cached }
        if try size() <= inlineBuildLimit {
            let value = try timed { try build(txn) }
            keep(value, of: snapshot)
            queryBuilds.add(1, ordering: .relaxed)
            return value
        }
        doneWithout.add(1, ordering: .relaxed)
        if building.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            DispatchQueue.global(qos: .utility).async { [self] in
                defer { building.store(false, ordering: .releasing) }
                // The newest snapshot by then, which is the one queries will soon read.
                try? environment.read { txn in keep(try timed { try build(txn) }, of: txn.snapshotID) }
                backgroundBuilds.add(1, ordering: .relaxed)
            }
        }
        return nil
    }

    /// The value of the snapshot `txn` reads if it is built already, else nil (nothing is built:
    /// for a caller whose own reads cost less than a build).
    func cached(in txn: borrowing ReadTransaction) -> Value? {
        let snapshot = txn.snapshotID
        return latest.withLock { $0?.snapshot == snapshot ? $0?.value : nil }
    }

    private func timed(_ body: () throws -> Value) rethrows -> Value {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { lastBuildNanoseconds.store(Int(DispatchTime.now().uptimeNanoseconds - start), ordering: .relaxed) }
        return try body()
    }

    /// Whether the value of `snapshot` is built (for tests).
    func isBuilt(for snapshot: Int) -> Bool { latest.withLock { $0?.snapshot == snapshot } }

    /// Keeps `value` unless a newer snapshot's is kept already.
    private func keep(_ value: Value, of snapshot: Int) {
        latest.withLock { current in
            if current.map({ $0.snapshot <= snapshot }) ?? true { current = (snapshot, value) }
        }
    }

    /// Builds by a query and by the utility thread, queries that did without a value while it was
    /// due, the last build's duration and the value kept (for an operator's metrics: many queries
    /// without mean writes come faster than the values are built).
    var statistics: SnapshotCacheStatistics {
        SnapshotCacheStatistics(queryBuilds: queryBuilds.load(ordering: .relaxed),
                                backgroundBuilds: backgroundBuilds.load(ordering: .relaxed),
                                doneWithout: doneWithout.load(ordering: .relaxed),
                                lastBuildSeconds: Double(lastBuildNanoseconds.load(ordering: .relaxed)) / 1e9,
                                bytes: latest.withLock { $0.map { bytes($0.value) } ?? 0 })
    }
}

/// What a ``SnapshotCache`` of the serving generation did (see ``Shard/deltaTrieStatistics()``,
/// ``Shard/deletedBitmapStatistics()``).
public struct SnapshotCacheStatistics: Sendable, Hashable {
    /// Values built by the query that first needed them (small inputs).
    public var queryBuilds: Int
    /// Values built on the utility thread (large inputs).
    public var backgroundBuilds: Int
    /// Queries that did without the value of their snapshot because it was still being built.
    public var doneWithout: Int
    /// How long the last build took.
    public var lastBuildSeconds: Double
    /// Bytes of the value kept.
    public var bytes: Int
}
