/// Limits and settings shared by server and client sessions. The SETTINGS values are announced to
/// the peer in the first SETTINGS frame; the size limits are enforced locally.
public struct HTTP2SessionConfiguration: Sendable {
    /// SETTINGS_MAX_CONCURRENT_STREAMS we allow the peer to open (server). nghttp2 refuses streams
    /// beyond it with RST_STREAM.
    public var maxConcurrentStreams: UInt32 = 100
    /// SETTINGS_INITIAL_WINDOW_SIZE for each stream; the connection window is raised to the same
    /// value. Larger windows let a peer send more before we must read; 1 MiB keeps one stream from
    /// being latency-bound on a LAN while bounding what a stream can make us buffer.
    public var initialWindowSize: UInt32 = 1 << 20
    /// SETTINGS_MAX_HEADER_LIST_SIZE, also enforced on what we receive: a larger header list
    /// (headers plus trailers) rejects the stream (``HTTP2StreamRejection/headerListTooLarge(limit:)``).
    public var maxHeaderListSize: UInt32 = 16 << 10
    /// The largest request body (server) or response body (client) accumulated for one stream;
    /// beyond it the stream is rejected (``HTTP2StreamRejection/bodyTooLarge(limit:)``).
    public var maxBodySize: Int = 4 << 20

    public init() {}
}
