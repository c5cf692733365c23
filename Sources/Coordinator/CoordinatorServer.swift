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
/// A cluster serves one or more **collections** (the cluster file's `collections`; its top-level
/// `shards` are the collection `default`): each is routed apart (``ServedCollection``: its own
/// shards, replicas, health checks, pinned generation, sessions), and a call goes to the one its
/// request names, or the default one (``CollectionDispatch``). Each collection's answers equal
/// one node's holding that collection's whole catalog.
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
/// (``LoopState``). Health checks run on the loops too; each collection's routing view is rebuilt
/// on its serial queue and handed to every loop.
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
    /// Every collection, in cluster-file order.
    let collections: [ServedCollection]
    /// The default collection's core.
    var core: CoordinatorCore { collections[cluster.defaultIndex].core }
    private let running = Mutex<Running?>(nil)
    private let control = DispatchQueue(label: "typeahead.coordinator.control")

    private struct Running: Sendable {
        let group: HTTP2EventLoopGroup
        let client: HTTP2Client
        let server: RPCServer
    }

    public init(cluster: ClusterFile, configuration: Configuration, telemetry: ServerTelemetry = ServerTelemetry(label: "coordinator")) {
        self.cluster = cluster
        self.configuration = configuration
        self.telemetry = telemetry
        let defaultIndex = cluster.defaultIndex
        collections = cluster.collections.enumerated().map { index, collection in
            ServedCollection(collection: collection, isDefault: index == defaultIndex, settings: cluster.settings,
                             registry: telemetry.registry, logger: telemetry.logger, nodeToken: configuration.nodeToken)
        }
        let sessions = collections.map(\.core.sessions)
        telemetry.registry.gauge(name: "typeahead_coordinator_sessions_in_flight",
                                 help: "Keystrokes in flight tracked for supersession, one per search-field session.") {
            Double(sessions.map(\.inFlightCount).reduce(0, +))
        }
        telemetry.registry.gauge(name: "typeahead_coordinator_sessions_finished",
                                 help: "Finished revisions remembered (10 to 20 s) to refuse keystrokes overtaken on the way.") {
            Double(sessions.map(\.finishedCount).reduce(0, +))
        }
    }

    // MARK: Life cycle

    /// Starts the loops, connects to every replica, starts health checks and serving; returns the
    /// port. Ready (``isReady``) once the first health checks found a generation served by every
    /// collection's shards.
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
        server.eventLoops = group
        let routers = collections.map { $0.start(loops: group.loops, client: client) }
        let dispatch = CollectionDispatch(routers: routers, defaultIndex: cluster.defaultIndex, scopes: cluster.scopes) { [collections] in
            collections.map(\.entries)
        }
        let rpc = RPCServer(configuration: server, methods: methods(dispatch), telemetry: telemetry,
                            healthServices: [Typeahead_V1_TypeaheadService.name, Typeahead_V1_ClusterService.name],
                            isReady: { [weak self] in self?.isReady ?? false }, routes: SearchPage.routes)
        let port: Int
        do {
            port = try rpc.start()
        } catch {
            for collection in collections { collection.stop() }
            client.shutdown()
            group.shutdown()
            throw error
        }
        running.withLock { $0 = Running(group: group, client: client, server: rpc) }
        for collection in collections {
            telemetry.logger.info("coordinator serving", collection.logFields.merging([
                "listen": "\(server.host):\(port)", "cluster": cluster.name, "shards": "\(collection.core.shardNames.count)",
                "replicas": "\(collection.core.replicas.count)"]) { $1 })
        }
        return port
    }

    /// Waits until every collection serves a generation (or the timeout passes); true if ready.
    public func waitUntilReady(timeout: Duration) -> Bool {
        let end = ContinuousClock.now + timeout
        while !isReady {
            guard ContinuousClock.now < end else { return false }
            usleep(5_000)
        }
        return true
    }

    /// Whether every collection serves a generation (the `/readyz` test).
    public var isReady: Bool { collections.allSatisfy { $0.servingGeneration != nil } }

    /// The generation every query of the default collection reads now, if any.
    public var servingGeneration: UInt64? { collections[cluster.defaultIndex].servingGeneration }

    /// The generation every query of `collection` reads now, if any (nil too for a collection the
    /// cluster does not have).
    public func servingGeneration(of collection: String) -> UInt64? {
        collections.first { $0.name == collection }?.servingGeneration
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
        for collection in collections { collection.stop() }
        running.client.shutdown()
        running.group.shutdown()
        telemetry.logger.info("coordinator stopped", [:])
    }

    // MARK: Methods

    /// Answers are written from the shards' bytes in the call's format; a search key's tokens are
    /// forced onto the query (``TypeaheadService/typeaheadMethods``) before the fan-out, so the
    /// shards (called with the node token) get them.
    private func methods(_ dispatch: CollectionDispatch) -> [RPCMethod] {
        dispatch.typeaheadMethods + [
            .unary(Typeahead_V1_ClusterService.status, access: .admin) { [self] message, context, reply in
                status(refresh: message.refresh, context, reply)
            },
        ]
    }

    /// `typeahead.v1.Cluster/Status`: every collection's state (`collections`), and the default
    /// collection's in the fields that predate collections; with `refresh`, every replica is
    /// checked first.
    private func status(refresh: Bool, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<Typeahead_V1_ClusterStatusResponse>) {
        let collections = self.collections
        let gathered = Mutex<[Typeahead_V1_CollectionState?]>(Array(repeating: nil, count: collections.count))
        let group = DispatchGroup()
        for (index, collection) in collections.enumerated() {
            group.enter()
            let answer: @Sendable () -> Void = {
                collection.status { state in
                    gathered.withLock { $0[index] = state }
                    group.leave()
                }
            }
            if refresh { collection.refresh(then: answer) } else { answer() }
        }
        group.notify(queue: control) { [cluster] in
            let states = gathered.withLock { $0 }.compactMap { $0 }
            let main = states[cluster.defaultIndex]
            reply(.success(Typeahead_V1_ClusterStatusResponse(name: cluster.name, servingGeneration: main.servingGeneration,
                                                              shards: main.shards, ready: states.allSatisfy(\.ready),
                                                              collections: states, defaultCollection: cluster.defaultCollection)))
        }
    }
}
