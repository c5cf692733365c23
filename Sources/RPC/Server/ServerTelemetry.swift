import HTTP2
import Observability
import Synchronization
import Wire

/// What a server tells its operator: one log line per event and Prometheus metrics. The node and
/// the coordinator register their own series on ``registry`` besides these.
///
/// Metrics (scraped from `/metrics`):
/// - `typeahead_requests_total{method,code}`: finished calls by gRPC status code name
/// - `typeahead_request_duration_seconds{method}`: latency histogram (50 µs … 10 s)
/// - `typeahead_requests_in_flight{method}`
/// - `typeahead_connections_open`, `typeahead_streams_active`, `typeahead_output_pending_bytes`,
///   `typeahead_connections_reading_paused`: read from the HTTP/2 server at scrape time
/// - `process_*` and `typeahead_heap_bytes{state}`: memory, descriptors, CPU (``ProcessMetrics``)
///
/// Logs: every failed call at `warning` (with its request id), every call at `debug`, lifecycle
/// events at `info`; one line each, logfmt or JSON, on standard error.
public final class ServerTelemetry: Sendable {
    public let logger: Logger
    public let registry: MetricsRegistry
    private let requests: Counter
    private let latency: Histogram
    private let inFlight: Gauge
    private let serverStatistics = StatisticsSource()

    /// - Parameters:
    ///   - label: the logger's label (`node`, `coordinator`).
    ///   - level: the least severe events written (`--log-level`); the HTTP/2 server's own events
    ///     (connections closed on an error, accept failures) come through it too, at `debug` and up.
    public init(label: String, json: Bool = false, level: Logger.Level = .info, sink: (any LogSink)? = nil,
                registry: MetricsRegistry = MetricsRegistry()) {
        logger = Logger(label: label, sink: sink ?? StandardErrorSink(format: json ? .jsonLines : .logfmt), minimumLevel: level)
        self.registry = registry
        requests = registry.counter(name: "typeahead_requests_total", help: "Finished calls by method and gRPC status code.",
                                    labelNames: ["method", "code"])
        latency = registry.histogram(name: "typeahead_request_duration_seconds", help: "Call latency from arrival to answer.",
                                     labelNames: ["method"])
        inFlight = registry.gauge(name: "typeahead_requests_in_flight", help: "Calls being answered.", labelNames: ["method"])
        ProcessMetrics.register(in: registry)
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

    /// One method's series, resolved once: counting a call is then a few atomic adds, with no
    /// lookup and no lock (a family's label lookup takes its mutex).
    public final class MethodSeries: Sendable {
        public let method: String
        let inFlight: Gauge.Series
        let latency: Histogram.Series
        /// By `GRPCStatus.Code.rawValue`.
        let codes: [Counter.Series]

        init(method: String, telemetry: ServerTelemetry) {
            self.method = method
            inFlight = telemetry.inFlight.labels(["method": method])
            latency = telemetry.latency.labels(["method": method])
            codes = GRPCStatus.Code.allCases.map { telemetry.requests.labels(["method": method, "code": $0.name]) }
        }
    }

    /// The series of a method (made on first use; keep it where it is hot, as ``RPCServer`` does).
    public func series(for method: String) -> MethodSeries {
        MethodSeries(method: method, telemetry: self)
    }

    public func started(_ series: MethodSeries) {
        series.inFlight.increment()
    }

    /// `requestID` is rendered only for a line that is logged.
    public func finished(_ series: MethodSeries, status: GRPCStatus, since started: ContinuousClock.Instant,
                         requestID: @autoclosure () -> String) {
        let elapsed = ContinuousClock.now - started
        series.inFlight.decrement()
        series.codes[status.code.rawValue].increment()
        series.latency.observe(elapsed)
        if status.code != .ok {
            logger.log(Self.level(of: status.code), "call failed",
                       ["method": series.method, "code": status.code.name, "message": status.message,
                        "request_id": requestID(), "duration_us": "\(Self.microseconds(elapsed))"])
        } else {
            logger.debug("call", ["method": series.method, "request_id": requestID(), "duration_us": "\(Self.microseconds(elapsed))"])
        }
    }

    /// How loud a failed call is in the log. A cancelled call is routine (a superseded keystroke, a
    /// hedge that lost, a client that went away): debug, or a fast typist would flood the log. A
    /// call refused for the caller's own mistake is info. The rest say something about the server
    /// or its shards: warning. Every code is counted in the metrics either way.
    static func level(of code: GRPCStatus.Code) -> Logger.Level {
        switch code {
        case .cancelled: .debug
        case .invalidArgument, .notFound, .alreadyExists, .failedPrecondition, .outOfRange, .unauthenticated,
             .permissionDenied, .unimplemented: .info
        default: .warning
        }
    }

    func rejected(_ status: GRPCStatus) {
        requests.labels(["method": "(rejected)", "code": status.code.name]).increment()
        logger.warning("request rejected", ["code": status.code.name, "message": status.message])
    }

    public func exposition() -> String { registry.exposition() }

    public static func microseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
    }
}

/// Where the HTTP/2 server's figures come from once it runs (a class so gauge callbacks can share it).
private final class StatisticsSource: Sendable {
    let source = Mutex<(@Sendable () -> HTTP2Server.Statistics?)?>(nil)
    func read() -> HTTP2Server.Statistics? { source.withLock { $0 }?() }
}
