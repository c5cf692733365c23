import HTTP2
import Index
import Observability
import Synchronization
import Wire

/// What a node tells its operator: one log line per event and Prometheus metrics.
///
/// Metrics (scraped from `/metrics`):
/// - `typeahead_requests_total{method,code}`: finished calls by gRPC status code name
/// - `typeahead_request_duration_seconds{method}`: latency histogram (50 µs … 10 s)
/// - `typeahead_requests_in_flight{method}`
/// - `typeahead_index_generation`, `typeahead_index_entries`, `typeahead_lmdb_map_bytes`,
///   `typeahead_lmdb_used_bytes`: read from the shard at scrape time
/// - `typeahead_connections_open`, `typeahead_streams_active`, `typeahead_output_pending_bytes`,
///   `typeahead_connections_reading_paused`: read from the HTTP/2 server at scrape time
///
/// Logs: every failed call at `warning` (with its request id), every call at `debug`, lifecycle
/// events at `info`; one line each, logfmt or JSON, on standard error.
public final class NodeTelemetry: Sendable {
    public let logger: Logger
    public let registry: MetricsRegistry
    private let requests: Counter
    private let latency: Histogram
    private let inFlight: Gauge
    private let serverStatistics = StatisticsSource()

    public init(json: Bool = false, sink: (any LogSink)? = nil, registry: MetricsRegistry = MetricsRegistry()) {
        logger = Logger(label: "node", sink: sink ?? StandardErrorSink(format: json ? .jsonLines : .logfmt))
        self.registry = registry
        requests = registry.counter(name: "typeahead_requests_total", help: "Finished calls by method and gRPC status code.",
                                    labelNames: ["method", "code"])
        latency = registry.histogram(name: "typeahead_request_duration_seconds", help: "Call latency from arrival to answer.",
                                     labelNames: ["method"])
        inFlight = registry.gauge(name: "typeahead_requests_in_flight", help: "Calls being answered.", labelNames: ["method"])
        registry.gauge(name: "typeahead_connections_open", help: "Open HTTP/2 connections.") { [serverStatistics] in
            Double(serverStatistics.read()?.openConnections ?? 0)
        }
        registry.gauge(name: "typeahead_streams_active", help: "HTTP/2 streams being answered.") { [serverStatistics] in
            Double(serverStatistics.read()?.activeRequests ?? 0)
        }
        registry.gauge(name: "typeahead_output_pending_bytes", help: "Response bytes waiting for slow readers.") { [serverStatistics] in
            Double(serverStatistics.read()?.pendingOutputBytes ?? 0)
        }
        registry.gauge(name: "typeahead_connections_reading_paused", help: "Connections paused because their client stopped reading.") { [serverStatistics] in
            Double(serverStatistics.read()?.connectionsWithReadingPaused ?? 0)
        }
    }

    /// Where connection figures come from (set by the server once it runs).
    var statisticsSource: (@Sendable () -> HTTP2Server.Statistics?)? {
        get { serverStatistics.source.withLock { $0 } }
        set { serverStatistics.source.withLock { $0 = newValue } }
    }

    func registerNode(shard: Shard) {
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
    }

    func started(method: String) {
        inFlight.labels(["method": method]).increment()
    }

    func finished(method: String, status: GRPCStatus, since started: ContinuousClock.Instant, requestID: String) {
        let elapsed = ContinuousClock.now - started
        inFlight.labels(["method": method]).decrement()
        requests.labels(["method": method, "code": Self.codeName(status.code)]).increment()
        latency.labels(["method": method]).observe(elapsed)
        if status.code != .ok {
            logger.warning("call failed", ["method": method, "code": Self.codeName(status.code), "message": status.message,
                                           "request_id": requestID, "duration_us": "\(Self.microseconds(elapsed))"])
        } else {
            logger.debug("call", ["method": method, "request_id": requestID, "duration_us": "\(Self.microseconds(elapsed))"])
        }
    }

    func rejected(_ status: GRPCStatus) {
        requests.labels(["method": "(rejected)", "code": Self.codeName(status.code)]).increment()
        logger.warning("request rejected", ["code": Self.codeName(status.code), "message": status.message])
    }

    public func exposition() -> String { registry.exposition() }

    static func codeName(_ code: GRPCStatus.Code) -> String {
        switch code {
        case .ok: "OK"
        case .cancelled: "CANCELLED"
        case .unknown: "UNKNOWN"
        case .invalidArgument: "INVALID_ARGUMENT"
        case .deadlineExceeded: "DEADLINE_EXCEEDED"
        case .notFound: "NOT_FOUND"
        case .alreadyExists: "ALREADY_EXISTS"
        case .permissionDenied: "PERMISSION_DENIED"
        case .resourceExhausted: "RESOURCE_EXHAUSTED"
        case .failedPrecondition: "FAILED_PRECONDITION"
        case .aborted: "ABORTED"
        case .outOfRange: "OUT_OF_RANGE"
        case .unimplemented: "UNIMPLEMENTED"
        case .internal: "INTERNAL"
        case .unavailable: "UNAVAILABLE"
        case .dataLoss: "DATA_LOSS"
        case .unauthenticated: "UNAUTHENTICATED"
        }
    }

    static func microseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
    }
}

/// Where the HTTP/2 server's figures come from once it runs (a class so gauge callbacks can share it).
private final class StatisticsSource: Sendable {
    let source = Mutex<(@Sendable () -> HTTP2Server.Statistics?)?>(nil)
    func read() -> HTTP2Server.Statistics? { source.withLock { $0 }?() }
}
