/// What an HTTP/1.x request needs beyond ``HTTP2Request`` to be answered over HTTP/1.1.
struct HTTP1RequestInfo: Sendable, Equatable {
    /// The connection stays open after the response (HTTP/1.1 without `connection: close`, or
    /// HTTP/1.0 with `connection: keep-alive`).
    var keepAlive: Bool
    /// A HEAD request: the response carries the headers of a GET but no body.
    var isHead: Bool
    /// HTTP/1.0, which knows no chunked encoding: a response of unknown length ends at close.
    var isHTTP10: Bool
}

/// Why a request is answered by the transport itself (never reaching the handler), after which the
/// connection closes: the rest of what the client sent cannot be trusted to be in step.
enum HTTP1Refusal: Error, Equatable, CustomStringConvertible {
    /// Not HTTP/1.x (the parser's description, e.g. "invalid HTTP method").
    case malformed(String)
    /// The request line and headers (or trailers) exceed the limit, counted as in HTTP/2.
    case headersTooLarge(limit: Int)
    /// The body exceeds the limit (known from `content-length`, or while chunks arrive).
    case bodyTooLarge(limit: Int)
    /// gRPC needs HTTP/2 (trailers, and streams that outlive one request each way).
    case grpcNeedsHTTP2
    /// An HTTP major version other than 1 in the request line.
    case versionNotSupported(major: Int)
    /// The request line and headers did not arrive within the server's request-head timeout
    /// (a client trickling them, slowloris-style, would otherwise hold the connection forever).
    case headTimeout(seconds: Int)

    /// 400, 431, 413; 505 for gRPC and other versions (see the README: gRPC over HTTP/1.1 is not a
    /// thing, and 505 says "this version, not this request" without inviting an `Upgrade`, which
    /// the server ignores, as 426 would).
    var status: Int {
        switch self {
        case .malformed: 400
        case .headersTooLarge: 431
        case .bodyTooLarge: 413
        case .grpcNeedsHTTP2, .versionNotSupported: 505
        case .headTimeout: 408
        }
    }

    var description: String {
        switch self {
        case .malformed(let reason): "malformed HTTP/1.1 request: \(reason)"
        case .headersTooLarge(let limit): "request headers larger than \(limit) bytes"
        case .bodyTooLarge(let limit): "request body larger than \(limit) bytes"
        case .grpcNeedsHTTP2: "gRPC needs HTTP/2: use a gRPC client (HTTP/2 with prior knowledge)"
        case .versionNotSupported(let major): "HTTP/\(major) is not supported over this connection"
        case .headTimeout(let seconds): "the request line and headers did not arrive within \(seconds) s"
        }
    }
}
