/// A request for ``HTTP2ClientConnection/send(_:completion:)``.
public struct HTTP2ClientRequest: Sendable {
    public var method: String
    /// `:path`, with the query string.
    public var path: String
    /// `:authority`; nil uses the connection's `host:port`.
    public var authority: String?
    public var headers: [HTTP2HeaderField]
    public var body: [UInt8]

    public init(method: String = "GET", path: String, authority: String? = nil, headers: [HTTP2HeaderField] = [],
                body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.authority = authority
        self.headers = headers
        self.body = body
    }
}
