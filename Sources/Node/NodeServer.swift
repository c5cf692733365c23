import Dispatch
import Foundation
import HTTP2
import Index
import Observability
import Synchronization
import Wire

/// One shard served over HTTP/2: gRPC (`application/grpc`), the Connect protocol's unary JSON on
/// the same paths, GET conveniences (`/v1/suggest`, `/v1/search`), `grpc.health.v1.Health`,
/// `/healthz`, `/readyz` and `/metrics`.
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
    let telemetry: NodeTelemetry
    private let methods: [String: Method]
    private let server: Mutex<HTTP2Server?> = Mutex(nil)
    private let readPool = DispatchQueue(label: "typeahead.node.reads", qos: .userInitiated, attributes: .concurrent)
    private let writer = DispatchQueue(label: "typeahead.node.writer", qos: .userInitiated)
    private let readsInFlight = Atomic<Int>(0)
    private let writesQueued = Atomic<Int>(0)
    private let health: HealthService
    /// Re-reads the shard's manifest every second, so a generation activated by another process
    /// (`typeahead index` on the same directory) is picked up without a restart.
    private let manifestWatch = Mutex<TimerBox?>(nil)

    public init(shard: Shard, configuration: NodeConfiguration, telemetry: NodeTelemetry = NodeTelemetry()) {
        self.shard = shard
        self.configuration = configuration
        self.telemetry = telemetry
        let name = URL(fileURLWithPath: shard.directory).lastPathComponent
        var table: [String: Method] = [:]
        for method in Services.methods(shard: shard, name: name) { table[method.path] = method }
        methods = table
        health = HealthService(shard: shard)
        telemetry.registerNode(shard: shard)
    }

    /// Binds and starts serving; returns the port (useful with port 0).
    public func start() throws -> Int {
        var http = HTTP2Server.Configuration()
        http.host = configuration.host
        http.port = configuration.port
        http.threadCount = configuration.threads
        http.maxConnections = configuration.maximumConnections
        http.idleTimeout = configuration.idleTimeout
        http.session.maxConcurrentStreams = configuration.maximumConcurrentStreams
        http.session.maxHeaderListSize = configuration.maximumHeaderListBytes
        // A gRPC body is the message plus its 5-byte prefix; a little slack for JSON.
        http.session.maxBodySize = configuration.maximumMessageBytes + 5
        let telemetry = self.telemetry
        http.rejectionHandler = { rejection, responder in
            let status: GRPCStatus
            switch rejection {
            case .bodyTooLarge(let limit): status = GRPCStatus(.resourceExhausted, "request body over the limit of \(limit) bytes")
            case .headerListTooLarge(let limit): status = GRPCStatus(.resourceExhausted, "request headers over the limit of \(limit) bytes")
            }
            telemetry.rejected(status)
            responder.sendHeaders(status: 200, headers: GRPCResponses.trailersOnly(status), endStream: true)
        }
        let server = HTTP2Server(configuration: http) { [self] request, responder in
            self.handle(request, responder)
        }
        let port = try server.start()
        self.server.withLock { $0 = server }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer.schedule(deadline: .now() + 1, repeating: 1.0)
        timer.setEventHandler { [shard, telemetry] in
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
        telemetry.statisticsSource = { [weak server] in server?.statistics() }
        telemetry.logger.info("node serving", ["shard": shard.directory, "listen": "\(configuration.host):\(port)",
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
        health.beginShutdown()
        guard let server = server.withLock({ current -> HTTP2Server? in
            defer { current = nil }
            return current
        }) else { return }
        telemetry.logger.info("node shutting down", ["grace_ms": "\(configuration.shutdownGrace.components.seconds * 1000)"])
        server.shutdown(gracePeriod: configuration.shutdownGrace)
        writer.sync {}  // the last write has committed
        telemetry.logger.info("node stopped", [:])
    }

    // MARK: Routing

    private func handle(_ request: HTTP2Request, _ responder: HTTP2Responder) {
        let path = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.path
        if request.method == "GET" || request.method == "HEAD" {
            HTTPEndpoints.handle(request, path: path, node: self, responder: responder)
            return
        }
        guard request.method == "POST" else {
            responder.respond(status: 405, headers: [("allow", "GET, POST"), ("content-type", "text/plain")], body: Array("method not allowed\n".utf8))
            return
        }
        let contentType = request.header("content-type") ?? ""
        if contentType.hasPrefix("application/grpc") {
            handleGRPC(request, path: path, responder)
        } else if contentType.hasPrefix("application/json") {
            ConnectJSON.handle(request, path: path, node: self, responder: responder)
        } else {
            responder.respond(status: 415, headers: [("content-type", "text/plain")],
                              body: Array("use content-type application/grpc or application/json\n".utf8))
        }
    }

    private func handleGRPC(_ request: HTTP2Request, path: String, _ responder: HTTP2Responder) {
        let started = ContinuousClock.now
        let requestID = request.header("x-request-id") ?? RequestID.next().description
        let finish: @Sendable (String, GRPCStatus, [UInt8]?) -> Void = { [telemetry] method, status, message in
            if let message, status.code == .ok {
                responder.respond(status: 200, headers: GRPCResponses.headers, body: GRPCFraming.frame(message),
                                  trailers: GRPCResponses.trailers(.ok))
            } else {
                responder.sendHeaders(status: 200, headers: GRPCResponses.trailersOnly(status), endStream: true)
            }
            telemetry.finished(method: method, status: status, since: started, requestID: requestID)
        }
        if path == Grpc_Health_V1_HealthService.check.path || path == Grpc_Health_V1_HealthService.watch.path {
            health.handle(request, path: path, responder: responder, finish: finish)
            return
        }
        guard let method = methods[path] else {
            finish(path, GRPCStatus(.unimplemented, "unknown method \(path)"), nil)
            return
        }
        telemetry.started(method: path)
        if let encoding = request.header("grpc-encoding"), encoding != "identity" {
            finish(path, GRPCStatus(.unimplemented, "grpc-encoding \(encoding) is not supported; send identity"), nil)
            return
        }
        if let status = authorize(method, request.header("authorization")) {
            finish(path, status, nil)
            return
        }
        var deadline: ContinuousClock.Instant?
        if let timeout = request.header("grpc-timeout") {
            guard let duration = GRPCTimeout.parse(timeout) else {
                finish(path, GRPCStatus(.invalidArgument, "malformed grpc-timeout \"\(timeout)\""), nil)
                return
            }
            deadline = started.advanced(by: duration)
        }
        let messages: [ArraySlice<UInt8>]
        do {
            messages = try GRPCFraming.messages(in: request.body, maximumMessageBytes: configuration.maximumMessageBytes)
        } catch {
            finish(path, error, nil)
            return
        }
        let context = CallContext(requestID: requestID, deadline: deadline, responder: responder)
        let work: @Sendable () -> Void = {
            do {
                finish(path, .ok, try method.handle(messages, context))
            } catch {
                finish(path, GRPCStatus(describing: error), nil)
            }
        }
        dispatch(method.placement, path: path, finish: finish, work)
    }

    /// Runs `work` where its method belongs, refusing when that place is full.
    func dispatch(_ placement: Method.Placement, path: String, finish: @escaping @Sendable (String, GRPCStatus, [UInt8]?) -> Void,
                  _ work: @escaping @Sendable () -> Void) {
        switch placement {
        case .inline:
            work()
        case .readPool:
            guard readsInFlight.add(1, ordering: .relaxed).newValue <= configuration.searchConcurrency else {
                readsInFlight.subtract(1, ordering: .relaxed)
                finish(path, GRPCStatus(.resourceExhausted, "too many searches in flight; retry shortly"), nil)
                return
            }
            readPool.async { [self] in
                work()
                readsInFlight.subtract(1, ordering: .relaxed)
            }
        case .writer:
            guard writesQueued.add(1, ordering: .relaxed).newValue <= configuration.writeQueueLimit else {
                writesQueued.subtract(1, ordering: .relaxed)
                finish(path, GRPCStatus(.resourceExhausted, "too many writes queued; retry shortly"), nil)
                return
            }
            writer.async { [self] in
                work()
                writesQueued.subtract(1, ordering: .relaxed)
            }
        }
    }

    /// Nil if the call may proceed, otherwise the refusal.
    func authorize(_ method: Method, _ header: String?) -> GRPCStatus? {
        switch method.access {
        case .admin:
            guard let token = configuration.adminToken else {
                return GRPCStatus(.unauthenticated, "this node has no admin token configured; start it with --admin-token-file")
            }
            return Authorization.allows(header, token: token) ? nil : GRPCStatus(.unauthenticated, "admin methods need a valid bearer token")
        case .read:
            guard let token = configuration.readToken else { return nil }
            if Authorization.allows(header, token: token) { return nil }
            if let admin = configuration.adminToken, Authorization.allows(header, token: admin) { return nil }
            return GRPCStatus(.unauthenticated, "this node requires a bearer token for reads")
        }
    }

    func method(_ path: String) -> Method? { methods[path] }

    var isReady: Bool { shard.currentGeneration != nil && !health.isShuttingDown }
}

/// Headers and trailers of gRPC responses.
enum GRPCResponses {
    static let headers: [HTTP2HeaderField] = [("content-type", "application/grpc")]

    static func trailers(_ status: GRPCStatus) -> [HTTP2HeaderField] {
        var fields: [HTTP2HeaderField] = [("grpc-status", String(status.code.rawValue))]
        if !status.message.isEmpty { fields.append(("grpc-message", status.encodedMessage)) }
        return fields
    }

    /// A response that is only HEADERS (with END_STREAM): how gRPC reports an error before any message.
    static func trailersOnly(_ status: GRPCStatus) -> [HTTP2HeaderField] {
        headers + trailers(status)
    }
}

/// A dispatch timer owned by the node: created in `start`, cancelled in `shutdown`, both under the
/// node's mutex; the timer's own handler runs on its queue and touches only Sendable state.
private final class TimerBox: @unchecked Sendable {
    let timer: DispatchSourceTimer
    init(timer: DispatchSourceTimer) { self.timer = timer }
}
