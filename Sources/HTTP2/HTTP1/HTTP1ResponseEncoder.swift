internal import CHTTPParser

/// The head of an HTTP/1.1 response as the connection decided it: the handler's status and fields
/// plus the framing and connection fields, which are the transport's to choose.
struct HTTP1ResponseHead {
    /// How the body is delimited.
    enum Length {
        /// `content-length: n`.
        case fixed(Int)
        /// `transfer-encoding: chunked`.
        case chunked
        /// No framing field: no body (204, 304, 1xx), or one that ends when the connection closes
        /// (an HTTP/1.0 client, which knows no chunks).
        case unframed
    }

    /// What to say about the connection.
    enum Persistence {
        /// Nothing: HTTP/1.1 keeps the connection by default.
        case implicit
        /// `connection: keep-alive`, which an HTTP/1.0 client needs to hear.
        case keepAlive
        /// `connection: close`: this is the last response.
        case close
    }

    var status: Int
    var headers: [HTTP2HeaderField]
    var length: Length
    var persistence: Persistence
}

/// Serialises HTTP/1.1 responses: heads, chunks, the last chunk with trailers, and the complete
/// answers the transport gives on its own (refusals). Pure functions over bytes, so the framing is
/// tested without a socket.
enum HTTP1ResponseEncoder {
    /// The interim answer to `expect: 100-continue`.
    static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    static let crlf: [UInt8] = [0x0D, 0x0A]

    /// Fields a handler may not set: they frame the body or manage the connection, which only the
    /// transport knows how to do (and HTTP/2 forbids them in responses anyway).
    private static let transportFields: Set<String> = [
        "content-length", "transfer-encoding", "connection", "keep-alive", "proxy-connection", "upgrade",
    ]

    static func encode(_ head: HTTP1ResponseHead) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128 + head.headers.count * 48)
        out.append(contentsOf: "HTTP/1.1 \(head.status) \(reasonPhrase(head.status))\r\n".utf8)
        for field in head.headers where isSendable(field) {
            out.append(contentsOf: field.name.utf8)
            out.append(contentsOf: ": ".utf8)
            out.append(contentsOf: field.value.utf8)
            out.append(contentsOf: crlf)
        }
        switch head.length {
        case .fixed(let count): out.append(contentsOf: "content-length: \(count)\r\n".utf8)
        case .chunked: out.append(contentsOf: "transfer-encoding: chunked\r\n".utf8)
        case .unframed: break
        }
        switch head.persistence {
        case .implicit: break
        case .keepAlive: out.append(contentsOf: "connection: keep-alive\r\n".utf8)
        case .close: out.append(contentsOf: "connection: close\r\n".utf8)
        }
        out.append(contentsOf: crlf)
        return out
    }

    /// The line that starts a chunk of `count` bytes (`count` > 0: an empty chunk would end the body).
    static func chunkStart(_ count: Int) -> [UInt8] { Array((String(count, radix: 16) + "\r\n").utf8) }

    /// The last chunk, the trailer fields, and the blank line that ends a chunked body.
    static func lastChunk(trailers: [HTTP2HeaderField]) -> [UInt8] {
        var out: [UInt8] = Array("0\r\n".utf8)
        for field in trailers where isSendable(field) {
            out.append(contentsOf: "\(field.name): \(field.value)\r\n".utf8)
        }
        out.append(contentsOf: crlf)
        return out
    }

    /// The transport's own answer to a request it refuses: plain text, then the connection closes.
    static func refusal(_ refusal: HTTP1Refusal) -> [UInt8] {
        let body = Array((refusal.description + "\n").utf8)
        var out = encode(HTTP1ResponseHead(status: refusal.status, headers: [("content-type", "text/plain")],
                                           length: .fixed(body.count), persistence: .close))
        out.append(contentsOf: body)
        return out
    }

    /// A status without a body by definition (RFC 9110 §6.4.1): 1xx, 204, 304.
    static func forbidsBody(_ status: Int) -> Bool { (100..<200).contains(status) || status == 204 || status == 304 }

    /// http_parser's phrase for the status (`OK`, `Not Found`); empty for one it does not know, which
    /// HTTP/1.1 allows (clients ignore the phrase).
    static func reasonPhrase(_ status: Int) -> String {
        guard (100...999).contains(status) else { return "" }
        let phrase = String(cString: http_status_str(http_status(UInt32(status))))
        return phrase == "<unknown>" ? "" : phrase
    }

    /// Not a framing or connection field, and free of CR, LF and NUL: a value carrying a line
    /// break would let whoever chose it write fields (or a whole response) of their own.
    private static func isSendable(_ field: HTTP2HeaderField) -> Bool {
        if field.name.isEmpty || transportFields.contains(field.name.lowercased()) { return false }
        return !field.name.utf8.contains(where: isLineBreakOrNUL) && !field.value.utf8.contains(where: isLineBreakOrNUL)
    }

    private static func isLineBreakOrNUL(_ byte: UInt8) -> Bool { byte == 0x0D || byte == 0x0A || byte == 0 }
}
