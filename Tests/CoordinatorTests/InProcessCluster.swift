import Catalog
import Cluster
@testable import Coordinator
import Dispatch
import Foundation
import HTTP2
import Index
import Node
import Observability
import RPC
import Synchronization
import TestSupport
import Wire
import WireConversions

/// A cluster in the test process without a socket: every shard a real `NodeServer`'s methods over
/// its real shard, reached through an `InProcessTransport` (``InProcessReplica``, one per
/// replica); the coordinator's real query path (``QueryRouter``, ``FanOut``, merging, presenting)
/// on one event loop, timed by a ``ManualClock`` that moves only when a test says. A node over the
/// whole catalog answers the same requests for comparison.
///
/// Threads: the coordinator's state lives on the loop; tests reach it with ``onLoop(_:)``, which
/// runs a closure there and waits for it.
final class InProcessCluster {
    /// What lives on the loop.
    final class Parts {
        let clock: ManualClock
        let state: LoopState
        /// By shard, then replica.
        let replicas: [[InProcessReplica]]
        init(clock: ManualClock, state: LoopState, replicas: [[InProcessReplica]]) {
            self.clock = clock
            self.state = state
            self.replicas = replicas
        }
    }

    /// A call's answer, once it has come.
    final class Pending: Sendable {
        private let box = Mutex<Result<[UInt8], GRPCStatus>?>(nil)
        func set(_ result: Result<[UInt8], GRPCStatus>) {
            box.withLock { current in
                precondition(current == nil, "a call answered twice")
                current = result
            }
        }
        var result: Result<[UInt8], GRPCStatus>? { box.withLock { $0 } }
    }

    private let directory = TemporaryDirectory("typeahead-in-process")
    private let group: HTTP2EventLoopGroup
    var loop: HTTP2EventLoop { group.loops[0] }
    let core: CoordinatorCore
    let router: QueryRouter
    private let parts: HTTP2LoopBound<Parts>
    /// One node per shard, and one over the whole catalog.
    let shardTransports: [InProcessTransport]
    let whole: InProcessTransport
    let shardNames: [String]

    init(entries: [CatalogEntry], shards shardCount: Int, replicas replicaCount: Int, settings: ClusterFile.Settings = ClusterFile.Settings(),
         parameters: IndexParameters = IndexParameters()) throws {
        group = try HTTP2EventLoopGroup(threadCount: 1, name: "in-process")
        var split = [[CatalogEntry]](repeating: [], count: shardCount)
        for entry in entries { split[ShardAssignment.shard(of: entry.id, shardCount: shardCount)].append(entry) }
        let root = directory.path
        func node(_ name: String, _ entries: [CatalogEntry]) throws -> NodeServer {
            let shard = try Shard(directory: root + "/" + name)
            try shard.build(from: entries, parameters: parameters, number: 1)
            return NodeServer(shard: shard, configuration: NodeConfiguration(), telemetry: ServerTelemetry(label: "node", sink: MemorySink()))
        }
        let names = (0..<shardCount).map { "shard-\($0)" }
        shardNames = names
        let transports = try (0..<shardCount).map { InProcessTransport(methods: try node(names[$0], split[$0]).methods) }
        shardTransports = transports
        whole = InProcessTransport(methods: try node("whole", entries).methods)

        let layout = names.map { name in
            ClusterFile.Shard(name: name, replicas: (0..<replicaCount).map { Endpoint(host: "in-process.\(name)", port: 7800 + $0) })
        }
        let cluster = ClusterFile(name: "in-process", shards: layout, settings: settings)
        var replicas: [Replica] = []
        for (shard, entry) in cluster.shards.enumerated() {
            for endpoint in entry.replicas {
                replicas.append(Replica(id: replicas.count, shard: shard, endpoint: endpoint,
                                        failuresToMarkDown: settings.failuresToMarkDown) { _ in })
            }
        }
        let telemetry = ServerTelemetry(label: "coordinator", sink: MemorySink())
        let core = CoordinatorCore(cluster: cluster, replicas: replicas,
                                   telemetry: CoordinatorTelemetry(cluster: cluster, registry: telemetry.registry, logger: telemetry.logger),
                                   nodeToken: nil)
        self.core = core
        let loop = group.loops[0]
        // The loop's parts are made on the loop, which owns them from then on.
        let (parts, state) = Self.run(on: loop) {
            let byShard = (0..<shardCount).map { shard in (0..<replicaCount).map { _ in InProcessReplica(transport: transports[shard]) } }
            let clock = ManualClock()
            let state = LoopState(loop: loop, core: core, inProcess: byShard.flatMap { $0 }, clock: .manual(clock))
            return (HTTP2LoopBound(Parts(clock: clock, state: state, replicas: byShard), eventLoop: loop), HTTP2LoopBound(state, eventLoop: loop))
        }
        self.parts = parts
        router = QueryRouter(core: core, states: [state])

        // Health: every replica's Stats, as the coordinator's checks read them.
        for replica in replicas {
            let stats = try Self.wait { reply in
                self.shardTransports[replica.shard].call(Typeahead_V1_ShardService.stats, Typeahead_V1_StatsRequest(), on: loop, reply: reply)
            }
            replica.checked(stats, at: .now)
        }
        let view = ClusterView.build(from: replicas, shardCount: shardCount)
        onLoop { $0.state.adopt(view) }
    }

    deinit {
        group.shutdown()
    }

    /// Runs `body` on the loop with the loop's parts, and waits for it.
    @discardableResult
    func onLoop<T: Sendable>(_ body: @escaping @Sendable (Parts) -> T) -> T {
        let parts = self.parts
        return Self.run(on: loop) { body(parts.value) }
    }

    /// Runs `body` on `loop` and waits for it.
    static func run<T: Sendable>(on loop: HTTP2EventLoop, _ body: @escaping @Sendable () -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }

    /// Moves the clock forward (firing what is due on the way), on the loop.
    func advance(by duration: Duration) {
        onLoop { $0.clock.advance(by: duration) }
    }

    /// Sends a Suggest to the coordinator, with the deadline `timeout` from the clock's now.
    func suggest(_ message: Typeahead_V1_SuggestRequest, timeout: Duration = .seconds(5)) -> Pending {
        call(timeout: timeout) { router, context, reply in router.suggest(message, context, reply) }
    }

    /// Sends a Search to the coordinator.
    func search(_ message: Typeahead_V1_SearchRequest, timeout: Duration = .seconds(5)) -> Pending {
        call(timeout: timeout) { router, context, reply in router.search(message, context, reply) }
    }

    private func call(timeout: Duration,
                      _ start: @escaping @Sendable (QueryRouter, CallContext, @escaping RPCMethod.Reply<[UInt8]>) -> Void) -> Pending {
        let pending = Pending()
        let router = self.router
        onLoop { parts in
            let context = CallContext(requestID: "in-process", deadline: parts.clock.now + timeout, responder: .inProcess(on: parts.state.loop))
            start(router, context) { pending.set($0) }
        }
        return pending
    }

    /// Delivers the answers due now until `pending` has its answer (a search's shards answer from
    /// their read pools, so their answers reach the loop a little later in real time).
    func settle(_ pending: Pending, within limit: Duration = .seconds(10)) -> Result<[UInt8], GRPCStatus>? {
        let end = ContinuousClock.now + limit
        while pending.result == nil, ContinuousClock.now < end {
            advance(by: .zero)
            if pending.result == nil { usleep(200) }
        }
        return pending.result
    }

    /// The whole-catalog node's answer to the same Suggest.
    func wholeSuggest(_ message: Typeahead_V1_SuggestRequest) throws -> Typeahead_V1_SuggestResponse {
        try Self.wait { whole.call(Typeahead_V1_TypeaheadService.suggest, message, on: loop, reply: $0) }
    }

    /// Shard `shard`'s own node's answer to the same Suggest (what a cluster of that shard alone says).
    func shardSuggest(_ shard: Int, _ message: Typeahead_V1_SuggestRequest) throws -> Typeahead_V1_SuggestResponse {
        try Self.wait { shardTransports[shard].call(Typeahead_V1_TypeaheadService.suggest, message, on: loop, reply: $0) }
    }

    func wholeSearch(_ message: Typeahead_V1_SearchRequest) throws -> Typeahead_V1_SearchResponse {
        try Self.wait { whole.call(Typeahead_V1_TypeaheadService.search, message, on: loop, reply: $0) }
    }

    /// Waits for a call made with a reply closure.
    static func wait<T: Sendable>(_ start: (@escaping RPCMethod.Reply<T>) -> Void) throws -> T {
        let result = Mutex<Result<T, GRPCStatus>?>(nil)
        let done = DispatchSemaphore(value: 0)
        start { answer in
            result.withLock { $0 = answer }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
