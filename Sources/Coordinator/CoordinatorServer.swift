import Cluster
import Dispatch
import Foundation
import HTTP2
import Index
import Observability
import RPC
import SearchPage
import Services
import Synchronization
import Wire
import WireConversions

/// The client-facing side of a cluster: serves `typeahead.v1.Typeahead` (Suggest, Search; gRPC,
/// JSON and the GET forms, exactly as one node does) by fanning every call out to one replica of
/// each shard and merging their answers into the answer one node holding the whole catalog would
/// give (``SuggestMerge``, ``SearchMerge``, ``Presenter``). Also `typeahead.v1.Cluster` (status)
/// and everything ``RPCServer`` adds.
///
/// ```swift
/// let coordinator = CoordinatorServer(cluster: try ClusterFile.load(path: "cluster.json"), configuration: configuration)
/// let port = try coordinator.start()
/// _ = coordinator.waitUntilReady(timeout: .seconds(5))
/// // … on SIGTERM:
/// coordinator.shutdown()
/// ```
///
/// Behaviour (README "The coordinator"):
/// - **Consistency**: every call reads one generation on every shard (``GenerationChoice``).
/// - **Deadlines**: the client's (`grpc-timeout`, else the cluster file's default) minus the
///   coordinator's margin is sent to the shards and enforced by a timer.
/// - **Partial answers**: a shard with no healthy replica, or one that misses the deadline, is left
///   out and named in `shards`; `require_all_shards` makes the call fail with UNAVAILABLE instead.
/// - **Replicas**: failover on errors, hedging after the shard's recent p95 (``FanOut``).
/// - **Keystrokes**: a newer revision of a session cancels the older call down to the shards
///   (``SessionTable``); a client's RST_STREAM does the same.
///
/// Threads: one group of event loops serves the clients *and* talks to the nodes; a call is
/// received, fanned out, merged and answered on one loop, which owns all the state it touches
/// (``LoopState``). Health checks run on the loops too; the routing view is rebuilt on one serial
/// queue and handed to every loop.
public final class CoordinatorServer: Sendable {
    /// How a coordinator serves.
    public struct Configuration: Sendable {
        /// Where it listens (default 127.0.0.1:7700), its limits, its admin token (for the Cluster
        /// service) and read token (for clients).
        public var server: RPCServer.Configuration = {
            var server = RPCServer.Configuration()
            server.port = 7700
            return server
        }()
        /// The token sent to nodes with every call (their read token, if they require one).
        public var nodeToken: String?

        public init() {}
    }

    public let cluster: ClusterFile
    public let configuration: Configuration
    public let telemetry: ServerTelemetry
    let core: CoordinatorCore
    private let running = Mutex<Running?>(nil)
    /// The view's generation, for readiness (0: none).
    private let serving = Atomic<UInt64>(0)
    private let control = DispatchQueue(label: "typeahead.coordinator.control")
    /// Loop-confined per-loop state, set by `start` (health checks and status read it here; the
    /// query path has its own immutable copy in its ``QueryRouter``).
    private let states = Mutex<[HTTP2LoopBound<LoopState>]>([])
    private let checking = Atomic<Bool>(false)

    private struct Running: Sendable {
        let group: HTTP2EventLoopGroup
        let client: HTTP2Client
        let server: RPCServer
    }

    public init(cluster: ClusterFile, configuration: Configuration, telemetry: ServerTelemetry = ServerTelemetry(label: "coordinator")) {
        self.cluster = cluster
        self.configuration = configuration
        self.telemetry = telemetry
        let coordinatorTelemetry = CoordinatorTelemetry(cluster: cluster, registry: telemetry.registry, logger: telemetry.logger)
        let republish = Republisher()
        var replicas: [Replica] = []
        for (shard, entry) in cluster.shards.enumerated() {
            for endpoint in entry.replicas {
                replicas.append(Replica(id: replicas.count, shard: shard, endpoint: endpoint,
                                        failuresToMarkDown: cluster.settings.failuresToMarkDown) { _ in republish.fire() })
            }
        }
        core = CoordinatorCore(cluster: cluster, replicas: replicas, telemetry: coordinatorTelemetry, nodeToken: configuration.nodeToken)
        let sessions = core.sessions
        telemetry.registry.gauge(name: "typeahead_coordinator_sessions_in_flight",
                                 help: "Keystrokes in flight tracked for supersession, one per search-field session.") {
            Double(sessions.inFlightCount)
        }
        telemetry.registry.gauge(name: "typeahead_coordinator_sessions_finished",
                                 help: "Finished revisions remembered (10 to 20 s) to refuse keystrokes overtaken on the way.") {
            Double(sessions.finishedCount)
        }
        republish.target.withLock { $0 = { [weak self] in self?.republishView() } }
    }

    // MARK: Life cycle

    /// Starts the loops, connects to every replica, starts health checks and serving; returns the
    /// port. Ready (``isReady``) once the first health checks found a generation served by the shards.
    public func start() throws -> Int {
        var server = configuration.server
        let group = try HTTP2EventLoopGroup(threadCount: server.threads, name: "coordinator")
        var clientConfiguration = HTTP2Client.Configuration()
        clientConfiguration.connectTimeout = cluster.settings.connectTimeout
        clientConfiguration.session.maxBodySize = 64 << 20
        // The replicas' connections' events (GOAWAY, a close on an error) in the coordinator's log.
        clientConfiguration.logger = RPCServer.transportLogger(telemetry.logger)
        do {
            clientConfiguration.tls = try cluster.settings.nodeTLS()
        } catch {
            group.shutdown()
            throw error
        }
        let client: HTTP2Client
        do {
            client = try HTTP2Client(configuration: clientConfiguration, eventLoops: group)
        } catch {
            group.shutdown()
            throw error
        }
        let core = self.core
        let loopStates = group.loops.map { loop in HTTP2LoopBound(sending: LoopState(loop: loop, core: core, client: client), eventLoop: loop) }
        states.withLock { $0 = loopStates }
        server.eventLoops = group
        let rpc = RPCServer(configuration: server, methods: methods(QueryRouter(core: core, states: loopStates)), telemetry: telemetry,
                            healthServices: [Typeahead_V1_TypeaheadService.name, Typeahead_V1_ClusterService.name],
                            isReady: { [weak self] in self?.isReady ?? false }, routes: SearchPage.routes)
        let port: Int
        do {
            port = try rpc.start()
        } catch {
            client.shutdown()
            group.shutdown()
            throw error
        }
        running.withLock { $0 = Running(group: group, client: client, server: rpc) }
        checking.store(true, ordering: .relaxed)
        for state in loopStates {
            state.eventLoop.execute { for link in state.value.links { link.connect() } }
        }
        for replica in core.replicas { scheduleHealthCheck(replica, after: .zero) }
        telemetry.logger.info("coordinator serving", ["listen": "\(server.host):\(port)", "cluster": cluster.name,
                                                      "shards": "\(cluster.shards.count)", "replicas": "\(core.replicas.count)"])
        return port
    }

    /// Waits until a generation is served (or the timeout passes); true if ready.
    public func waitUntilReady(timeout: Duration) -> Bool {
        let end = ContinuousClock.now + timeout
        while serving.load(ordering: .relaxed) == 0 {
            guard ContinuousClock.now < end else { return false }
            usleep(5_000)
        }
        return true
    }

    /// Whether a generation is served by the shards (the `/readyz` test).
    public var isReady: Bool { serving.load(ordering: .relaxed) != 0 }

    /// The generation every query reads now, if any.
    public var servingGeneration: UInt64? {
        let value = serving.load(ordering: .relaxed)
        return value == 0 ? nil : value
    }

    /// Health NOT_SERVING, GOAWAY, in-flight calls finish within the grace period; then the node
    /// connections close and the loops stop. Idempotent; not from an event loop.
    public func shutdown() {
        guard let running = running.withLock({ current -> Running? in
            defer { current = nil }
            return current
        }) else { return }
        telemetry.logger.info("coordinator shutting down", [:])
        running.server.shutdown()
        checking.store(false, ordering: .relaxed)
        running.client.shutdown()
        running.group.shutdown()
        telemetry.logger.info("coordinator stopped", [:])
    }

    // MARK: Health and routing

    private func loopState(for replica: Replica) -> HTTP2LoopBound<LoopState>? {
        let all = states.withLock { $0 }
        return all.isEmpty ? nil : all[replica.id % all.count]
    }

    /// Each replica is checked on its home loop (replica id modulo loops), with that loop's link.
    private func scheduleHealthCheck(_ replica: Replica, after delay: Duration) {
        guard let home = loopState(for: replica) else { return }
        let interval = cluster.settings.healthInterval
        home.eventLoop.execute { [weak self] in
            _ = home.eventLoop.scheduleTimer(after: delay) {
                guard let self, self.checking.load(ordering: .relaxed) else { return }
                self.check(replica, on: home.value) {
                    self.scheduleHealthCheck(replica, after: interval)
                }
            }
        }
    }

    /// One health check: the node's Stats (its generations) within the health timeout. Loop thread.
    private func check(_ replica: Replica, on state: LoopState, then done: @escaping () -> Void) {
        let link = state.links[replica.id]
        let options = core.healthCheckOptions
        let logger = core.telemetry.logger
        let loop = state.loop
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
            GRPCClient.call(Typeahead_V1_ShardService.stats, Typeahead_V1_StatsRequest(), on: connection, options: options) { result in
                // On the loop already, except while it shuts down (calls then complete on the
                // caller's thread): queue it, so the link is only ever touched there.
                loop.execute {
                    switch result {
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
            core.telemetry.servingGeneration.set(Double(view.generation ?? 0))
            if view.generation != before.generation {
                telemetry.logger.info("serving generation", ["from": "\(before.generation ?? 0)", "to": "\(view.generation ?? 0)"])
            }
            // Each replica that left or joined the routing view, with the reason it left.
            for replica in core.replicas where before.eligible.count == view.eligible.count {
                let was = before.eligible[replica.shard].contains(replica.id), isNow = view.eligible[replica.shard].contains(replica.id)
                guard was != isNow else { continue }
                let health = replica.health
                let fields = ["shard": core.shardNames[replica.shard], "replica": "\(replica.endpoint)"]
                if isNow {
                    telemetry.logger.info("replica serving", fields.merging(["generation": "\(view.generation ?? 0)"]) { $1 })
                } else {
                    telemetry.logger.warning("replica left the routing view",
                                             fields.merging(["up": "\(health.up)", "last_error": health.lastError,
                                                             "consecutive_failures": "\(health.consecutiveFailures)"]) { $1 })
                }
            }
            let checked = core.replicas.allSatisfy { $0.health.everChecked }
            // While the first checks come in, a shard without a replica yet is not news.
            for (shard, replicas) in view.eligible.enumerated() where replicas.isEmpty && checked {
                telemetry.logger.warning("shard has no healthy replica", ["shard": core.shardNames[shard]])
            }
            for (shard, degraded) in view.degraded.enumerated() where degraded && !(before.degraded.indices.contains(shard) && before.degraded[shard]) {
                telemetry.logger.warning("shard degraded: every replica is slow; routing to them still",
                                         ["shard": core.shardNames[shard], "replicas": "\(view.eligible[shard].count)"])
            }
            for state in states.withLock({ $0 }) {
                state.eventLoop.execute { state.value.adopt(view) }
            }
            // Ready once a generation is served and every shard has a replica for it — or, so that a
            // dead shard does not keep the whole cluster out of service, once every replica has
            // been checked at least once (its shard is then answered as missing).
            let covered = view.eligible.allSatisfy { !$0.isEmpty }
            serving.store(covered || checked ? view.generation ?? 0 : 0, ordering: .relaxed)
        }
    }
    private let lastView = Mutex(ClusterView.empty)

    // MARK: Methods

    /// Answers are written from the shards' bytes in the call's format; a search key's tokens are
    /// forced onto the query (``TypeaheadService/typeaheadMethods``) before the fan-out, so the
    /// shards (called with the node token) get them.
    private func methods(_ router: QueryRouter) -> [RPCMethod] {
        router.typeaheadMethods + [
            .unary(Typeahead_V1_ClusterService.status, access: .admin) { [self] message, context, reply in
                status(refresh: message.refresh, context, reply)
            },
        ]
    }

    /// `typeahead.v1.Cluster/Status`; with `refresh`, every replica is checked first.
    private func status(refresh: Bool, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<Typeahead_V1_ClusterStatusResponse>) {
        let loops = states.withLock { $0 }
        let answer: @Sendable () -> Void = { [self] in
            // Every loop's latency windows, the slowest figures kept.
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
                reply(.success(statusResponse(latency: windows.withLock { $0 })))
            }
        }
        guard refresh else {
            answer()
            return
        }
        let group = DispatchGroup()
        for replica in core.replicas {
            guard let home = loopState(for: replica) else { continue }
            group.enter()
            home.eventLoop.execute { [self] in check(replica, on: home.value) { group.leave() } }
        }
        group.notify(queue: control) { [self] in
            republishView()
            control.async { answer() }   // after the republish queued above
        }
    }

    private static func maximum(_ a: Duration?, _ b: Duration?) -> Duration? {
        switch (a, b) {
        case let (a?, b?): max(a, b)
        default: a ?? b
        }
    }

    private func statusResponse(latency: [(p50: Duration?, p95: Duration?)]) -> Typeahead_V1_ClusterStatusResponse {
        let now = ContinuousClock.now
        let view = lastView.withLock { $0 }
        func micros(_ duration: Duration?) -> UInt32 {
            guard let duration else { return 0 }
            return UInt32(clamping: duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000)
        }
        let shards = cluster.shards.enumerated().map { index, shard in
            let replicas = core.replicas.filter { $0.shard == index }.map { replica in
                let health = replica.health
                let seen = health.lastSeen.map { UInt64(max(0, (now - $0).components.seconds * 1000 + (now - $0).components.attoseconds / 1_000_000_000_000_000)) }
                return Typeahead_V1_ReplicaState(address: replica.endpoint.description, up: view.eligible[index].contains(replica.id),
                                                 currentGeneration: health.current, generations: health.generations,
                                                 entries: health.entries, lastError: health.lastError,
                                                 consecutiveFailures: UInt32(clamping: health.consecutiveFailures),
                                                 lastSeenMs: seen ?? 0, mapBytes: health.mapBytes, usedBytes: health.usedBytes)
            }
            return Typeahead_V1_ShardState(name: shard.name, replicas: replicas, p50Us: micros(latency[index].p50),
                                           p95Us: micros(latency[index].p95))
        }
        return Typeahead_V1_ClusterStatusResponse(name: cluster.name, servingGeneration: view.generation ?? 0, shards: shards,
                                                  ready: view.generation != nil)
    }
}

/// Forwards replicas' change notices to the coordinator once it exists (replicas are made first).
private final class Republisher: Sendable {
    let target = Mutex<(@Sendable () -> Void)?>(nil)
    func fire() { target.withLock { $0 }?() }
}

/// A loop-confined completion handed through a Sendable closure.
private final class DoneBox {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
