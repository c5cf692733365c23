import Dispatch
import Foundation
import HTTP2
import Observability
import Synchronization
import Wire

/// A gRPC server over ``HTTP2Server``, with everything Typeahead's servers (a node, a coordinator)
/// share: one port answers gRPC (`application/grpc`), the Connect protocol's unary JSON for the
/// client-facing methods, the GET conveniences `/v1/suggest` and `/v1/search`, the standard
/// `grpc.health.v1.Health` service, `/healthz`, `/readyz` and `/metrics`.
///
/// ```swift
/// let server = RPCServer(configuration: configuration, methods: methods, telemetry: telemetry,
///                        healthServices: [Typeahead_V1_TypeaheadService.name], isReady: { index.isLoaded })
/// let port = try server.start()
/// // … on SIGTERM:
/// server.shutdown()
/// ```
///
/// Per call, in order: unknown paths are UNIMPLEMENTED, compressed calls UNIMPLEMENTED, the bearer
/// token is checked against the method's ``RPCMethod/Access``, `grpc-timeout` becomes the
/// context's deadline, the body is split into messages (over-size: RESOURCE_EXHAUSTED, malformed
/// framing: INVALID_ARGUMENT), and the method runs. Every finished call is counted, timed and (on
/// failure) logged with its request id by ``ServerTelemetry``.
///
/// Threads: the method handler is called on the connection's event loop and must not block it
/// (hand slow work to a pool and reply from there); replies may come from any thread.
public final class RPCServer: Sendable {
    /// Where a server listens, its limits and tokens.
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        /// 0 binds an ephemeral port (``RPCServer/start()`` returns it).
        public var port = 0
        /// Event-loop threads (default: one per core); ignored when ``eventLoops`` is set.
        public var threads = ProcessInfo.processInfo.activeProcessorCount
        /// Loops shared with the process's clients (a coordinator fans a call out on the loop that
        /// received it); nil: the server runs its own.
        public var eventLoops: HTTP2EventLoopGroup?
        /// Bearer token that admin methods require. Without one they are refused.
        public var adminToken: String?
        /// Bearer token that read methods require, if set (otherwise reads are open).
        public var readToken: String?
        /// TLS on the port (gRPC and every JSON and GET form over HTTPS), or nil for cleartext.
        public var tls: HTTP2TLSContext?
        /// Secrets that sign search keys (``SearchKey``): a read made with a key one of them signed
        /// is allowed, with the key's tokens forced onto it. Empty: keys are refused.
        public var searchKeySecrets: [[UInt8]] = []
        /// Largest request message (gRPC message or JSON body).
        public var maximumMessageBytes = 4 << 20
        public var maximumConcurrentStreams: UInt32 = 128
        public var maximumConnections = 10_000
        public var maximumHeaderListBytes: UInt32 = 16 << 10
        public var idleTimeout: Duration = .seconds(120)
        /// How long a request's head may take to arrive (slowloris; see `HTTP2Server.Configuration`).
        public var requestHeadTimeout: Duration = .seconds(10)
        /// How long in-flight requests may run after a shutdown begins.
        public var shutdownGrace: Duration = .seconds(10)

        public init() {}
    }

    /// A GET route beside the standard ones (`/healthz`, `/readyz`, `/metrics`) and the methods'
    /// GET forms, called on the event loop like a method.
    public typealias Route = @Sendable (HTTP2Request, HTTP2Responder) -> Void

    public let configuration: Configuration
    public let telemetry: ServerTelemetry
    private let methods: [String: RPCMethod]
    /// The methods with a GET form, by their GET path (`/v1/suggest`).
    private let getMethods: [String: RPCMethod]
    /// Every path's metric series, resolved at start (unknown paths share one "(unknown)" series,
    /// so a client probing random paths cannot grow the metrics without bound).
    private let series: [String: ServerTelemetry.MethodSeries]
    private let unknownSeries: ServerTelemetry.MethodSeries
    private let routes: [String: Route]
    private let health: HealthService
    private let isReadyTest: @Sendable () -> Bool
    private let server = Mutex<HTTP2Server?>(nil)

    /// - Parameters:
    ///   - healthServices: the gRPC service names `grpc.health.v1.Health` knows (besides `""`).
    ///   - isReady: whether the server can answer queries (`/readyz`, health SERVING).
    public init(configuration: Configuration, methods: [RPCMethod], telemetry: ServerTelemetry,
                healthServices: Set<String>, isReady: @escaping @Sendable () -> Bool, routes: [String: Route] = [:]) {
        self.configuration = configuration
        self.telemetry = telemetry
        self.methods = Dictionary(methods.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        getMethods = Dictionary(methods.compactMap { method in method.json?.getPath.map { ($0, method) } },
                                uniquingKeysWith: { first, _ in first })
        let labels = methods.map(\.path) + getMethods.keys.map { "GET " + $0 }
            + [Grpc_Health_V1_HealthService.check.path, Grpc_Health_V1_HealthService.watch.path]
        series = Dictionary(labels.map { ($0, telemetry.series(for: $0)) }, uniquingKeysWith: { first, _ in first })
        unknownSeries = telemetry.series(for: "(unknown)")
        self.routes = routes
        self.isReadyTest = isReady
        health = HealthService(services: healthServices, isReady: isReady)
    }

    /// The HTTP/2 server's events (a connection closed on a protocol error, accepting paused) in
    /// the server's own log, as `component=http2`, at the logger's level.
    public static func transportLogger(_ logger: Logger) -> HTTP2Logger {
        let level: HTTP2Logger.Level = switch logger.minimumLevel {
        case .trace: .trace
        case .debug: .debug
        case .info, .notice: .info
        case .warning: .warning
        case .error, .critical: .error
        }
        return HTTP2Logger(level: level) { level, message in
            let mapped: Logger.Level = switch level {
            case .trace: .trace
            case .debug: .debug
            case .info: .info
            case .warning: .warning
            case .error: .error
            }
            logger.log(mapped, message, ["component": "http2"])
        }
    }

    /// Binds and starts serving; returns the port (useful with port 0).
    public func start() throws -> Int {
        var http = HTTP2Server.Configuration()
        http.host = configuration.host
        http.port = configuration.port
        http.threadCount = configuration.threads
        http.maxConnections = configuration.maximumConnections
        http.idleTimeout = configuration.idleTimeout
        http.requestHeadTimeout = configuration.requestHeadTimeout
        http.tls = configuration.tls
        http.logger = Self.transportLogger(telemetry.logger)
        http.session.maxConcurrentStreams = configuration.maximumConcurrentStreams
        http.session.maxHeaderListSize = configuration.maximumHeaderListBytes
        // A gRPC body is the message plus its 5-byte prefix.
        http.session.maxBodySize = configuration.maximumMessageBytes + 5
        // Every call names one of these: shared Strings, not one allocated per request.
        http.session.knownValues = Array(methods.keys)
        let telemetry = self.telemetry
        http.rejectionHandler = { rejection, request, responder in
            let status: GRPCStatus
            let httpStatus: Int
            switch rejection {
            case .bodyTooLarge(let limit):
                status = GRPCStatus(.resourceExhausted, "request body over the limit of \(limit) bytes")
                httpStatus = 413
            case .headerListTooLarge(let limit):
                status = GRPCStatus(.resourceExhausted, "request headers over the limit of \(limit) bytes")
                httpStatus = 431
            }
            telemetry.rejected(status)
            // A gRPC client reads trailers; a JSON, GET, health or metrics client reads the HTTP
            // status, and would take a 200 for success. (A header block cut before its content
            // type cannot be told apart: it gets the HTTP answer, which gRPC clients also report.)
            if Self.mediaType(request.contentType).hasPrefix("application/grpc") {
                responder.sendHeaders(status: 200, headers: GRPCResponses.trailersOnly(status), endStream: true)
            } else {
                responder.respond(status: httpStatus, headers: [("content-type", "application/json")],
                                  body: Self.errorJSON(status))
            }
        }
        let server = HTTP2Server(configuration: http, eventLoops: configuration.eventLoops) { [self] request, responder in
            self.handle(request, responder)
        }
        let port = try server.start()
        self.server.withLock { $0 = server }
        telemetry.statisticsSource = { [weak server] in server?.statistics() }
        return port
    }

    /// Tells health watchers NOT_SERVING, sends GOAWAY, lets in-flight calls finish within the
    /// grace period, then closes. Idempotent. Must not be called on an event loop.
    public func shutdown() {
        health.beginShutdown()
        guard let server = server.withLock({ current -> HTTP2Server? in
            defer { current = nil }
            return current
        }) else { return }
        server.shutdown(gracePeriod: configuration.shutdownGrace)
    }

    /// Ready to answer queries and not shutting down (`/readyz`).
    public var isReady: Bool { isReadyTest() && !health.isShuttingDown }

    // MARK: Routing

    private func series(_ path: String) -> ServerTelemetry.MethodSeries { series[path] ?? unknownSeries }

    /// A content type for comparing: media types are case-insensitive (RFC 9110 §8.3.1), and
    /// clients do send `APPLICATION/JSON`; the lower-case form every client sends is returned as is.
    static func mediaType(_ value: String?) -> String {
        guard let value else { return "" }
        return value.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) ? value.lowercased() : value
    }

    /// `:path` up to its query string (a gRPC path has none: then the same string, not a copy).
    static func pathWithoutQuery(_ path: String) -> String {
        guard let mark = path.utf8.firstIndex(of: UInt8(ascii: "?")) else { return path }
        return String(path[..<mark])
    }

    private func handle(_ request: HTTP2Request, _ responder: HTTP2Responder) {
        let path = Self.pathWithoutQuery(request.path)
        if request.method == "GET" || request.method == "HEAD" {
            handleGET(request, path: path, responder)
            return
        }
        guard request.method == "POST" else {
            responder.respond(status: 405, headers: [("allow", "GET, POST"), ("content-type", "text/plain")], body: Array("method not allowed\n".utf8))
            return
        }
        let contentType = Self.mediaType(request.header("content-type"))
        if contentType.hasPrefix("application/grpc") {
            handleGRPC(request, path: path, responder)
        } else if contentType.hasPrefix("application/json") {
            handleConnectJSON(request, path: path, responder)
        } else {
            responder.respond(status: 415, headers: [("content-type", "text/plain")],
                              body: Array("use content-type application/grpc or application/json\n".utf8))
        }
    }

    private func handleGRPC(_ request: HTTP2Request, path: String, _ responder: HTTP2Responder) {
        let started = ContinuousClock.now
        // A closure literal without captures: a static method passed by name becomes a partial
        // application that allocates a context on every call.
        let call = beginCall(request, label: path, started: started, responder: responder) { RPCServer.answerGRPC($0, $1, $2) }
        if path == Grpc_Health_V1_HealthService.check.path || path == Grpc_Health_V1_HealthService.watch.path {
            health.handle(request, path: path, responder: responder) { _, status, message in call.finish(status, message) }
            return
        }
        guard let method = methods[path] else {
            call.finish(GRPCStatus(.unimplemented, "unknown method \(path)"))
            return
        }
        if let encoding = request.header("grpc-encoding"), encoding != "identity" {
            call.finish(GRPCStatus(.unimplemented, "grpc-encoding \(encoding) is not supported; send identity"))
            return
        }
        let searchKey: SearchKey?
        do throws(GRPCStatus) { searchKey = try authorize(method, request.header("authorization")) } catch {
            call.finish(error)
            return
        }
        var deadline: ContinuousClock.Instant?
        if let timeout = request.header("grpc-timeout") {
            guard let duration = GRPCTimeout.parse(timeout) else {
                call.finish(GRPCStatus(.invalidArgument, "malformed grpc-timeout \"\(timeout)\""))
                return
            }
            deadline = started.advanced(by: duration)
        }
        let messages: GRPCMessages
        do throws(GRPCStatus) {
            messages = try GRPCMessages(in: request.body, maximumMessageBytes: configuration.maximumMessageBytes)
        } catch {
            call.finish(error)
            return
        }
        method.invoke(messages, CallContext(identity: call.identity, deadline: deadline, responder: responder, searchKey: searchKey), call.reply)
    }

    /// A gRPC call's answer: the message with its trailers, or a trailers-only error.
    private static func answerGRPC(_ responder: HTTP2Responder, _ status: GRPCStatus, _ message: [UInt8]?) {
        if let message, status.code == .ok {
            responder.respond(status: 200, headers: GRPCResponses.headers, body: GRPCFraming.frame(message),
                              trailers: GRPCResponses.trailers(.ok))
        } else {
            responder.sendHeaders(status: 200, headers: GRPCResponses.trailersOnly(status), endStream: true)
        }
    }

    /// What every call shares, whatever its form (gRPC, Connect JSON, GET): its request id, its
    /// metric series (started now), and its ending, which answers in the call's form and is
    /// counted, timed and, on failure, logged.
    private struct Call: Sendable {
        let identity: CallIdentity
        /// The method's reply, ending the call: made once per call (one closure, one allocation).
        let reply: RPCMethod.Reply<[UInt8]>

        /// Ends the call with `status`: a failure, or (from the health service) success with its message.
        func finish(_ status: GRPCStatus, _ message: [UInt8]? = nil) {
            reply(status.code == .ok ? .success(message ?? []) : .failure(status))
        }
    }

    /// Starts a call's metrics and makes its reply. `answer` writes the reply in the call's form;
    /// it captures nothing (the responder is its argument), so passing it costs no closure context.
    private func beginCall(_ request: HTTP2Request, label: String, started: ContinuousClock.Instant, responder: HTTP2Responder,
                           answer: @escaping @Sendable (HTTP2Responder, GRPCStatus, [UInt8]?) -> Void) -> Call {
        let identity = CallIdentity(header: request.header("x-request-id"))
        let metrics = series(label)
        let telemetry = self.telemetry
        telemetry.started(metrics)
        return Call(identity: identity) { result in
            let status: GRPCStatus
            switch result {
            case .success(let bytes):
                status = .ok
                answer(responder, status, bytes)
            case .failure(let failure):
                status = failure
                answer(responder, status, nil)
            }
            telemetry.finished(metrics, status: status, since: started, requestID: identity.text)
        }
    }

    /// The Connect protocol's unary JSON: POST the method path with `content-type:
    /// application/json`; the answer is the response message's JSON, or `{"code": "...",
    /// "message": "..."}` with the HTTP status Connect pairs with the code. Only methods registered
    /// with a ``JSONMapping`` speak JSON.
    private func handleConnectJSON(_ request: HTTP2Request, path: String, _ responder: HTTP2Responder) {
        var deadline: ContinuousClock.Instant?
        let started = ContinuousClock.now
        if let millis = request.header("connect-timeout-ms").flatMap(Int64.init) { deadline = started.advanced(by: .milliseconds(millis)) }
        handleJSON(request, method: methods[path], label: path, started: started, deadline: deadline, responder) {
            [configuration] endpoint throws(GRPCStatus) -> RPCMethod.JSONInput in
            let limit = min(configuration.maximumMessageBytes, endpoint.maximumBodyBytes)
            guard request.body.count <= limit else {
                throw GRPCStatus(.resourceExhausted, "request body over \(limit) bytes")
            }
            return .body(try JSONRequests.object(request.body))
        }
    }

    /// | path | answer |
    /// |---|---|
    /// | a method's GET path, e.g. `/v1/suggest?q=TEXT[&limit=N]…` (see `JSONRequests`) | the method's JSON answer |
    /// | `/healthz` | 200 while the process serves |
    /// | `/readyz` | 200 when ready and not shutting down, else 503 |
    /// | `/metrics` | Prometheus text format |
    private func handleGET(_ request: HTTP2Request, path: String, _ responder: HTTP2Responder) {
        switch path {
        case "/healthz":
            responder.respond(status: 200, headers: [("content-type", "text/plain")], body: Array("ok\n".utf8))
        case "/readyz":
            let ready = isReady
            responder.respond(status: ready ? 200 : 503, headers: [("content-type", "text/plain")],
                              body: Array((ready ? "ready\n" : "not ready\n").utf8))
        case "/metrics":
            // Not on the event loop: the connection gauges call HTTP2Server.statistics(), which
            // queues a task on every loop and waits for them all, so calling it from a loop thread
            // waits for itself forever (wedging that loop, every connection on it, and shutdown).
            let telemetry = self.telemetry
            DispatchQueue.global(qos: .utility).async {
                responder.respond(status: 200, headers: [("content-type", "text/plain; version=0.0.4")],
                                  body: Array(telemetry.exposition().utf8))
            }
        default:
            if let method = getMethods[path] {
                handleJSON(request, method: method, label: "GET " + path, started: .now, deadline: nil, responder) { _ throws(GRPCStatus) -> RPCMethod.JSONInput in
                    .query(try FormQuery.items(in: request.path))
                }
            } else if let route = routes[path] {
                route(request, responder)
            } else {
                responder.respond(status: 404, headers: [("content-type", "text/plain")], body: Array("not found: \(path)\n".utf8))
            }
        }
    }

    /// The call set-up every JSON form shares: metrics, the method's JSON side, authorization,
    /// reading the input, running the method, and the Connect answer.
    private func handleJSON(_ request: HTTP2Request, method: RPCMethod?, label: String, started: ContinuousClock.Instant,
                            deadline: ContinuousClock.Instant?, _ responder: HTTP2Responder,
                            input: (RPCMethod.JSONEndpoint) throws(GRPCStatus) -> RPCMethod.JSONInput) {
        let call = beginCall(request, label: label, started: started, responder: responder) { responder, status, body in
            RPCServer.sendJSON(status, body: body, to: responder)
        }
        guard let method, let endpoint = method.json else {
            call.finish(GRPCStatus(.unimplemented, "\(label) has no JSON form; use gRPC"))
            return
        }
        let searchKey: SearchKey?
        do throws(GRPCStatus) { searchKey = try authorize(method, request.header("authorization")) } catch {
            call.finish(error)
            return
        }
        let decoded: RPCMethod.JSONInput
        do throws(GRPCStatus) { decoded = try input(endpoint) } catch {
            call.finish(error)
            return
        }
        endpoint.invoke(decoded, CallContext(identity: call.identity, deadline: deadline, responder: responder, format: .json,
                                             searchKey: searchKey), call.reply)
    }

    static func sendJSON(_ status: GRPCStatus, body: [UInt8]?, to responder: HTTP2Responder) {
        if status.code == .ok, let body {
            responder.respond(status: 200, headers: [("content-type", "application/json")], body: body)
        } else {
            responder.respond(status: status.httpStatus, headers: [("content-type", "application/json")], body: errorJSON(status))
        }
    }

    /// The Connect error body: `{"code":"invalid_argument","message":"…"}`, and when the status
    /// has an ErrorInfo, `"details":[{"type":"google.rpc.ErrorInfo","value":BASE64,"debug":{…}}]`
    /// (Connect's form: the detail's encoding in unpadded base64, and its JSON for people).
    static func errorJSON(_ status: GRPCStatus) -> [UInt8] {
        var json = JSONWriter()
        json.beginObject()
        json.key("code"); json.string(status.connectCode)
        json.key("message"); json.string(status.message)
        if let info = status.errorInfo {
            json.key("details")
            json.beginArray()
            json.beginObject()
            json.key("type"); json.string("google.rpc.ErrorInfo")
            let base64 = Data(info.serializedBytes()).base64EncodedString()
            json.key("value"); json.string(String(base64.prefix { $0 != "=" }))
            json.key("debug")
            json.beginObject()
            json.key("reason"); json.string(info.reason)
            json.key("domain"); json.string(info.domain)
            json.key("metadata")
            json.beginObject()
            for key in ProtoWriter.sortedKeys(info.metadata) {
                json.key(key)
                json.string(info.metadata[key]!)
            }
            json.endObject()
            json.endObject()
            json.endObject()
            json.endArray()
        }
        json.endObject()
        json.newline()
        return json.bytes
    }

    /// Made once: every read passes through ``authorize(_:_:)``.
    private static let searchKeyBearer = "Bearer " + SearchKey.prefix

    /// Throws the refusal, or returns the search key the call was made with (nil: a token, or
    /// reads open). A search key is checked whenever one is presented, even where reads are
    /// open: a key narrows what its holder sees, so one that cannot be verified (or a server
    /// without secrets) is refused rather than ignored. Admin methods never take a key.
    func authorize(_ method: RPCMethod, _ header: String?) throws(GRPCStatus) -> SearchKey? {
        switch method.access {
        case .admin:
            guard let token = configuration.adminToken else {
                throw GRPCStatus(.unauthenticated, "this server has no admin token configured; start it with --admin-token-file")
            }
            guard Authorization.allows(header, token: token) else { throw GRPCStatus(.unauthenticated, "admin methods need a valid bearer token") }
            return nil
        case .read:
            if let header, header.hasPrefix(Self.searchKeyBearer) {
                guard !configuration.searchKeySecrets.isEmpty else {
                    throw GRPCStatus(.unauthenticated, "this server accepts no search keys (start it with --search-key-secret-file)")
                }
                do throws(SearchKey.Refusal) {
                    return try SearchKey.verify(String(header.dropFirst(7)), secrets: configuration.searchKeySecrets,
                                                now: Int64(Date().timeIntervalSince1970))
                } catch {
                    throw GRPCStatus(.unauthenticated, error.description,
                                     errorInfo: .init(reason: "SEARCH_KEY_" + error.reason.rawValue.uppercased(), domain: "typeahead"))
                }
            }
            guard let token = configuration.readToken else { return nil }
            if Authorization.allows(header, token: token) { return nil }
            if let admin = configuration.adminToken, Authorization.allows(header, token: admin) { return nil }
            throw GRPCStatus(.unauthenticated, "this server requires a bearer token for reads")
        }
    }
}

/// Headers and trailers of gRPC responses.
enum GRPCResponses {
    static let headers: [HTTP2HeaderField] = [("content-type", "application/grpc")]

    /// The trailers of every successful call, made once.
    static let okTrailers: [HTTP2HeaderField] = [("grpc-status", "0")]

    static func trailers(_ status: GRPCStatus) -> [HTTP2HeaderField] {
        if status.code == .ok, status.message.isEmpty, status.errorInfo == nil { return okTrailers }
        var fields: [HTTP2HeaderField] = [("grpc-status", String(status.code.rawValue))]
        if !status.message.isEmpty { fields.append(("grpc-message", status.encodedMessage)) }
        // gRPC's binary ("-bin") metadata travels as base64.
        if let details = status.encodedDetails { fields.append(("grpc-status-details-bin", Data(details).base64EncodedString())) }
        return fields
    }

    /// A response that is only HEADERS (with END_STREAM): how gRPC reports an error before any message.
    static func trailersOnly(_ status: GRPCStatus) -> [HTTP2HeaderField] {
        headers + trailers(status)
    }
}
