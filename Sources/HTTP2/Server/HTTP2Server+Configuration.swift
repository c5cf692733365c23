extension HTTP2Server {
    /// How the server listens, how many threads it runs, and the limits it enforces.
    public struct Configuration: Sendable {
        /// A numeric IPv4 or IPv6 address to bind (`"127.0.0.1"`, `"0.0.0.0"`, `"::"`).
        public var host: String = "127.0.0.1"
        /// The port; 0 binds an ephemeral port (``HTTP2Server/start()`` returns it).
        public var port: Int = 0
        /// Event-loop threads; connections are spread over them round robin.
        public var threadCount: Int = onlineProcessorCount()
        /// Per-connection HTTP/2 settings and request limits. The limits (`maxHeaderListSize`,
        /// `maxBodySize`) apply to HTTP/1.1 requests too, and `maxConcurrentStreams` bounds how many
        /// pipelined HTTP/1.1 requests queue before the server stops reading.
        public var session = HTTP2SessionConfiguration()
        /// Connections beyond this are accepted and closed at once (refused).
        public var maxConnections: Int = 10_000
        /// A connection with no open stream and no I/O for this long is sent GOAWAY and closed (an
        /// HTTP/1.1 connection with no request in flight is closed; one that has sent nothing at
        /// all, whatever its protocol, too).
        public var idleTimeout: Duration = .seconds(60)
        /// How long a request's head may take to arrive: an HTTP/1.1 request line and headers
        /// (then 408 and close), an HTTP/2 HEADERS block with its CONTINUATIONs (then GOAWAY
        /// ENHANCE_YOUR_CALM and close). The idle timeout restarts with every byte; this does not,
        /// so a client trickling a head (slowloris) cannot hold a connection slot for long.
        public var requestHeadTimeout: Duration = .seconds(10)
        /// The per-connection output cap: at most this many serialized bytes (plus one frame) wait
        /// for the socket. While the socket refuses output, nothing more is serialized and reading
        /// from that connection pauses until the output drains (see `Channel`).
        public var outputLimit: Int = 256 << 10
        /// TLS on every connection (HTTPS; ALPN `h2` and `http/1.1`), or nil for cleartext.
        public var tls: HTTP2TLSContext?
        /// listen(2) backlog.
        public var backlog: Int32 = 511
        /// Where the server's diagnostics go.
        public var logger: HTTP2Logger = .disabled
        /// Answers an HTTP/2 request the session rejected (too large), given what was known of it
        /// (its path and content type, so a server can answer each kind of client in its own form).
        /// The default answers 413 (body) or 431 (headers) with no body; a gRPC server answers 200
        /// with `grpc-status: 8` (RESOURCE_EXHAUSTED) in a trailers-only response to gRPC calls.
        /// Not called for HTTP/1.1 requests: those get a plain-text 413/431 from the transport,
        /// then the connection closes (a gRPC-style answer means nothing without HTTP/2 trailers).
        public var rejectionHandler: @Sendable (HTTP2StreamRejection, HTTP2RejectedRequest, HTTP2Responder) -> Void = { rejection, _, responder in
            switch rejection {
            case .bodyTooLarge: responder.respond(status: 413)
            case .headerListTooLarge: responder.respond(status: 431)
            }
        }

        public init() {}
    }

    /// A snapshot of the server's connections (gathered from every loop).
    public struct Statistics: Sendable {
        /// Connections currently open.
        public var openConnections: Int
        /// Requests delivered to the handler and not yet completed or cancelled.
        public var activeRequests: Int
        /// Serialized bytes waiting for the socket, summed over connections.
        public var pendingOutputBytes: Int
        /// The largest output buffer any open connection has held.
        public var peakPendingOutputBytes: Int
        /// Open connections whose reading is paused by backpressure.
        public var connectionsWithReadingPaused: Int
    }
}
