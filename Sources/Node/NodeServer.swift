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
/// GET conveniences, health, metrics).
///
/// ```swift
/// let node = NodeServer(shard: try Shard(directory: dir), configuration: configuration)
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
    public let shard: Shard
    public let telemetry: ServerTelemetry
    /// Suggest answers, encoded from the map and cached.
    let answers: SuggestAnswers
    private let rpc = Mutex<RPCServer?>(nil)
    private let readPool: BoundedQueue
    private let writer: BoundedQueue
    /// Folds the delta into the base once it grows (after writes, on the writer queue).
    let merges: MergeScheduler
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

    public init(shard: Shard, configuration: NodeConfiguration, telemetry: ServerTelemetry = ServerTelemetry(label: "node")) {
        self.shard = shard
        self.configuration = configuration
        self.telemetry = telemetry
        answers = SuggestAnswers(cacheBytes: configuration.answerCacheBytes, registry: telemetry.registry)
        readPool = BoundedQueue(DispatchQueue(label: "typeahead.node.reads", qos: .userInitiated, attributes: .concurrent),
                                limit: configuration.searchConcurrency, refusal: "too many searches in flight; retry shortly")
        writer = BoundedQueue(DispatchQueue(label: "typeahead.node.writer", qos: .userInitiated),
                              limit: configuration.writeQueueLimit, refusal: "too many writes queued; retry shortly")
        merges = MergeScheduler(shard: shard, policy: configuration.mergePolicy, writer: writer.queue, telemetry: telemetry)
        Self.registerGauges(of: shard, in: telemetry.registry)
    }

    /// The shard's own series: read from the shard at scrape time.
    private static func registerGauges(of shard: Shard, in registry: MetricsRegistry) {
        registry.gauge(name: "typeahead_index_generation", help: "The generation serving queries.") {
            Double(shard.currentGeneration ?? 0)
        }
        registry.gauge(name: "typeahead_index_entries", help: "Live entries in the serving generation.") {
            Double((try? shard.entryCount()) ?? 0)
        }
        registry.gauge(name: "typeahead_lmdb_map_bytes", help: "LMDB map size of the serving generation.") {
            Double((try? shard.storageStatistics().mapSize) ?? 0)
        }
        registry.gauge(name: "typeahead_lmdb_used_bytes", help: "Bytes of the LMDB map in use by the serving generation.") {
            Double((try? shard.storageStatistics().usedBytes) ?? 0)
        }
        // The serving generation's query caches (see `Generation`), one series per cache.
        func caches(_ value: @escaping @Sendable ((name: String, statistics: StripedCacheStatistics, countsBytes: Bool)) -> Double?)
            -> @Sendable () -> [CallbackSample] {
            { shard.cacheStatistics().compactMap { cache in value(cache).map { CallbackSample(labelValues: [cache.name], value: $0) } } }
        }
        registry.gauge(name: "typeahead_index_cache_entries", help: "Entries each query cache of the serving generation keeps.",
                       labelNames: ["cache"], series: caches { Double($0.statistics.entries) })
        registry.gauge(name: "typeahead_index_cache_bytes", help: "Bytes each query cache of the serving generation holds (caches counted in bytes).",
                       labelNames: ["cache"], series: caches { $0.countsBytes ? Double($0.statistics.cost) : nil })
        registry.counter(name: "typeahead_index_cache_hits_total", help: "Look-ups each query cache of the serving generation answered.",
                         labelNames: ["cache"], series: caches { Double($0.statistics.hits) })
        registry.counter(name: "typeahead_index_cache_misses_total", help: "Look-ups each query cache of the serving generation missed.",
                         labelNames: ["cache"], series: caches { Double($0.statistics.misses) })
        registry.counter(name: "typeahead_index_cache_retired_total",
                         help: "Entries each query cache of the serving generation dropped because a write made them unreachable.",
                         labelNames: ["cache"], series: caches { Double($0.statistics.retired) })
    }

    /// The node's RPCs (``NodeServices``), as ``start()`` serves them over HTTP/2; an
    /// `InProcessTransport` serves them in the same process without a socket.
    public var methods: [RPCMethod] {
        NodeServices(node: self, name: URL(fileURLWithPath: shard.directory).lastPathComponent).methods
    }

    /// Binds and starts serving; returns the port (useful with port 0).
    public func start() throws -> Int {
        let shard = self.shard
        let server = RPCServer(configuration: configuration.server, methods: methods,
                               telemetry: telemetry,
                               healthServices: [Typeahead_V1_TypeaheadService.name, Typeahead_V1_ShardService.name],
                               isReady: { shard.currentGeneration != nil }, routes: SearchPage.routes)
        let port = try server.start()
        rpc.withLock { $0 = server }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer.schedule(deadline: .now() + 1, repeating: 1.0)
        let idle = configuration.previousGenerationIdle
        timer.setEventHandler { [shard, telemetry] in
            if shard.releasePreviousGeneration(idleFor: idle) {
                // Its memory goes back to the kernel with the server's periodic release
                // (`ServingAllocator.startReleasing`).
                telemetry.logger.info("previous generation let go", ["idle_seconds": "\(idle.components.seconds)"])
            }
            let before = shard.currentGeneration
            do {
                try shard.reload()
            } catch {
                telemetry.logger.error("cannot reload the shard manifest", ["error": "\(error)"])
            }
            if shard.currentGeneration != before {
                telemetry.logger.info("generation switched by another process",
                                      ["from": "\(before ?? 0)", "to": "\(shard.currentGeneration ?? 0)"])
            }
        }
        timer.resume()
        manifestWatch.withLock { $0 = TimerBox(timer: timer) }
        telemetry.logger.info("node serving", ["shard": shard.directory, "listen": "\(configuration.server.host):\(port)",
                                               "generation": "\(shard.currentGeneration ?? 0)"])
        return port
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
        let job: @Sendable () -> Void = { [reply] in
            do { reply(.success(try work())) } catch { reply(.failure(GRPCStatus(describing: error))) }
        }
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
