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
        /// The last failure was slowness (a health check timed out), not unreachability: the
        /// replica answered checks before and may only be overloaded.
        var lastFailureWasSlow = false

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

    /// Whether the coordinator has made up its mind about the replica: a check or call answered
    /// (it is up, or serves nothing yet), or ``failuresToMarkDown`` in a row failed (it is down).
    /// Readiness waits for this, not for a first outcome: one failed first check is often a node
    /// only slow to answer its first Stats (a process just started on a loaded machine), and taking
    /// it for a dead one made the coordinator ready with that shard missing from every answer.
    var isJudged: Bool {
        let health = self.health
        return health.everChecked && (health.consecutiveFailures == 0 || health.consecutiveFailures >= failuresToMarkDown)
    }

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
            health.lastFailureWasSlow = false
            health.lastSeen = now
            defer { health.everChecked = true }
            return before != (health.up, health.current, health.complete) || !health.everChecked
        }
        if changed { onChange(self) }
    }

    /// A failed check or call; after ``failuresToMarkDown`` in a row the replica is down.
    /// `slow`: it failed by taking too long (a timed-out health check), not by being unreachable.
    func failed(_ error: String, slow: Bool = false) {
        failing.store(true, ordering: .relaxed)
        let changed = state.withLock { health in
            health.consecutiveFailures += 1
            health.lastError = error
            health.lastFailureWasSlow = slow
            let first = !health.everChecked
            health.everChecked = true
            // Reaching the count is news even for a replica that was never up: it is judged down
            // now, which readiness waits for (``isJudged``).
            let judged = health.consecutiveFailures == failuresToMarkDown
            guard health.up, health.consecutiveFailures >= failuresToMarkDown else { return first || judged }
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
    /// Per shard, the ids of the replicas that are up and hold `generation` (or, for a shard
    /// marked `degraded`, the slow ones).
    let eligible: [[Int]]
    /// Per shard: no replica is up, and the view routes to the replicas that are down only for
    /// being slow.
    let degraded: [Bool]

    static let empty = ClusterView(generation: nil, eligible: [], degraded: [])

    init(generation: UInt64?, eligible: [[Int]], degraded: [Bool]? = nil) {
        self.generation = generation
        self.eligible = eligible
        self.degraded = degraded ?? Array(repeating: false, count: eligible.count)
    }

    /// Which replicas serve: the generation ``GenerationChoice`` picks from the replicas that are up
    /// and, per shard, the up replicas that hold it.
    ///
    /// A shard whose replicas are all down, but only for being slow (their health checks timed out
    /// while they were reachable: an overloaded machine, a build hogging a core), keeps those
    /// replicas in routing, degraded, instead of none. Why: taking them out turns a slow shard into
    /// a missing one for every request, and puts the whole load on no one when they come back
    /// (`scripts/soak.sh` saw every replica of a shard leave routing under 70% load, hundreds of
    /// times, and each time every request in that window fail). A slow answer is better than none;
    /// the call's deadline still bounds the wait. Replicas that cannot be reached stay out: their
    /// calls would only fail.

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
        var degraded = [Bool](repeating: false, count: shardCount)
        for (replica, health) in zip(replicas, healths)
        where eligible[replica.shard].isEmpty || degraded[replica.shard] {
            guard !health.up, health.lastFailureWasSlow, health.complete.contains(generation) else { continue }
            eligible[replica.shard].append(replica.id)
            degraded[replica.shard] = true
        }
        return ClusterView(generation: generation, eligible: eligible, degraded: degraded)
    }
}
