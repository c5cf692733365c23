/// What the client and server sessions share: one nghttp2 session (``SessionCore``) fed bytes
/// and drained of bytes, its settings, and the connection-level frames either side may send.
/// ``HTTP2ClientSession`` and ``HTTP2ServerSession`` add their role's requests or responses and
/// their own events.
///
/// Not thread-safe: one owner at a time.
public class HTTP2Session {
    let core: SessionCore

    init(role: SessionCore.Role, configuration: HTTP2SessionConfiguration, logger: HTTP2Logger) throws(HTTP2SessionError) {
        core = try SessionCore(role: role, configuration: configuration, logger: logger)
    }

    public var configuration: HTTP2SessionConfiguration { core.configuration }

    /// Processes bytes read from the peer. Throws only for connection-fatal errors (a bad
    /// preface, flooding); the owner then closes the connection.
    public func receive(_ bytes: UnsafeRawBufferPointer) throws(HTTP2SessionError) {
        try core.receive(bytes)
    }

    public func receive(_ bytes: [UInt8]) throws(HTTP2SessionError) {
        try core.receive(bytes)
    }

    /// Appends the bytes to send to `buffer` until there are none or `buffer.count >= limit`
    /// (overshooting by at most one frame). Returns the number of bytes appended.
    @discardableResult
    public func send(into buffer: inout [UInt8], limit: Int = .max) throws(HTTP2SessionError) -> Int {
        try core.send(into: &buffer, limit: limit)
    }

    /// nghttp2 still expects input (false once GOAWAY has been exchanged and streams are done).
    public var wantsRead: Bool { core.wantsRead }
    /// nghttp2 has frames to send.
    public var wantsWrite: Bool { core.wantsWrite }
    /// Streams the session is tracking (open, or awaiting their close).
    public var openStreamCount: Int { core.openStreamCount }

    /// RST_STREAM with `errorCode`.
    public func resetStream(streamID: Int32, errorCode: HTTP2ErrorCode) throws(HTTP2SessionError) {
        try core.resetStream(streamID: streamID, errorCode: errorCode)
    }

    /// GOAWAY naming the last stream processed: no new streams, open ones may finish.
    public func goAway(errorCode: HTTP2ErrorCode = .noError) throws(HTTP2SessionError) {
        try core.goAway(errorCode: errorCode)
    }
}
