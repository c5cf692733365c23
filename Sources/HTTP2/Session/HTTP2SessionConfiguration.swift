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
    /// How many RST_STREAM frames a client may send (server only): a token bucket holding
    /// `burst` tokens, refilled at `perSecond`; a client that runs out gets GOAWAY (nghttp2's
    /// defence against "rapid reset", CVE-2023-44487). nghttp2's own default, 1,000 and 33/s,
    /// suits one browser, not a coordinator: it multiplexes every user's keystrokes over one
    /// connection per replica and resets each superseded one, hundreds a second when people type
    /// fast, so that default tore its connections down under load. The cost of a reset stream
    /// here is bounded anyway (a request is answered on the loop that reads it, and
    /// `maxConcurrentStreams` caps what is open at once).
    public var streamResetLimit = StreamResetLimit(burst: 20_000, perSecond: 5_000)
    /// Header values that arrive on most requests beyond the common ones (an RPC server's method
    /// paths): a received value equal to one of them shares its `String` instead of allocating a
    /// new one (a `String` of more than 15 UTF-8 bytes is a heap allocation).
    public var knownValues: [String] = [] {
        didSet { headerStrings = knownValues.isEmpty ? .shared : HeaderStrings(extra: knownValues) }
    }
    /// The look-up table of ``knownValues`` and the common strings: built once here, shared by
    /// every session of a server (a table per connection was some forty allocations per accept).
    private(set) var headerStrings = HeaderStrings.shared

    /// A token bucket for incoming RST_STREAM frames (see ``streamResetLimit``).
    public struct StreamResetLimit: Sendable, Equatable {
        public var burst: UInt64
        public var perSecond: UInt64
        public init(burst: UInt64, perSecond: UInt64) {
            self.burst = burst
            self.perSecond = perSecond
        }
    }

    public init() {}
}
