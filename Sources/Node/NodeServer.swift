import Dispatch
import Foundation
import Caching
import Index
import Observability
import RPC
import SearchPage
import Synchronization
import Wire
import WireConversions

/// One shard served over HTTP/2: the client-facing `typeahead.v1.Typeahead` service and the
/// internal `typeahead.v1.Shard` service (``Services``), with everything ``RPCServer`` adds (JSON,
/// GET conveniences, health, metrics) — or one shard of each of several **collections** (named
/// catalogs, each its own ``Shard`` in its own directory), every request routed to the
/// collection it names (``CollectionRouter``); a request that names none reads the default one.
///
/// ```swift
/// let node = NodeServer(shard: try Shard(directory: dir), configuration: configuration)   // one collection, "default"
/// let both = NodeServer(collections: [("products", try Shard(directory: a)), ("departments", try Shard(directory: b))],
///                       configuration: configuration)                                   // "products" is the default
/// let port = try node.start()
/// // … later, on SIGTERM:
/// node.shutdown()
/// ```
///
/// Threads: requests arrive on the HTTP/2 event loops. Suggest and health answers are computed
/// right there (they take microseconds and never block); searches go to a bounded read pool and
/// every write to one serial writer queue, so reads never wait for writes (LMDB MVCC) and writes
/// are applied in arrival order. Over-full pools answer RESOURCE_EXHAUSTED instead of queueing
/// without bound.
public final class NodeServer: Sendable {
    public let configuration: NodeConfiguration
    /// The default collection's shard: what a request without a collection reads.
    public let shard: Shard
    public let telemetry: ServerTelemetry
    /// Every collection served, the default first.
    let collections: [NodeCollection]
    private let rpc = Mutex<RPCServer?>(nil)
    private let readPool: BoundedQueue
    private let writer: BoundedQueue
    /// Bounded too, far above what health checks and operators send.
    private let control = BoundedQueue(DispatchQueue(label: "typeahead.node.control", qos: .userInitiated), limit: 256,
                                       refusal: "too many Stats calls queued; retry shortly")
    /// Re-reads the shard's manifest every second, so a generation activated by another process
    /// (`typeahead index` on the same directory) is picked up without a restart.
    private let manifestWatch = Mutex<TimerBox?>(nil)

    /// Where a method's work runs.
    enum Placement {
        /// On the connection's event loop: microsecond work (suggest).
        case inline
        /// On the bounded read pool: searches and other reads that may take milliseconds.
        case readPool
        /// On the single writer queue: every change to the index, in order.
        case writer
        /// On the writer queue too (in order with every other change), with the work itself on
        /// the low-priority ``BackgroundThread``: builds, which take seconds of CPU.
        case build
        /// On a serial queue of its own: Stats, which coordinators' health checks and the admin
        /// tool call. It must not wait for (or be refused with) the searches of a busy node: a
        /// health check refused RESOURCE_EXHAUSTED takes a working replica out of routing, and
        /// `scripts/soak.sh` saw a reindex give up on a replica whose Stats waited behind them.
        case control
    }

    /// A node serving one collection, named `default` (``CollectionName/default``): the shard.
    public convenience init(shard: Shard, configuration: NodeConfiguration, telemetry: ServerTelemetry = ServerTelemetry(label: "node")) {
        self.init(collections: [(CollectionName.default, shard)], configuration: configuration, telemetry: telemetry)
    }

    /// A node serving one shard of each collection; the first is the default collection. Names
    /// must be valid (``CollectionName``) and distinct, and each shard its own directory (LMDB
    /// must never open one environment twice in a process). The answer cache's bytes are shared
    /// evenly among the collections, so the node's bound stays the configured one.
    public init(collections: [(name: String, shard: Shard)], configuration: NodeConfiguration,
                telemetry: ServerTelemetry = ServerTelemetry(label: "node")) {
        precondition(!collections.isEmpty, "a node serves at least one collection")
        precondition(Set(collections.map(\.name)).count == collections.count, "collection names must be distinct")
        precondition(collections.allSatisfy { CollectionName.problem($0.name) == nil }, "invalid collection name")
        self.configuration = configuration
        self.telemetry = telemetry
        readPool = BoundedQueue(DispatchQueue(label: "typeahead.node.reads", qos: .userInitiated, attributes: .concurrent),
                                concurrency: configuration.searchConcurrency, limit: configuration.searchQueueLimit,
                                refusal: "too many searches in flight; retry shortly")
        let writer = BoundedQueue(DispatchQueue(label: "typeahead.node.writer", qos: .userInitiated),
                                  limit: configuration.writeQueueLimit, refusal: "too many writes queued; retry shortly")
        self.writer = writer
        let cacheBytes = configuration.answerCacheBytes / collections.count
        let plans = SuggestPlanCounters(registry: telemetry.registry)
        self.collections = collections.enumerated().map { index, collection in
            NodeCollection(name: collection.name, shard: collection.shard, isDefault: index == 0, answerCacheBytes: cacheBytes,
                           mergePolicy: configuration.mergePolicy.spread(by: configuration.mergeSpread > 0
                                                                             ? Double.random(in: 0..<configuration.mergeSpread) : 0),
                           writer: writer.queue, telemetry: telemetry, plans: plans)
        }
        shard = collections[0].shard
        Self.registerGauges(of: shard, in: telemetry.registry)
        Self.registerSearchQueueGauge(readPool, in: telemetry.registry)
        Self.registerCollectionGauges(self.collections, in: telemetry.registry)
    }

    /// The node's RPCs (each collection's ``NodeServices``, behind the ``CollectionRouter``), as
    /// ``start()`` serves them over HTTP/2; an `InProcessTransport` serves them in the same
    /// process without a socket.
    public var methods: [RPCMethod] {
        CollectionRouter(node: self).methods
    }

    /// The names of the collections served, the default first.
    public var collectionNames: [String] { collections.map(\.name) }

    /// Binds and starts serving; returns the port (useful with port 0).
    /// Ready (`/readyz`, health SERVING) once every collection serves a generation.
    public func start() throws -> Int {
        let collections = self.collections
        let server = RPCServer(configuration: configuration.server, methods: methods,
                               telemetry: telemetry,
                               healthServices: [Typeahead_V1_TypeaheadService.name, Typeahead_V1_ShardService.name],
                               isReady: { collections.allSatisfy { $0.shard.currentGeneration != nil } }, routes: SearchPage.routes)
        let port = try server.start()
        rpc.withLock { $0 = server }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer.schedule(deadline: .now() + 1, repeating: 1.0)
        let idle = configuration.previousGenerationIdle
        timer.setEventHandler { [collections, telemetry] in
            for collection in collections {
                Self.watch(collection, idle: idle, logger: telemetry.logger)
            }
        }
        timer.resume()
        manifestWatch.withLock { $0 = TimerBox(timer: timer) }
        for collection in collections {
            telemetry.logger.info("node serving", collection.logFields.merging([
                "shard": collection.shard.directory, "listen": "\(configuration.server.host):\(port)",
                "generation": "\(collection.shard.currentGeneration ?? 0)"]) { $1 })
        }
        return port
    }

    /// Once a second per collection: lets go of an idle previous generation, and picks up a
    /// generation another process (`typeahead index` on the same directory) activated.
    private static func watch(_ collection: NodeCollection, idle: Duration, logger: Logger) {
        let shard = collection.shard
        if shard.releasePreviousGeneration(idleFor: idle) {
            // Its memory goes back to the kernel with the server's periodic release
            // (`ServingAllocator.startReleasing`).
            logger.info("previous generation let go", collection.logFields.merging(["idle_seconds": "\(idle.components.seconds)"]) { $1 })
        }
        let before = shard.currentGeneration
        do {
            try shard.reload()
        } catch {
            logger.error("cannot reload the shard manifest", collection.logFields.merging(["error": "\(error)"]) { $1 })
        }
        if shard.currentGeneration != before {
            logger.info("generation switched by another process",
                        collection.logFields.merging(["from": "\(before ?? 0)", "to": "\(shard.currentGeneration ?? 0)"]) { $1 })
        }
    }

    /// Stops accepting, tells health watchers and peers (GOAWAY), lets in-flight requests finish
    /// within the grace period, then closes. Idempotent.
    public func shutdown() {
        manifestWatch.withLock { box in
            box?.timer.cancel()
            box = nil
        }
        guard let server = rpc.withLock({ current -> RPCServer? in
            defer { current = nil }
            return current
        }) else { return }
        telemetry.logger.info("node shutting down", ["grace_ms": "\(configuration.server.shutdownGrace.components.seconds * 1000)"])
        server.shutdown()
        writer.queue.sync {}  // the last write has committed
        telemetry.logger.info("node stopped", [:])
    }

    /// Runs `work` right here (on the event loop that received the call: ``Placement/inline``) and
    /// replies with its result. The closure does not escape, so a call pays no allocation for it;
    /// a `stallable` call that fault injection picks (``NodeConfiguration/faultStallShare``) goes
    /// through ``run(_:stallable:_:_:)`` instead, to be answered late.
    func runInline<Response: Sendable>(stallable: Bool = false, _ reply: @escaping RPCMethod.Reply<Response>,
                                       _ work: () throws -> Response) {
        if stallable, configuration.faultStallShare > 0 {
            let result = Result { try work() }
            run(.inline, stallable: true, reply) { try result.get() }
            return
        }
        Self.answer(reply, work)
    }

    /// Replies with `work`'s result, or its error as a status.
    private static func answer<Response>(_ reply: RPCMethod.Reply<Response>, _ work: () throws -> Response) {
        do { reply(.success(try work())) } catch { reply(.failure(GRPCStatus(describing: error))) }
    }

    /// Runs `work` where its method belongs and replies with its result, refusing with
    /// RESOURCE_EXHAUSTED when that place is full. `stallable` calls may be answered late on
    /// purpose (``NodeConfiguration/faultStallShare``).
    func run<Response: Sendable>(_ placement: Placement, stallable: Bool = false, _ reply: @escaping RPCMethod.Reply<Response>,
                       _ work: @escaping @Sendable () throws -> Response) {
        var reply = reply
        if stallable, configuration.faultStallShare > 0, Double.random(in: 0..<1) < configuration.faultStallShare {
            let answer = reply
            let stall = configuration.faultStall
            reply = { result in
                DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(stall.components.seconds * 1_000_000_000
                                                                                       + stall.components.attoseconds / 1_000_000_000))) {
                    answer(result)
                }
            }
        }
        let job: @Sendable () -> Void = { [reply] in Self.answer(reply, work) }
        let queue: BoundedQueue
        switch placement {
        case .inline:
            job()
            return
        case .readPool: queue = readPool
        case .control: queue = control
        case .writer: queue = writer
        case .build: queue = writer
        }
        let background = placement == .build
        let admitted = queue.submit {
            if background { BackgroundThread.shared.run(job) } else { job() }
        }
        if !admitted { reply(.failure(GRPCStatus(.resourceExhausted, queue.refusal))) }
    }
}

/// A dispatch timer owned by the node: created in `start`, cancelled in `shutdown`, both under the
/// node's mutex; the timer's own handler runs on its queue and touches only Sendable state.
private final class TimerBox: @unchecked Sendable {
    let timer: DispatchSourceTimer
    init(timer: DispatchSourceTimer) { self.timer = timer }
}
