/// One header field. Names are lowercase on the wire (HTTP/2 requires it); names given to this
/// module are lowercased (ASCII) when they are encoded.
public typealias HTTP2HeaderField = (name: String, value: String)

/// A complete request as the server received it: pseudo-headers taken apart, regular header fields
/// in arrival order, and the whole body (bounded by ``HTTP2SessionConfiguration/maxBodySize``).
public struct HTTP2Request: Sendable {
    /// The stream the request arrived on (odd, client-initiated).
    public var streamID: Int32
    /// `:method`.
    public var method: String
    /// `:path`, including the query string.
    public var path: String
    /// `:authority`, or `""` when the client sent none.
    public var authority: String
    /// `:scheme` (`"http"` for h2c).
    public var scheme: String
    /// Regular header fields in arrival order (no pseudo-headers).
    public var headers: [HTTP2HeaderField]
    /// The request body, concatenated from all DATA frames.
    public var body: [UInt8]
    /// Trailer fields, when the client sent any after the body.
    public var trailers: [HTTP2HeaderField]

    public init(
        streamID: Int32, method: String, path: String, authority: String = "", scheme: String = "http",
        headers: [HTTP2HeaderField] = [], body: [UInt8] = [], trailers: [HTTP2HeaderField] = []
    ) {
        self.streamID = streamID
        self.method = method
        self.path = path
        self.authority = authority
        self.scheme = scheme
        self.headers = headers
        self.body = body
        self.trailers = trailers
    }

    /// The value of the first header field named `name` (compare lowercase).
    public func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
}

/// A complete response as the client received it.
public struct HTTP2Response: Sendable {
    public var streamID: Int32
    /// `:status` of the final (non-1xx) response.
    public var status: Int
    public var headers: [HTTP2HeaderField]
    public var body: [UInt8]
    /// Trailer fields (gRPC puts `grpc-status` here).
    public var trailers: [HTTP2HeaderField]

    public init(streamID: Int32, status: Int, headers: [HTTP2HeaderField] = [], body: [UInt8] = [],
                trailers: [HTTP2HeaderField] = []) {
        self.streamID = streamID
        self.status = status
        self.headers = headers
        self.body = body
        self.trailers = trailers
    }

    public func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }
    public func trailer(_ name: String) -> String? { trailers.first { $0.name == name }?.value }
}

/// What a server session knew of a request when it refused it: the pseudo-headers and the content
/// type, when they had arrived (a header block over the limit may be cut before them).
public struct HTTP2RejectedRequest: Sendable, Equatable {
    public var method: String
    public var path: String
    public var contentType: String?

    public init(method: String, path: String, contentType: String?) {
        self.method = method
        self.path = path
        self.contentType = contentType
    }
}

/// Why a session refused to deliver a request (server) or a response (client) on one stream.
/// The connection stays up; only that stream is affected.
public enum HTTP2StreamRejection: Sendable, Equatable, CustomStringConvertible {
    /// The header list exceeded ``HTTP2SessionConfiguration/maxHeaderListSize`` (sizes as in
    /// RFC 9113 §6.5.2: name + value + 32 per field, summed over headers and trailers).
    case headerListTooLarge(limit: Int)
    /// The body exceeded ``HTTP2SessionConfiguration/maxBodySize``. The rest of it is discarded
    /// (flow-control credit is still returned so the connection does not stall).
    case bodyTooLarge(limit: Int)

    public var description: String {
        switch self {
        case .headerListTooLarge(let limit): return "header list larger than \(limit) bytes"
        case .bodyTooLarge(let limit): return "body larger than \(limit) bytes"
        }
    }
}
