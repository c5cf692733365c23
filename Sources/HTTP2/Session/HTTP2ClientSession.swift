/// A sans-I/O HTTP/2 client connection (h2c, prior knowledge): submit requests, feed it the bytes
/// read from the server, drain events, send the bytes it produces (the first ones are the
/// connection preface and SETTINGS).
///
/// Not thread-safe: one owner at a time. Many requests may be outstanding; nghttp2 queues those
/// beyond the server's MAX_CONCURRENT_STREAMS and sends them as streams close.
public final class HTTP2ClientSession: HTTP2Session {
    public enum Event: Sendable {
        /// A complete response (END_STREAM received).
        case response(HTTP2Response)
        /// A response broke a limit; the session has already reset the stream (CANCEL).
        case responseRejected(streamID: Int32, reason: HTTP2StreamRejection)
        /// The stream closed: `.noError` after a complete exchange, otherwise the reset code.
        /// `.refusedStream` means the server did not process the request (safe to retry).
        case streamClosed(streamID: Int32, errorCode: HTTP2ErrorCode)
        /// The server sent GOAWAY; streams above `lastStreamID` close with `.refusedStream`.
        case goAway(lastStreamID: Int32, errorCode: HTTP2ErrorCode)
    }

    public init(configuration: HTTP2SessionConfiguration = .init(), logger: HTTP2Logger = .disabled) throws(HTTP2SessionError) {
        try super.init(role: .client, configuration: configuration, logger: logger)
    }

    /// Submits a request and returns its stream id. Nothing is sent until ``send(into:limit:)``.
    /// `authority` must not be empty (nghttp2 servers refuse requests without `:authority`).
    public func sendRequest(method: String = "GET", scheme: String = "http", authority: String = "localhost",
                            path: String, headers: [HTTP2HeaderField] = [],
                            body: [UInt8] = []) throws(HTTP2SessionError) -> Int32 {
        try core.submitRequest(method: method, scheme: scheme, authority: authority, path: path,
                               headers: headers, body: body)
    }

    public func drainEvents(_ body: (Event) throws -> Void) rethrows {
        try core.drainEvents { event in
            switch event {
            case .response(let response): try body(.response(response))
            case .rejected(let id, let reason, _): try body(.responseRejected(streamID: id, reason: reason))
            case .streamClosed(let id, let code): try body(.streamClosed(streamID: id, errorCode: code))
            case .goAway(let last, let code): try body(.goAway(lastStreamID: last, errorCode: code))
            case .request: break  // server role only
            }
        }
    }
}
