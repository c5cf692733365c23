import Synchronization

/// Completes one request, from any thread, any time after the handler was called; and tells the
/// handler when the request was cancelled.
///
/// Every method hops to the connection's event loop (or runs inline when already there, so a
/// response written on ``eventLoop`` costs no hop); calls are applied in the order they were made
/// from one thread. Writes after the response ended, or after the stream closed, are ignored. A
/// response is ended by `respond`, by `sendHeaders(..., endStream: true)`, `sendBody(...,
/// endStream: true)`, `finish` or `reset`.
///
/// The same type answers requests that arrived over HTTP/1.1 (the server's fallback, see
/// ``HTTP2Server``), so handlers need not know which protocol a client spoke. There, `respond`
/// sends `content-length` and drops trailers (the whole body is known; HTTP/1.1 has no trailers
/// without chunked encoding), a response started with `sendHeaders` is sent chunked (trailers go
/// into the last chunk), `reset` closes the connection (HTTP/1.1 has no way to abandon one
/// response and keep the connection), and ``streamID`` is an odd number the connection assigns
/// per request (1, 3, 5, ...). Framing headers (`content-length`, `transfer-encoding`,
/// `connection`) are the transport's: the handler's own are not sent.
public final class HTTP2Responder: Sendable {
    /// The request's stream.
    public let streamID: Int32
    private let connection: ResponseTarget

    private struct State {
        var ended = false
        var cancelled = false
        var cancelHandlers: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    init(streamID: Int32, connection: ResponseTarget) {
        self.streamID = streamID
        self.connection = connection
    }

    /// The responder of a call made in the same process, without a connection: an in-process
    /// transport hands it to a handler so the handler sees the loop it runs on and learns of
    /// cancellation exactly as over HTTP/2. Writes to it are dropped (the transport carries the
    /// handler's reply itself); ``cancel()`` plays the caller going away.
    public static func inProcess(on loop: HTTP2EventLoop, streamID: Int32 = 1) -> HTTP2Responder {
        HTTP2Responder(streamID: streamID, connection: .inProcess(loop))
    }

    /// The caller of an in-process call went away (it was superseded, or its deadline passed):
    /// the call counts as cancelled and its cancellation handlers run, on the calling thread. Only
    /// for responders made by ``inProcess(on:streamID:)``; a connection's responders learn of a
    /// reset from their stream (a precondition checks it).
    public func cancel() {
        guard case .inProcess = connection else { preconditionFailure("HTTP2Responder.cancel() is for in-process responders") }
        streamClosed()
    }

    /// The loop that owns the request's connection: the handler is called on it, cancellation
    /// handlers run on it, and writes made on it apply inline. Continue the request's work there
    /// (backend connections of the same ``HTTP2EventLoopGroup``, timers) to stay on one thread.
    public var eventLoop: HTTP2EventLoop { connection.eventLoop }

    /// True once the stream closed before the response ended: the client reset it (RST_STREAM),
    /// the connection closed (over HTTP/1.1: the client closed it, or half-closed it, mid-request),
    /// or the server shut down past its grace period.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Registers `handler` to run once on cancellation (on the loop thread), or right away on the
    /// caller's thread if the request is already cancelled. Never runs after the response ended.
    public func onCancel(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.cancelled { return true }
            if !state.ended { state.cancelHandlers.append(handler) }
            return false
        }
        if runNow { handler() }
    }

    /// The whole response at once: HEADERS, body (if not empty), trailers (if any).
    public func respond(status: Int, headers: [HTTP2HeaderField] = [], body: [UInt8] = [],
                        trailers: [HTTP2HeaderField] = []) {
        submit(.whole(status: status, headers: headers, body: body, trailers: trailers), ends: true)
    }

    /// Starts a response; without `endStream`, follow with `sendBody` and/or `finish`.
    public func sendHeaders(status: Int, headers: [HTTP2HeaderField] = [], endStream: Bool = false) {
        submit(.head(status: status, headers: headers, endStream: endStream), ends: endStream)
    }

    /// Queues body bytes (sent as the client's flow-control window allows).
    public func sendBody(_ bytes: [UInt8], endStream: Bool = false) {
        submit(.body(bytes, endStream: endStream), ends: endStream)
    }

    /// Ends the response, with trailers if any.
    public func finish(trailers: [HTTP2HeaderField] = []) {
        submit(.finish(trailers: trailers), ends: true)
    }

    /// Abandons the response with RST_STREAM (over HTTP/1.1: closes the connection).
    public func reset(_ errorCode: HTTP2ErrorCode = .internalError) {
        submit(.reset(errorCode), ends: true)
    }

    private func submit(_ part: ResponsePart, ends: Bool) {
        let proceed = state.withLock { state -> Bool in
            if state.ended || state.cancelled { return false }
            if ends {
                state.ended = true
                state.cancelHandlers = []
            }
            return true
        }
        guard proceed else { return }
        connection.write(streamID: streamID, part)
    }

    /// Called by the connection (loop thread) when the stream closed.
    func streamClosed() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            if state.ended || state.cancelled { return [] }
            state.cancelled = true
            defer { state.cancelHandlers = [] }
            return state.cancelHandlers
        }
        for handler in handlers { handler() }
    }

    /// Whether the handler has ended the response (loop thread, for statistics).
    var isEnded: Bool { state.withLock { $0.ended } }
}
