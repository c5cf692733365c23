import Cluster
import Synchronization
import Wire

/// One replica of one shard as the whole coordinator shares it: where it is, whether it is up,
/// and what generations it holds. Written by health checks (a few times a second) and by calls
/// that fail; read when the routing view is rebuilt — never on the per-request path, which reads
/// its event loop's copy of the view instead.
final class Replica: Sendable {
    /// What the coordinator knows about a replica.
    struct Health: Sendable {
        var up = false
        var current: UInt64 = 0
        var generations: [Typeahead_V1_GenerationInfo] = []
        var entries: UInt64 = 0
        var mapBytes: UInt64 = 0
        var usedBytes: UInt64 = 0
        var lastError = ""
        var consecutiveFailures = 0
        var lastSeen: ContinuousClock.Instant?
        /// A health check or call has finished, whatever its outcome.
        var everChecked = false

        /// Complete generations (the ones a pinned query may ask for).
        var complete: Set<UInt64> { Set(generations.map(\.number)).union(current == 0 ? [] : [current]) }
    }

    /// Index in the coordinator's replica list.
    let id: Int
    /// Index of its shard (the assignment's shard number).
    let shard: Int
    let endpoint: Endpoint
    /// Consecutive failures after which it is marked down.
    let failuresToMarkDown: Int
    private let state = Mutex(Health())
    /// Mirrors `consecutiveFailures > 0`, so a successful call costs one load, not a lock.
    private let failing = Atomic<Bool>(false)
    /// Called (outside the lock) whenever something routing depends on changed: up or down, or
    /// the generations it holds. The coordinator rebuilds its view then.
    private let onChange: @Sendable (Replica) -> Void

    init(id: Int, shard: Int, endpoint: Endpoint, failuresToMarkDown: Int, onChange: @escaping @Sendable (Replica) -> Void) {
        self.id = id
        self.shard = shard
        self.endpoint = endpoint
        self.failuresToMarkDown = failuresToMarkDown
        self.onChange = onChange
    }

    var health: Health { state.withLock { $0 } }

    /// A successful health check: the replica is up (if it serves a generation) and holds these
    /// generations.
    func checked(_ stats: Typeahead_V1_StatsResponse, at now: ContinuousClock.Instant) {
        failing.store(false, ordering: .relaxed)
        let changed = state.withLock { health in
            let before = (health.up, health.current, health.complete)
            health.up = stats.currentGeneration != 0
            health.current = stats.currentGeneration
            health.generations = stats.generations
            health.entries = stats.entries
            health.mapBytes = stats.mapBytes
            health.usedBytes = stats.usedBytes
            health.lastError = stats.currentGeneration == 0 ? "serves no generation yet" : ""
            health.consecutiveFailures = 0
            health.lastSeen = now
            defer { health.everChecked = true }
            return before != (health.up, health.current, health.complete) || !health.everChecked
        }
        if changed { onChange(self) }
    }

    /// A failed check or call; after ``failuresToMarkDown`` in a row the replica is down.
    func failed(_ error: String) {
        failing.store(true, ordering: .relaxed)
        let changed = state.withLock { health in
            health.consecutiveFailures += 1
            health.lastError = error
            let first = !health.everChecked
            health.everChecked = true
            guard health.up, health.consecutiveFailures >= failuresToMarkDown else { return first }
            health.up = false
            return true
        }
        if changed { onChange(self) }
    }

    /// A successful call: clears the failure count (one atomic load when there was none).
    func succeeded() {
        guard failing.load(ordering: .relaxed) else { return }
        failing.store(false, ordering: .relaxed)
        state.withLock { $0.consecutiveFailures = 0 }
    }
}

/// What every event loop routes by: the pinned generation and, per shard, the replicas that can
/// answer for it. Immutable; rebuilt when a replica's health or generations change and handed to
/// every loop, so a request reads it without a lock.
struct ClusterView: Sendable, Equatable {
    /// The generation every query reads (``GenerationChoice``); nil: not ready.
    let generation: UInt64?
    /// Per shard, the ids of the replicas that are up and hold `generation`.
    let eligible: [[Int]]

    static let empty = ClusterView(generation: nil, eligible: [])

    static func build(from replicas: [Replica], shardCount: Int) -> ClusterView {
        let healths = replicas.map(\.health)
        let reports = zip(replicas, healths).compactMap { replica, health in
            health.up ? GenerationChoice.Report(shard: replica.shard, current: health.current, complete: health.complete) : nil
        }
        guard let generation = GenerationChoice.choose(reports) else {
            return ClusterView(generation: nil, eligible: Array(repeating: [], count: shardCount))
        }
        var eligible = [[Int]](repeating: [], count: shardCount)
        for (replica, health) in zip(replicas, healths) where health.up && health.complete.contains(generation) {
            eligible[replica.shard].append(replica.id)
        }
        return ClusterView(generation: generation, eligible: eligible)
    }
}
