/// One HTTP/2 connection to a server, owned by one event loop (``eventLoop``). Thread-safe: every
/// method may be called from any thread and hops to that loop, or runs inline when called there
/// (so a coordinator sending from a handler on the same loop pays no hop and takes no lock).
///
///     // A per-loop pool entry that notices when its backend goes away.
///     let connection = try await client.connect(host: "10.0.0.7", port: 7701, on: loop)
///     connection.onClose { pool.replace(connection) }          // on `loop`, once
///     if connection.isAcceptingRequests {
///         connection.send(HTTP2ClientRequest(path: "/v1/suggest?q=re")) { result in ... }
///     }
///
/// A connection closes on EOF, a socket or protocol error, GOAWAY once its streams are done
/// (sent by ``close()`` or received from the server), ``forceClose()``, or the client's or the
/// group's shutdown. It does not reconnect: open a new one (``onClose(_:)`` says when).
public final class HTTP2ClientConnection: Sendable {
    public let host: String
    public let port: Int
    private let status: ClientConnectionStatus
    private let handler: HTTP2LoopBound<ClientConnectionHandler>

    init(host: String, port: Int, status: ClientConnectionStatus, handler: HTTP2LoopBound<ClientConnectionHandler>) {
        self.host = host
        self.port = port
        self.status = status
        self.handler = handler
    }

    /// The loop that owns the connection: completions and close handlers run on it.
    public var eventLoop: HTTP2EventLoop { handler.eventLoop }

    /// False once the connection closed, or GOAWAY was received or sent: new requests would fail
    /// with `notConnected` (GOAWAY) or never be sent. Any thread, O(1) (one atomic load). Advisory:
    /// it can turn false right after it was read, so a request may still fail; a pool uses it to
    /// pick a connection and ``onClose(_:)`` to replace one.
    public var isAcceptingRequests: Bool { status.acceptingRequests.load(ordering: .relaxed) }

    /// Sends a request; `completion` runs on the loop thread with the complete response or an
    /// ``HTTP2ClientError``. The returned handle cancels it.
    @discardableResult
    public func send(_ request: HTTP2ClientRequest,
                     completion: @escaping @Sendable (Result<HTTP2Response, HTTP2ClientError>) -> Void) -> HTTP2ClientStream {
        let handle = HTTP2ClientStream(connection: handler)
        start(request, handle: handle, completion: completion)
        return handle
    }

    /// Sends a request from the connection's loop (precondition); `receiver` gets the outcome once,
    /// on the loop, with `tag` — possibly before this returns, when the request cannot be sent.
    /// Returns the stream's id, to ``cancel(streamID:)`` it, or nil when it was not sent. The lean
    /// form of ``send(_:completion:)`` for loop-confined callers: no handle, no closure, no hop.
    public func send(_ request: HTTP2ClientRequest, to receiver: HTTP2ResponseReceiver, tag: Int) -> Int32? {
        handler.value.submit(request, to: receiver, tag: tag)
    }

    /// Resets a stream sent with ``send(_:to:tag:)`` (RST_STREAM CANCEL) unless it has completed;
    /// its receiver gets ``HTTP2ClientError/Code-swift.struct/cancelled``. On the connection's loop
    /// (precondition).
    public func cancel(streamID: Int32) {
        handler.value.cancel(streamID: streamID)
    }

    /// Sends a request and awaits the complete response. Cancelling the task resets the stream.
    /// Throws ``HTTP2ClientError``.
    public func send(_ request: HTTP2ClientRequest) async throws -> HTTP2Response {
        let handle = HTTP2ClientStream(connection: handler)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                start(request, handle: handle) { continuation.resume(with: $0) }
            }
        } onCancel: {
            handle.cancel()
        }
    }

    /// GOAWAY: no new requests; the connection closes once the requests in flight are done.
    /// Always queued on the loop, even when called there (see ``forceClose()``).
    public func close() {
        let handler = self.handler
        handler.eventLoop.execute { handler.value.close() }
    }

    /// Closes the connection now, without GOAWAY: requests in flight fail with `connectionClosed`,
    /// then the close handlers run. For when something other than TCP (a failed health check) says
    /// the server is gone. Any thread; always queued on the loop, even when called there, because
    /// it may be called from a completion that runs while the connection is in the middle of its
    /// own I/O, which must not have the socket closed under it.
    public func forceClose() {
        let handler = self.handler
        handler.eventLoop.execute { handler.value.forceClose() }
    }

    /// Registers `handler` to run once, on the connection's loop, when the connection closes for
    /// any reason (after the requests in flight have been failed). If it is already closed,
    /// `handler` runs right away: inline when called on the loop, else as soon as the loop gets
    /// to it (or inline, should the loop already have shut down, which closed the connection).
    /// Handlers run in the order they were registered.
    public func onClose(_ handler: @escaping @Sendable () -> Void) {
        if !self.handler.withValueOnLoop({ $0.whenClosed(handler) }) { handler() }
    }

    private func start(_ request: HTTP2ClientRequest, handle: HTTP2ClientStream,
                       completion: @escaping @Sendable (Result<HTTP2Response, HTTP2ClientError>) -> Void) {
        let queued = handler.withValueOnLoop { $0.submit(request, handle: handle, completion: completion) }
        if !queued {
            completion(.failure(HTTP2ClientError(code: .notConnected, message: "the client is shut down")))
        }
    }
}
