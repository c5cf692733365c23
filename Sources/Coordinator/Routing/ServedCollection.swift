import Cluster
import Dispatch
import Foundation
import HTTP2
import Observability
import RPC
import Synchronization
import Wire

/// One collection as a coordinator serves it: its routing core (shards, replicas, telemetry,
/// sessions), every loop's routing state for it (``LoopState``: view, links, latency windows,
/// hedging budget), its health checks, the generation it pins, and its part of
/// `Cluster/Status`. A coordinator holds one per collection of its cluster file, each exactly
/// what the whole coordinator was before collections, and answers a call through the one its
/// request names (``CollectionDispatch``).
///
/// Why apart, not shared: a collection's generations move on their own (a reindex of one never
/// switches another), its shards are its own, and so are its keystroke sessions; a node that
/// serves several collections is one replica of each, checked per collection (its Stats name the
/// collection), reached over one connection per collection and loop.
///
/// Threads: health checks run on the loops (each replica on its home loop), the routing view is
/// rebuilt on the collection's serial control queue and handed to every loop, the query path
/// reads its loop's state without a lock (``QueryRouter``).
final class ServedCollection: Sendable {
    let core: CoordinatorCore
    let isDefault: Bool
    private let logger: Logger
    /// The view's generation, for readiness (0: none).
    private let serving = Atomic<UInt64>(0)
    private let control: DispatchQueue
    /// Loop-confined per-loop state, set by `start` (health checks and status read it here; the
    /// query path has its own immutable copy in its ``QueryRouter``).
    private let states = Mutex<[HTTP2LoopBound<LoopState>]>([])
    private let checking = Atomic<Bool>(false)
    private let lastView = Mutex(ClusterView.empty)

    init(collection: ClusterFile.Collection, isDefault: Bool, settings: ClusterFile.Settings, registry: MetricsRegistry, logger: Logger,
         nodeToken: String?) {
        self.isDefault = isDefault
        self.logger = logger
        control = DispatchQueue(label: "typeahead.coordinator.control.\(collection.name)")
        let telemetry = CoordinatorTelemetry(collection: collection, isDefault: isDefault, registry: registry, logger: logger)
        let republish = Republisher()
        var replicas: [Replica] = []
        for (shard, entry) in collection.shards.enumerated() {
            for endpoint in entry.replicas {
                replicas.append(Replica(id: replicas.count, shard: shard, endpoint: endpoint,
                                        failuresToMarkDown: settings.failuresToMarkDown) { _ in republish.fire() })
            }
        }
        core = CoordinatorCore(collection: collection, settings: settings, replicas: replicas, telemetry: telemetry, nodeToken: nodeToken)
        republish.target.withLock { $0 = { [weak self] in self?.republishView() } }
    }

    var name: String { core.collection }

    /// The collection's entries as its health checks last saw them (Describe).
    var entries: UInt64 { core.entries(serving: lastView.withLock { $0.generation }) }

    /// Log fields naming the collection, empty for the default one (its lines read as before).
    var logFields: [String: String] { isDefault ? [:] : ["collection": name] }

    // MARK: Life cycle

    /// Makes every loop's state (links to every replica on `client`), connects, starts health
    /// checks; returns the query path over those states.
    func start(loops: [HTTP2EventLoop], client: HTTP2Client) -> QueryRouter {
        let core = self.core
        let loopStates = loops.map { loop in HTTP2LoopBound(sending: LoopState(loop: loop, core: core, client: client), eventLoop: loop) }
        states.withLock { $0 = loopStates }
        checking.store(true, ordering: .relaxed)
        for state in loopStates {
            state.eventLoop.execute { for link in state.value.links { link.connect() } }
        }
        for replica in core.replicas { scheduleHealthCheck(replica, after: .zero) }
        return QueryRouter(core: core, states: loopStates)
    }

    /// Health checks stop (the loops and connections are the server's to close).
    func stop() {
        checking.store(false, ordering: .relaxed)
    }

    /// The generation every query of this collection reads now, if any.
    var servingGeneration: UInt64? {
        let value = serving.load(ordering: .relaxed)
        return value == 0 ? nil : value
    }

    // MARK: Health and routing

    private func loopState(for replica: Replica) -> HTTP2LoopBound<LoopState>? {
        let all = states.withLock { $0 }
        return all.isEmpty ? nil : all[replica.id % all.count]
    }

    /// Each replica is checked on its home loop (replica id modulo loops), with that loop's link.
    private func scheduleHealthCheck(_ replica: Replica, after delay: Duration) {
        guard let home = loopState(for: replica) else { return }
        let interval = core.settings.healthInterval
        home.eventLoop.execute { [weak self] in
            _ = home.eventLoop.scheduleTimer(after: delay) {
                guard let self, self.checking.load(ordering: .relaxed) else { return }
                self.check(replica, on: home.value) {
                    self.scheduleHealthCheck(replica, after: interval)
                }
            }
        }
    }

    /// One health check: the node's Stats of this collection (its generations) within the health
    /// timeout. Loop thread.
    private func check(_ replica: Replica, on state: LoopState, then done: @escaping () -> Void) {
        let link = state.links[replica.id]
        let options = core.healthCheckOptions
        let logger = core.telemetry.logger
        let loop = state.loop
        let collection = core.collection
        link.withConnection { connection in
            guard let connection else {
                // Refused, timed out, or backing off after that: a failed check, so a replica that
                // gets no calls (they avoid it) is still marked down.
                replica.failed("health check: cannot connect to \(replica.endpoint)")
                done()
                return
            }
            let bound = HTTP2LoopBound(link, eventLoop: loop)
            let finished = HTTP2LoopBound(DoneBox(done), eventLoop: loop)
            GRPCClient.call(Typeahead_V1_ShardService.stats, Typeahead_V1_StatsRequest(collection: collection), on: connection,
                            options: options) { result in
                // On the loop already, except while it shuts down (calls then complete on the
                // caller's thread): queue it, so the link is only ever touched there.
                loop.execute {
                    switch result {
                    case .success(let stats) where !Self.answers(stats, for: collection):
                        // A node from before collections ignores the field and answers for its
                        // only shard: routing another collection's queries there would answer
                        // them from the wrong catalog.
                        replica.failed("health check: the node answered for collection \"\(stats.collection)\", not \"\(collection)\" "
                                       + "(a node older than collections serves only the collection \"default\")")
                    case .success(let stats):
                        replica.checked(stats, at: .now)
                    case .failure(let status):
                        replica.failed("health check: \(status)", slow: status.code == .deadlineExceeded)
                        // A check that timed out on a link nothing comes back on is a dead link
                        // (a blackholed host: TCP would wait minutes): close it, so the calls
                        // stuck on it fail over now. But a call answered there within the
                        // check's timeout says the link works and the node is only slow (an
                        // overloaded machine, a merge): closing it would fail every call on it,
                        // and load the other replicas just when they are busiest. A fifth of the
                        // timeout was the window once; `scripts/soak.sh` then saw links to
                        // working replicas closed dozens of times a minute under load (a stalled
                        // node answers nothing for 100 ms easily) and whole shards fall out of
                        // routing. A link cut while a check waits may so stay open one more
                        // round: the next check finds no answer since, and closes it.
                        let link = bound.value
                        let window = options.timeout ?? .milliseconds(500)
                        let answeredLately = link.lastAnswer.map { ContinuousClock.now - $0 < window } ?? false
                        if status.code == .deadlineExceeded, !answeredLately {
                            // Its calls in flight fail over, without counting against the replica
                            // (GRPCStatus.closedLocallyReason): the check above counted once.
                            logger.warning("link closed: health check timed out, no answer within its timeout",
                                           ["replica": "\(replica.endpoint)", "window": "\(window)"])
                            link.drop()
                        }
                    }
                    finished.value.run()
                }
            }
        }
    }

    /// Whether a node's Stats are those of `collection`'s shard: named so, or, from a node older
    /// than collections (no name), when `collection` is the one such a node serves.
    static func answers(_ stats: Typeahead_V1_StatsResponse, for collection: String) -> Bool {
        stats.collection == collection || (stats.collection.isEmpty && collection == CollectionName.default)
    }

    /// Rebuilds the routing view from every replica's health and hands it to every loop (only when
    /// it changed). Serial: on the control queue.
    func republishView() {
        control.async { [self] in
            let view = ClusterView.build(from: core.replicas, shardCount: core.shardNames.count)
            let before = lastView.withLock { last -> ClusterView in
                defer { last = view }
                return last
            }
            for replica in core.replicas {
                core.telemetry.replicaUp[replica.id].set(view.eligible[replica.shard].contains(replica.id) ? 1 : 0)
            }
            guard view != before || (serving.load(ordering: .relaxed) == 0 && view.generation != nil) else { return }
            core.telemetry.servingGeneration?.set(Double(view.generation ?? 0))
            core.telemetry.collectionServingGeneration.set(Double(view.generation ?? 0))
            if view.generation != before.generation {
                logger.info("serving generation", logFields.merging(["from": "\(before.generation ?? 0)", "to": "\(view.generation ?? 0)"]) { $1 })
            }
            // Each replica that left or joined the routing view, with the reason it left.
            for replica in core.replicas where before.eligible.count == view.eligible.count {
                let was = before.eligible[replica.shard].contains(replica.id), isNow = view.eligible[replica.shard].contains(replica.id)
                guard was != isNow else { continue }
                let health = replica.health
                let fields = logFields.merging(["shard": core.shardNames[replica.shard], "replica": "\(replica.endpoint)"]) { $1 }
                if isNow {
                    logger.info("replica serving", fields.merging(["generation": "\(view.generation ?? 0)"]) { $1 })
                } else {
                    logger.warning("replica left the routing view",
                                   fields.merging(["up": "\(health.up)", "last_error": health.lastError,
                                                   "consecutive_failures": "\(health.consecutiveFailures)"]) { $1 })
                }
            }
            let checked = core.replicas.allSatisfy(\.isJudged)
            // While the first checks come in, a shard without a replica yet is not news.
            for (shard, replicas) in view.eligible.enumerated() where replicas.isEmpty && checked {
                logger.warning("shard has no healthy replica", logFields.merging(["shard": core.shardNames[shard]]) { $1 })
            }
            for (shard, degraded) in view.degraded.enumerated() where degraded && !(before.degraded.indices.contains(shard) && before.degraded[shard]) {
                logger.warning("shard degraded: every replica is slow; routing to them still",
                               logFields.merging(["shard": core.shardNames[shard], "replicas": "\(view.eligible[shard].count)"]) { $1 })
            }
            for state in states.withLock({ $0 }) {
                state.eventLoop.execute { state.value.adopt(view) }
            }
            // Ready once a generation is served and every shard has a replica for it — or, so that a
            // dead shard does not keep the whole cluster out of service, once every replica is
            // judged (``Replica/isJudged``: answered, or failed enough times in a row to be down;
            // its shard is then answered as missing). Not after one failed check: a node slow to
            // answer its first one made the cluster ready with its shard missing.
            let covered = view.eligible.allSatisfy { !$0.isEmpty }
            serving.store(covered || checked ? view.generation ?? 0 : 0, ordering: .relaxed)
        }
    }

    // MARK: Status

    /// Checks every replica now, republishes the view, then calls `done` (on the control queue,
    /// after the republish).
    func refresh(then done: @escaping @Sendable () -> Void) {
        let group = DispatchGroup()
        for replica in core.replicas {
            guard let home = loopState(for: replica) else { continue }
            group.enter()
            home.eventLoop.execute { [self] in check(replica, on: home.value) { group.leave() } }
        }
        group.notify(queue: control) { [self] in
            republishView()
            control.async { done() }   // after the republish queued above
        }
    }

    /// The collection's state for `Cluster/Status`, with every loop's latency windows (the
    /// slowest figures kept); `reply` is called on the control queue.
    func status(_ reply: @escaping @Sendable (Typeahead_V1_CollectionState) -> Void) {
        let loops = states.withLock { $0 }
        let windows = Mutex<[(p50: Duration?, p95: Duration?)]>(Array(repeating: (nil, nil), count: core.shardNames.count))
        let group = DispatchGroup()
        for state in loops {
            group.enter()
            if !state.eventLoop.execute({
                let latency = state.value.latency
                windows.withLock { all in
                    for (shard, window) in latency.enumerated() {
                        all[shard].p50 = Self.maximum(all[shard].p50, window.p50)
                        all[shard].p95 = Self.maximum(all[shard].p95, window.p95)
                    }
                }
                group.leave()
            }) { group.leave() }
        }
        group.notify(queue: control) { [self] in
            reply(state(latency: windows.withLock { $0 }))
        }
    }

    private static func maximum(_ a: Duration?, _ b: Duration?) -> Duration? {
        switch (a, b) {
        case let (a?, b?): max(a, b)
        default: a ?? b
        }
    }

    private func state(latency: [(p50: Duration?, p95: Duration?)]) -> Typeahead_V1_CollectionState {
        let now = ContinuousClock.now
        let view = lastView.withLock { $0 }
        func micros(_ duration: Duration?) -> UInt32 {
            guard let duration else { return 0 }
            return UInt32(clamping: duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000)
        }
        let shards = core.shardNames.enumerated().map { index, name in
            let replicas = core.replicas.filter { $0.shard == index }.map { replica in
                let health = replica.health
                let seen = health.lastSeen.map { UInt64(max(0, (now - $0).components.seconds * 1000 + (now - $0).components.attoseconds / 1_000_000_000_000_000)) }
                return Typeahead_V1_ReplicaState(address: replica.endpoint.description,
                                                 up: view.eligible.indices.contains(index) && view.eligible[index].contains(replica.id),
                                                 currentGeneration: health.current, generations: health.generations,
                                                 entries: health.entries, lastError: health.lastError,
                                                 consecutiveFailures: UInt32(clamping: health.consecutiveFailures),
                                                 lastSeenMs: seen ?? 0, mapBytes: health.mapBytes, usedBytes: health.usedBytes)
            }
            return Typeahead_V1_ShardState(name: name, replicas: replicas, p50Us: micros(latency[index].p50), p95Us: micros(latency[index].p95))
        }
        return Typeahead_V1_CollectionState(name: name, servingGeneration: view.generation ?? 0, shards: shards, ready: view.generation != nil)
    }
}

/// Forwards replicas' change notices to their collection once it exists (replicas are made first).
private final class Republisher: Sendable {
    let target = Mutex<(@Sendable () -> Void)?>(nil)
    func fire() { target.withLock { $0 }?() }
}

/// A loop-confined completion handed through a Sendable closure.
private final class DoneBox {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
