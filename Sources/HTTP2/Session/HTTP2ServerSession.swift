/// A sans-I/O HTTP/2 server connection: feed it the bytes read from a client, drain the events it
/// produces, answer requests through its response methods, and send the bytes it produces.
///
///     let session = try HTTP2ServerSession()
///     try session.receive(bytesFromClient)
///     session.drainEvents { event in
///         if case .request(let request) = event {
///             try? session.respond(streamID: request.streamID, status: 200, body: Array("hi".utf8))
///         }
///     }
///     var out: [UInt8] = []
///     try session.send(into: &out)   // write `out` to the client
///
/// Not thread-safe: one owner at a time (in the server, the connection's event-loop thread).
/// Responding has two shapes: all at once (``respond(streamID:status:headers:body:trailers:)``)
/// or in parts (``sendHeaders(streamID:status:headers:endStream:)``, ``sendBody(streamID:_:endStream:)``,
/// ``finish(streamID:trailers:)``). Body bytes are queued per stream and handed to nghttp2 as flow
/// control allows; ``send(into:limit:)`` stops at `limit`, which is where a caller applies
/// backpressure from the socket.
public final class HTTP2ServerSession: HTTP2Session {
    public enum Event: Sendable {
        /// A complete request (END_STREAM received) within the configured limits.
        case request(HTTP2Request)
        /// A request broke a limit. The stream is still open: answer it (e.g. 413/431, or gRPC
        /// RESOURCE_EXHAUSTED) or reset it. Once the answer ends, the session resets the stream with
        /// NO_ERROR if the client is still sending.
        case requestRejected(streamID: Int32, reason: HTTP2StreamRejection, request: HTTP2RejectedRequest)
        /// The stream closed. `errorCode` is `.noError` for a normal end, else the RST_STREAM code
        /// (sent by the peer or by us). After this, writes to the stream fail.
        case streamClosed(streamID: Int32, errorCode: HTTP2ErrorCode)
        /// The peer sent GOAWAY.
        case goAway(lastStreamID: Int32, errorCode: HTTP2ErrorCode)
    }

    public init(configuration: HTTP2SessionConfiguration = .init(), logger: HTTP2Logger = .disabled) throws(HTTP2SessionError) {
        try super.init(role: .server, configuration: configuration, logger: logger)
    }

    /// Hands every pending event to `body`, in order, and forgets them. Responding from inside
    /// `body` is allowed.
    public func drainEvents(_ body: (Event) throws -> Void) rethrows {
        try core.drainEvents { event in
            switch event {
            case .request(let request): try body(.request(request))
            case .rejected(let id, let reason, let request): try body(.requestRejected(streamID: id, reason: reason, request: request))
            case .streamClosed(let id, let code): try body(.streamClosed(streamID: id, errorCode: code))
            case .goAway(let last, let code): try body(.goAway(lastStreamID: last, errorCode: code))
            case .response: break  // client role only
            }
        }
    }


    // MARK: Responding

    public func sendHeaders(streamID: Int32, status: Int, headers: [HTTP2HeaderField] = [],
                            endStream: Bool = false) throws(HTTP2SessionError) {
        try core.submitResponse(streamID: streamID, status: status, headers: headers, endStream: endStream)
    }

    public func sendBody(streamID: Int32, _ bytes: [UInt8], endStream: Bool = false) throws(HTTP2SessionError) {
        try core.appendBody(streamID: streamID, bytes, endStream: endStream)
    }

    /// Ends the response, with trailers if any (gRPC's `grpc-status` goes here).
    public func finish(streamID: Int32, trailers: [HTTP2HeaderField] = []) throws(HTTP2SessionError) {
        try core.finish(streamID: streamID, trailers: trailers)
    }

    /// A whole response: HEADERS, DATA (if `body` is not empty), trailers (if any).
    public func respond(streamID: Int32, status: Int, headers: [HTTP2HeaderField] = [], body: [UInt8] = [],
                        trailers: [HTTP2HeaderField] = []) throws(HTTP2SessionError) {
        if body.isEmpty, trailers.isEmpty {
            try core.submitResponse(streamID: streamID, status: status, headers: headers, endStream: true)
            return
        }
        try core.submitResponse(streamID: streamID, status: status, headers: headers, endStream: false)
        try core.appendBody(streamID: streamID, body, endStream: false)
        try core.finish(streamID: streamID, trailers: trailers)
    }

    /// GOAWAY with `errorCode`, ending the session: nothing more is read or processed.
    public func terminate(errorCode: HTTP2ErrorCode) throws(HTTP2SessionError) {
        try core.terminate(errorCode: errorCode)
    }

    /// Whether a request's header block began since the last call (cleared by asking).
    public func takeHeadsBegun() -> Bool {
        defer { core.headsBegun = false }
        return core.headsBegun
    }

    /// When the oldest request header block still incomplete began (monotonic ns), if any.
    public var oldestIncompleteHead: UInt64? { core.oldestIncompleteHead() }
}
