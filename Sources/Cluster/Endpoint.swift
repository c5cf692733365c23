/// A `host:port` address (a name or a numeric IPv4/IPv6 address; IPv6 in brackets).
public struct Endpoint: Sendable, Hashable, CustomStringConvertible, Comparable {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `host:port` or `[v6]:port`; nil when malformed or the port is outside 1…65535.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(" ") else { return nil }
        self.init(host: host, port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    public static func < (a: Endpoint, b: Endpoint) -> Bool { (a.host, a.port) < (b.host, b.port) }
}
