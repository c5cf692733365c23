import Foundation
import HTTP2
import Synchronization
import Wire

/// gRPC calls over one ``HTTP2ClientConnection``: the request's framing and headers, and the
/// response turned into a message or a ``GRPCStatus`` — never a transport error, so callers handle
/// one kind of failure.
///
/// ```swift
/// let connection = try await client.connect(host: "10.0.0.7", port: 7701)
/// let stats = try await GRPCClient.call(Typeahead_V1_ShardService.stats, Typeahead_V1_StatsRequest(),
///                                       on: connection, timeout: .seconds(1))
/// ```
///
/// How failures map (gRPC's `doc/http-grpc-status-mapping.md` and `PROTOCOL-HTTP2.md`): no
/// connection, a connection that closed, or RST_STREAM REFUSED_STREAM: UNAVAILABLE (safe to retry
/// elsewhere: the server did not process it, or cannot be reached); RST_STREAM CANCEL or a local
/// cancel: CANCELLED; ENHANCE_YOUR_CALM: RESOURCE_EXHAUSTED; other resets: INTERNAL; an HTTP status
/// other than 200: 401 UNAUTHENTICATED, 403 PERMISSION_DENIED, 404 UNIMPLEMENTED, 429/502/503/504
/// UNAVAILABLE, otherwise UNKNOWN; a 200 without `grpc-status`: INTERNAL; a response over the
/// client's body limit: RESOURCE_EXHAUSTED; a message that does not decode: INTERNAL.
public enum GRPCClient {
    /// Per-call settings.
    public struct Options: Sendable {
        /// Sent as `grpc-timeout`; the server stops working on the call once it passes. With
        /// ``enforceTimeoutLocally`` the call also fails locally (DEADLINE_EXCEEDED, stream reset)
        /// if no answer arrives in time — what a caller wants when the network itself may be gone.
        public var timeout: Duration?
        public var enforceTimeoutLocally = true
        /// `authorization: Bearer …`, for admin methods (or reads on servers that require a token).
        public var bearerToken: String?
        /// Sent as `x-request-id`, so the server's log lines about the call carry it.
        public var requestID: String?
        /// Extra metadata (lowercase names).
        public var metadata: [HTTP2HeaderField] = []

        public init(timeout: Duration? = nil, bearerToken: String? = nil, requestID: String? = nil) {
            self.timeout = timeout
            self.bearerToken = bearerToken
            self.requestID = requestID
        }
    }

    /// The headers of a call: what every gRPC request carries, then the options'.
    static func headers(_ options: Options) -> [HTTP2HeaderField] {
        var headers: [HTTP2HeaderField] = []
        headers.reserveCapacity(6 + options.metadata.count)  // one allocation per call
        headers.append(("content-type", "application/grpc"))
        headers.append(("te", "trailers"))
        headers.append(("user-agent", "typeahead-grpc/1"))
        if let timeout = options.timeout { headers.append(("grpc-timeout", GRPCTimeout.encode(timeout))) }
        if let token = options.bearerToken { headers.append(("authorization", "Bearer \(token)")) }
        if let id = options.requestID { headers.append(("x-request-id", id)) }
        headers.append(contentsOf: options.metadata)
        return headers
    }

    /// Starts a unary call; `completion` runs once, on the connection's event loop (it must not
    /// block). The returned handle cancels the call (RST_STREAM CANCEL; completion: CANCELLED).
    @discardableResult
    public static func call<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: ProtoMethod<Request, Response>, _ request: Request, on connection: HTTP2ClientConnection,
        options: Options = .init(), completion: @escaping @Sendable (Result<Response, GRPCStatus>) -> Void
    ) -> HTTP2ClientStream {
        send(path: method.path, body: GRPCFraming.frame(request.serializedBytes()), on: connection, options: options) { result in
            completion(result.flatMap { body in singleMessage(body, method: method.path) }.flatMap { decode(Response.self, $0, method: method.path) })
        }
    }

    /// The HTTP/2 request of a unary call whose request is already framed (``GRPCFraming/frame(_:)``),
    /// for a caller that sends it itself with ``HTTP2ClientConnection/send(_:to:tag:)`` and reads
    /// the answer with ``unaryResult(of:method:peer:)`` — a fan-out encodes one request once for
    /// every shard and takes no closure per call. `options.enforceTimeoutLocally` is the caller's
    /// to honour (a fan-out has a deadline timer of its own).
    public static func request(path: String, framedRequest: [UInt8], options: Options) -> HTTP2ClientRequest {
        HTTP2ClientRequest(method: "POST", path: path, headers: headers(options), body: framedRequest)
    }

    /// A unary call's outcome: the response message's bytes (a slice of the response body, not
    /// copied), or the status the call ended with — as every call of this client maps it.
    /// `method` and `peer` are named only in failures.
    public static func unaryResult(of result: Result<HTTP2Response, HTTP2ClientError>, method: String,
                                   peer: @autoclosure () -> String) -> Result<ArraySlice<UInt8>, GRPCStatus> {
        status(of: result, from: peer()).flatMap { body in singleMessage(body, method: method) }
    }

    /// A unary call, awaited. Cancelling the task cancels the call.
    public static func call<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: ProtoMethod<Request, Response>, _ request: Request, on connection: HTTP2ClientConnection,
        options: Options = .init()
    ) async throws(GRPCStatus) -> Response {
        let body = try await send(path: method.path, body: GRPCFraming.frame(request.serializedBytes()), on: connection, options: options)
        return try singleMessage(body, method: method.path).flatMap { decode(Response.self, $0, method: method.path) }.get()
    }

    /// A client-streaming call with every request message at once (the whole stream is one body).
    public static func call<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: ProtoMethod<Request, Response>, stream requests: [Request], on connection: HTTP2ClientConnection,
        options: Options = .init()
    ) async throws(GRPCStatus) -> Response {
        var body: [UInt8] = []
        for request in requests { body += GRPCFraming.frame(request.serializedBytes()) }
        let answer = try await send(path: method.path, body: body, on: connection, options: options)
        return try singleMessage(answer, method: method.path).flatMap { decode(Response.self, $0, method: method.path) }.get()
    }

    // MARK: The exchange

    private static func send(path: String, body: [UInt8], on connection: HTTP2ClientConnection, options: Options,
                             completion: @escaping @Sendable (Result<[UInt8], GRPCStatus>) -> Void) -> HTTP2ClientStream {
        let request = request(path: path, framedRequest: body, options: options)
        // Named only in failures: the text is made then, not per call.
        let host = connection.host
        let port = connection.port
        guard options.enforceTimeoutLocally, let timeout = options.timeout else {
            return connection.send(request) { completion(status(of: $0, from: "\(host):\(port)")) }
        }
        // The local deadline is a timer of the connection's own loop, cancelled when the answer
        // comes: no thread or dispatch timer per call, and the completion stays on the loop.
        let loop = connection.eventLoop
        let deadline = LocalDeadline()
        let stream = connection.send(request) { result in
            deadline.finish(on: loop)
            completion(deadline.expired ? .failure(GRPCStatus(.deadlineExceeded, "no answer from \(host):\(port) within the deadline"))
                                        : status(of: result, from: "\(host):\(port)"))
        }
        let arm: @Sendable () -> Void = { deadline.arm(on: loop, after: timeout) { stream.cancel() } }
        if loop.inEventLoop { arm() } else { _ = loop.execute(arm) }
        return stream
    }

    private static func send(path: String, body: [UInt8], on connection: HTTP2ClientConnection,
                             options: Options) async throws(GRPCStatus) -> [UInt8] {
        let box = StreamBox()
        let result: Result<[UInt8], GRPCStatus> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                box.started(send(path: path, body: body, on: connection, options: options) { continuation.resume(returning: $0) })
            }
        } onCancel: {
            box.cancel()
        }
        return try result.get()
    }

    /// The payload of a finished exchange, or the status it ended with.
    static func status(of result: Result<HTTP2Response, HTTP2ClientError>, from peer: @autoclosure () -> String) -> Result<[UInt8], GRPCStatus> {
        let response: HTTP2Response
        switch result {
        case .failure(let error): return .failure(status(of: error, from: peer()))
        case .success(let value): response = value
        }
        guard response.status == 200 else {
            let code: GRPCStatus.Code = switch response.status {
            case 401: .unauthenticated
            case 403: .permissionDenied
            case 404: .unimplemented
            case 429, 502, 503, 504: .unavailable
            default: .unknown
            }
            return .failure(GRPCStatus(code, "\(peer()) answered HTTP \(response.status)"))
        }
        // Trailers-only responses carry the status in the headers.
        guard let text = response.trailer("grpc-status") ?? response.header("grpc-status") else {
            return .failure(GRPCStatus(.internal, "\(peer()) answered without grpc-status"))
        }
        guard let raw = Int(text), let code = GRPCStatus.Code(rawValue: raw) else {
            return .failure(GRPCStatus(.unknown, "\(peer()) answered grpc-status \"\(text)\""))
        }
        guard code == .ok else {
            let message = (response.trailer("grpc-message") ?? response.header("grpc-message")).map(GRPCStatus.decodeMessage) ?? ""
            let details = (response.trailer("grpc-status-details-bin") ?? response.header("grpc-status-details-bin"))
                .flatMap(decodeBase64).flatMap(GRPCStatus.errorInfo(inEncodedDetails:))
            return .failure(GRPCStatus(code, message, errorInfo: details))
        }
        return .success(response.body)
    }

    /// Base64 with or without padding (gRPC senders differ: the spec lets them omit it).
    static func decodeBase64(_ text: String) -> [UInt8]? {
        let padded = text + String(repeating: "=", count: (4 - text.utf8.count % 4) % 4)
        return Data(base64Encoded: padded).map(Array.init)
    }

    static func status(of error: HTTP2ClientError, from peer: @autoclosure () -> String) -> GRPCStatus {
        switch error.code {
        case .cancelled:
            return GRPCStatus(.cancelled, "cancelled")
        case .closedLocally:
            return GRPCStatus(.unavailable, "\(peer()): \(error)",
                              errorInfo: Google_Rpc_ErrorInfo(reason: GRPCStatus.closedLocallyReason, domain: "typeahead"))
        case .responseRejected:
            return GRPCStatus(.resourceExhausted, "the answer from \(peer()) is over the client's limit: \(error.message)")
        case .streamReset:
            switch error.errorCode {
            case .refusedStream?: return GRPCStatus(.unavailable, "\(peer()) refused the stream")
            case .cancel?: return GRPCStatus(.cancelled, "\(peer()) cancelled the call")
            case .enhanceYourCalm?: return GRPCStatus(.resourceExhausted, "\(peer()) asked to slow down (ENHANCE_YOUR_CALM)")
            default: return GRPCStatus(.internal, "\(peer()) reset the stream (\(error.errorCode.map { "\($0)" } ?? "no code"))")
            }
        default:
            return GRPCStatus(.unavailable, "\(peer()): \(error)")
        }
    }

    /// The one message of a unary response body (a slice of it).
    static func singleMessage(_ body: [UInt8], method: String) -> Result<ArraySlice<UInt8>, GRPCStatus> {
        do {
            var message: ArraySlice<UInt8> = []
            var count = 0
            try GRPCFraming.forEachMessage(in: body, maximumMessageBytes: Int(Int32.max)) { slice in
                if count == 0 { message = slice }
                count += 1
            }
            guard count == 1 else {
                return .failure(GRPCStatus(.internal, "\(method) answered \(count) messages where one was expected"))
            }
            return .success(message)
        } catch {
            return .failure(GRPCStatus(.internal, "malformed answer to \(method): \(error.message)"))
        }
    }

    /// A response message, decoded; a malformed one is the server's fault (INTERNAL).
    public static func decode<M: ProtoMessage>(_ type: M.Type, _ bytes: ArraySlice<UInt8>, method: String) -> Result<M, GRPCStatus> {
        do {
            return .success(try bytes.withUnsafeBytes { raw throws(ProtoError) in try M(serializedBuffer: raw) })
        } catch {
            return .failure(GRPCStatus(.internal, "malformed answer to \(method): \(error)"))
        }
    }
}

extension Duration {
    /// Whole nanoseconds, saturating at Int64's range.
    var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return product.addingReportingOverflow(attoseconds / 1_000_000_000).overflow ? .max : product + attoseconds / 1_000_000_000
    }
}

/// The stream of an awaited call, for the task's cancellation handler (which may run before the
/// stream exists).
private final class StreamBox: Sendable {
    private let state = Mutex<(stream: HTTP2ClientStream?, cancelled: Bool)>((nil, false))

    func started(_ stream: HTTP2ClientStream) {
        let cancelled = state.withLock { state -> Bool in
            state.stream = stream
            return state.cancelled
        }
        if cancelled { stream.cancel() }
    }

    func cancel() {
        state.withLock { state -> HTTP2ClientStream? in
            state.cancelled = true
            return state.stream
        }?.cancel()
    }
}

/// A call's local deadline. Confined to the connection's event loop: armed there, fired there,
/// and finished by the completion, which runs there (the one exception, a loop that has shut
/// down, finishes calls on the caller's thread, when no timer of it can be pending or fire).
private final class LocalDeadline: @unchecked Sendable {
    private var timer: HTTP2Timer?
    private var finished = false
    private(set) var expired = false

    func arm(on loop: HTTP2EventLoop, after timeout: Duration, expire: @escaping () -> Void) {
        guard !finished else { return }
        timer = loop.scheduleTimer(after: timeout) { [self] in
            timer = nil
            expired = true
            expire()
        }
    }

    func finish(on loop: HTTP2EventLoop) {
        finished = true
        if let timer, loop.inEventLoop { loop.cancelTimer(timer) }
        timer = nil
    }
}
