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
/// replica); the coordinator's real query path (``CollectionDispatch``, ``QueryRouter``,
/// ``FanOut``, merging, presenting) on one event loop, timed by a ``ManualClock`` that moves only
/// when a test says. A node over the whole catalog answers the same requests for comparison.
///
/// With several collections, node `i` serves shard `i` of every collection that has one (one
/// process, one shard per collection, as `typeahead node --collection` does), each collection
/// is routed by its own core and loop state, and each has its own whole-catalog node.
///
/// Threads: the coordinator's state lives on the loop; tests reach it with ``onLoop(_:)``, which
/// runs a closure there and waits for it.
final class InProcessCluster {
    /// What lives on the loop.
    final class Parts {
        let clock: ManualClock
        /// The default collection's loop state and replicas (by shard, then replica).
        var state: LoopState { states[defaultIndex] }
        var replicas: [[InProcessReplica]] { replicasByCollection[defaultIndex] }
        /// By collection.
        let states: [LoopState]
        let replicasByCollection: [[[InProcessReplica]]]
        let defaultIndex: Int
        init(clock: ManualClock, states: [LoopState], replicas: [[[InProcessReplica]]], defaultIndex: Int) {
            self.clock = clock
            self.states = states
            replicasByCollection = replicas
            self.defaultIndex = defaultIndex
        }
    }

    /// One collection of the cluster: its name, catalog and number of shards.
    struct Collection {
        var name: String
        var entries: [CatalogEntry]
        var shards: Int
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
    /// The default collection's core and query path.
    var core: CoordinatorCore { cores[defaultIndex] }
    var router: QueryRouter { dispatch.defaultRouter }
    /// By collection; and what the coordinator's Typeahead service is: the dispatch by collection.
    let cores: [CoordinatorCore]
    let dispatch: CollectionDispatch
    let defaultIndex: Int
    private let parts: HTTP2LoopBound<Parts>
    /// One node per shard (serving that shard of every collection), and per collection one node
    /// over its whole catalog.
    let shardTransports: [InProcessTransport]
    var whole: InProcessTransport { wholes[defaultIndex] }
    let wholes: [InProcessTransport]
    /// Per collection, the whole-catalog node's shard (for facts the client answer does not carry).
    let wholeShards: [Shard]
    /// The default collection's shard names.
    var shardNames: [String] { core.shardNames }

    /// One collection, `default`.
    convenience init(entries: [CatalogEntry], shards shardCount: Int, replicas replicaCount: Int,
                     settings: ClusterFile.Settings = ClusterFile.Settings(), parameters: IndexParameters = IndexParameters()) throws {
        try self.init(collections: [Collection(name: "default", entries: entries, shards: shardCount)], replicas: replicaCount,
                      settings: settings, parameters: parameters)
    }

    /// Several collections; the first is the default. `scopes` name some of them.
    init(collections: [Collection], replicas replicaCount: Int, settings: ClusterFile.Settings = ClusterFile.Settings(),
         parameters: IndexParameters = IndexParameters(), scopes: [ClusterFile.Scope] = []) throws {
        group = try HTTP2EventLoopGroup(threadCount: 1, name: "in-process")
        defaultIndex = 0
        let root = directory.path
        func shard(_ name: String, _ entries: [CatalogEntry]) throws -> Shard {
            let shard = try Shard(directory: root + "/" + name)
            try shard.build(from: entries, parameters: parameters, number: 1)
            return shard
        }
        func node(_ collections: [(name: String, shard: Shard)]) -> InProcessTransport {
            InProcessTransport(methods: NodeServer(collections: collections, configuration: NodeConfiguration(),
                                                   telemetry: ServerTelemetry(label: "node", sink: MemorySink())).methods)
        }
        let nodeCount = collections.map(\.shards).max() ?? 0
        var served = [[(name: String, shard: Shard)]](repeating: [], count: nodeCount)
        for collection in collections {
            var split = [[CatalogEntry]](repeating: [], count: collection.shards)
            for entry in collection.entries { split[ShardAssignment.shard(of: entry.id, shardCount: collection.shards)].append(entry) }
            for index in 0..<collection.shards {
                served[index].append((collection.name, try shard("\(collection.name)/shard-\(index)", split[index])))
            }
        }
        let transports = served.map(node)
        shardTransports = transports
        let wholeShards = try collections.map { try shard("\($0.name)/whole", $0.entries) }
        self.wholeShards = wholeShards
        wholes = zip(collections, wholeShards).map { node([($0.name, $1)]) }

        let cluster = ClusterFile(name: "in-process", collections: collections.map { collection in
            ClusterFile.Collection(name: collection.name, shards: (0..<collection.shards).map { index in
                ClusterFile.Shard(name: "shard-\(index)", replicas: (0..<replicaCount).map { Endpoint(host: "in-process.shard-\(index)", port: 7800 + $0) })
            }, filterableAttributes: parameters.filterableAttributes)
        }, settings: settings)
        let telemetry = ServerTelemetry(label: "coordinator", sink: MemorySink())
        let cores = cluster.collections.enumerated().map { index, collection in
            var replicas: [Replica] = []
            for (shard, entry) in collection.shards.enumerated() {
                for endpoint in entry.replicas {
                    replicas.append(Replica(id: replicas.count, shard: shard, endpoint: endpoint,
                                            failuresToMarkDown: settings.failuresToMarkDown) { _ in })
                }
            }
            return CoordinatorCore(collection: collection, settings: settings, replicas: replicas,
                                   telemetry: CoordinatorTelemetry(collection: collection, isDefault: index == 0, registry: telemetry.registry,
                                                                   logger: telemetry.logger),
                                   nodeToken: nil)
        }
        self.cores = cores
        let loop = group.loops[0]
        // The loop's parts are made on the loop, which owns them from then on.
        let (parts, states) = Self.run(on: loop) {
            let clock = ManualClock()
            let byCollection = cores.map { core in
                (0..<core.shardNames.count).map { shard in (0..<replicaCount).map { _ in InProcessReplica(transport: transports[shard]) } }
            }
            let states = zip(cores, byCollection).map { core, byShard in
                LoopState(loop: loop, core: core, inProcess: byShard.flatMap { $0 }, clock: .manual(clock))
            }
            return (HTTP2LoopBound(Parts(clock: clock, states: states, replicas: byCollection, defaultIndex: 0), eventLoop: loop),
                    states.map { HTTP2LoopBound($0, eventLoop: loop) })
        }
        self.parts = parts
        dispatch = CollectionDispatch(routers: zip(cores, states).map { QueryRouter(core: $0, states: [$1]) }, defaultIndex: 0,
                                      scopes: scopes) {
            cores.map { $0.entries(serving: 1) }
        }

        // Health: every replica's Stats of its collection, as the coordinator's checks read them.
        for (index, core) in cores.enumerated() {
            for replica in core.replicas {
                let stats = try Self.wait { reply in
                    transports[replica.shard].call(Typeahead_V1_ShardService.stats, Typeahead_V1_StatsRequest(collection: core.collection),
                                                   on: loop, reply: reply)
                }
                precondition(ServedCollection.answers(stats, for: core.collection))
                replica.checked(stats, at: .now)
            }
            let view = ClusterView.build(from: core.replicas, shardCount: core.shardNames.count)
            onLoop { $0.states[index].adopt(view) }
        }
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

    /// Sends a Suggest to the coordinator (routed by its collection), with the deadline `timeout`
    /// from the clock's now.
    func suggest(_ message: Typeahead_V1_SuggestRequest, timeout: Duration = .seconds(5)) -> Pending {
        call(timeout: timeout) { dispatch, context, reply in dispatch.suggest(message, context, reply) }
    }

    /// Sends a Search to the coordinator.
    func search(_ message: Typeahead_V1_SearchRequest, timeout: Duration = .seconds(5)) -> Pending {
        call(timeout: timeout) { dispatch, context, reply in dispatch.search(message, context, reply) }
    }

    private func call(timeout: Duration,
                      _ start: @escaping @Sendable (CollectionDispatch, CallContext, @escaping RPCMethod.Reply<[UInt8]>) -> Void) -> Pending {
        let pending = Pending()
        let dispatch = self.dispatch
        onLoop { parts in
            let context = CallContext(requestID: "in-process", deadline: parts.clock.now + timeout, responder: .inProcess(on: parts.state.loop))
            start(dispatch, context) { pending.set($0) }
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

    /// The whole-catalog node's answer to the same Suggest (of collection `index`'s catalog; the
    /// message's own collection is not sent, the node holds that catalog alone).
    func wholeSuggest(_ message: Typeahead_V1_SuggestRequest, collection index: Int = 0) throws -> Typeahead_V1_SuggestResponse {
        var message = message
        message.collection = ""
        return try Self.wait { [message] in wholes[index].call(Typeahead_V1_TypeaheadService.suggest, message, on: loop, reply: $0) }
    }

    /// Shard `shard`'s own node's answer to the same Suggest (what a cluster of that shard alone says).
    func shardSuggest(_ shard: Int, _ message: Typeahead_V1_SuggestRequest) throws -> Typeahead_V1_SuggestResponse {
        try Self.wait { shardTransports[shard].call(Typeahead_V1_TypeaheadService.suggest, message, on: loop, reply: $0) }
    }

    func wholeSearch(_ message: Typeahead_V1_SearchRequest, collection index: Int = 0) throws -> Typeahead_V1_SearchResponse {
        var message = message
        message.collection = ""
        return try Self.wait { [message] in wholes[index].call(Typeahead_V1_TypeaheadService.search, message, on: loop, reply: $0) }
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
