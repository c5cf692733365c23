#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `String`s of header names and values that arrive on every request, made once.
///
/// Why: every request carries the same few fields (`content-type: application/grpc`, `te:
/// trailers`, `:method: POST`, a client's `user-agent`), and a Swift `String` of more than 15
/// UTF-8 bytes is a heap allocation. Matching the received bytes against this short list (by
/// length first, then `memcmp`) hands out the one shared copy instead; anything else is made
/// as before. A server adds its own (``HTTP2SessionConfiguration/knownValues``).
struct HeaderStrings: Sendable {
    private static let common: [String] = [
        // Pseudo-header values.
        "GET", "POST", "HEAD", "http", "https", "200",
        // Names.
        "content-type", "te", "user-agent", "grpc-timeout", "grpc-encoding", "grpc-accept-encoding",
        "grpc-status", "grpc-message", "x-request-id", "authorization", "accept", "accept-encoding",
        "content-length", "connect-timeout-ms", "connect-protocol-version", "grpc-status-details-bin",
        // Values.
        "application/grpc", "application/grpc+proto", "application/json", "trailers", "identity", "gzip",
        "identity,deflate,gzip", "0", "*/*",
    ]

    /// The common strings alone: what a session without ``HTTP2SessionConfiguration/knownValues`` uses.
    static let shared = HeaderStrings(extra: [])

    /// The strings by UTF-8 length: the few candidates a received field is compared with.
    private let byLength: [[(bytes: [UInt8], string: String)]]

    /// The common strings and `extra` (a server's method paths, say: every request carries one,
    /// and a path is longer than the 15 bytes a `String` holds inline).
    init(extra: [String]) {
        let all = Self.common + extra
        var table = [[(bytes: [UInt8], string: String)]](repeating: [], count: (all.map(\.utf8.count).max() ?? 0) + 1)
        for string in all where !table[string.utf8.count].contains(where: { $0.string == string }) {
            table[string.utf8.count].append((Array(string.utf8), string))
        }
        byLength = table
    }

    /// The shared `String` for `bytes` if it is a known one, else a new one.
    func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        if bytes.count < byLength.count, let base = bytes.baseAddress {
            for candidate in byLength[bytes.count] where candidate.bytes.withUnsafeBufferPointer({ memcmp($0.baseAddress!, base, bytes.count) == 0 }) {
                return candidate.string
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
