internal import CHTTPParser

/// The request side of an HTTP/1.x server connection, sans-I/O: bytes in, complete requests out,
/// in order, as the same ``HTTP2Request`` an HTTP/2 stream produces. Parsing is libhttp-parser's
/// (Node.js's http-parser 2.9): this type only collects what its callbacks report, applies the
/// server's limits and maps the message onto ``HTTP2Request``.
///
///     let parser = HTTP1RequestParser(maxHeaderListSize: 16 << 10, maxBodySize: 4 << 20)
///     parser.receive(bytes)
///     parser.drainEvents { event in ... }
///
/// Mapping: the request target becomes `path` (an absolute-form target is split into `authority`
/// and `path`), `Host` becomes `authority`, header names are lowercased, and the fields that only
/// describe the HTTP/1.1 connection (`host`, `connection`, `keep-alive`, `proxy-connection`,
/// `transfer-encoding`, `upgrade`, `http2-settings`, `expect`) are left out, as an HTTP/2 client
/// would have; trailers of a chunked body become `trailers`. Each request gets the next odd stream
/// id (1, 3, 5, ...) so that handlers and logs see ids as on HTTP/2.
///
/// Limits: header bytes are counted as in HTTP/2 (name + value + 32 per field, the method and
/// target as `:method` and `:path`, trailers included) against `maxHeaderListSize`; the body
/// against `maxBodySize`, up front from `content-length`. `Upgrade` (h2c, websocket) and CONNECT
/// are not honoured: the request is delivered as a plain HTTP/1.1 request and parsing continues.
///
/// After a refusal, or after a request that ends the connection (`connection: close`, HTTP/1.0
/// without keep-alive), the parser stops and ignores whatever follows.
///
/// Ownership: one owner, one thread (the connection's loop). http_parser keeps an unretained
/// pointer to this object as `data`; that is sound because the parser struct is owned here,
/// freed in `deinit`, and only calls back synchronously from `http_parser_execute`, called here.
final class HTTP1RequestParser {
    enum Event {
        /// A complete request within the limits.
        case request(HTTP2Request, HTTP1RequestInfo)
        /// The headers of a request that sent `expect: 100-continue` are complete and within the
        /// limits; its body has not arrived yet. The owner may send `100 Continue`.
        case continueExpected
        /// The request cannot be served; answer with `refusal.status` and close. Last event.
        case refused(HTTP1Refusal)
    }

    let maxHeaderListSize: Int
    let maxBodySize: Int
    /// A refusal or a last request has been reported; input is ignored from now on.
    private(set) var isStopped = false
    /// Some bytes of a request arrived, but not yet the whole request.
    private(set) var isInsideRequest = false

    private let parser: UnsafeMutablePointer<http_parser>
    private var events: [Event] = []
    private var nextStreamID: Int32 = 1
    /// What a callback refused; it returned an error, making `http_parser_execute` stop.
    private var refusal: HTTP1Refusal?

    // The request being received. http_parser reports every string in pieces (as they cross
    // reads), so they accumulate here until the next element begins.
    private var target: [UInt8] = []
    private var fieldName: [UInt8] = []
    private var fieldValue: [UInt8] = []
    private var inFieldValue = false
    private var headersDone = false
    /// Requests whose head was begun, counted (tells one slow head from the next).
    private(set) var headsBegun = 0
    /// Inside a request whose line and headers are not complete yet.
    var isReadingHead: Bool { isInsideRequest && !headersDone && !isStopped }
    private var headers: [HTTP2HeaderField] = []
    private var trailers: [HTTP2HeaderField] = []
    private var authority = ""
    private var body: [UInt8] = []
    private var headerListSize = 0
    /// `expect: 100-continue` (the one expectation there is; the field itself is not kept).
    private var expectsContinue = false
    /// Host fields seen in this request's head (RFC 9112 §3.2: exactly one in HTTP/1.1).
    private var hostFields = 0
    /// The buffer being parsed, and the last bytes of the one before: how a value piece is seen
    /// to follow a folded line (see ``headerValue(_:)``).
    private var receiving: UnsafeRawBufferPointer?
    /// How the previous buffer ended, for a fold split across reads: nil, not after a line feed;
    /// else after one and only white space, and whether there was any. Not a copy of its bytes.
    private var tailAfterLineFeed: Bool?
    /// Why the head breaks RFC 9112 in a way a server must refuse (400), once it is complete.
    private var headViolation: String?

    init(maxHeaderListSize: Int, maxBodySize: Int) {
        self.maxHeaderListSize = maxHeaderListSize
        self.maxBodySize = maxBodySize
        parser = .allocate(capacity: 1)
        http_parser_init(parser, HTTP_REQUEST)
        parser.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit { parser.deallocate() }

    /// Parses `bytes` (any split: a request may arrive over many calls, many requests in one).
    func receive(_ bytes: UnsafeRawBufferPointer) {
        guard var cursor = bytes.baseAddress, bytes.count > 0 else { return }
        receiving = bytes
        defer {
            receiving = nil
            tailAfterLineFeed = Self.lineFeedBefore(bytes.count, in: bytes, carried: tailAfterLineFeed)
        }
        var remaining = bytes.count
        while remaining > 0, !isStopped {
            let consumed = withUnsafePointer(to: Self.settings) { settings in
                http_parser_execute(parser, settings, cursor.assumingMemoryBound(to: CChar.self), remaining)
            }
            cursor += consumed
            remaining -= consumed
            let code = http_errno(parser.pointee.http_errno)
            if code == HPE_PAUSED { return }  // paused by `finish` after the connection's last request
            if code != HPE_OK {
                if let refusal {
                    refuse(refusal)
                } else if code == HPE_HEADER_OVERFLOW {
                    // http_parser's own cap (80 KiB), reached before ours when ours is larger.
                    refuse(.headersTooLarge(limit: min(maxHeaderListSize, 80 << 10)))
                } else {
                    refuse(.malformed(String(cString: http_errno_description(code))))
                }
                return
            }
            if parser.pointee.upgrade != 0 {
                // http_parser stops after a request asking to switch protocols (Upgrade: h2c,
                // websocket; CONNECT), leaving the rest as "another protocol". We answered it as
                // plain HTTP/1.1, so the client goes on in HTTP/1.1: parse on.
                http_parser_init(parser, HTTP_REQUEST)
                continue
            }
            if consumed == 0 { break }
        }
    }

    /// Hands every pending event to `body`, in order, and forgets them.
    func drainEvents(_ body: (Event) throws -> Void) rethrows {
        let batch = events
        events.removeAll(keepingCapacity: true)
        for event in batch { try body(event) }
    }

    private func refuse(_ refusal: HTTP1Refusal) {
        guard !isStopped else { return }
        isStopped = true
        isInsideRequest = false
        events.append(.refused(refusal))
    }

    // MARK: Callbacks (inside http_parser_execute, see the type's documentation)

    /// Built once; http_parser reads it during each `http_parser_execute` and keeps no pointer.
    private static let settings: http_parser_settings = {
        var settings = http_parser_settings()
        http_parser_settings_init(&settings)
        settings.on_message_begin = { parser in owner(parser).messageBegin() }
        settings.on_url = { parser, at, length in owner(parser).url(bytes(at, length)) }
        settings.on_header_field = { parser, at, length in owner(parser).headerField(bytes(at, length)) }
        settings.on_header_value = { parser, at, length in owner(parser).headerValue(bytes(at, length)) }
        settings.on_headers_complete = { parser in owner(parser).headersComplete() }
        settings.on_body = { parser, at, length in owner(parser).bodyChunk(bytes(at, length)) }
        settings.on_message_complete = { parser in owner(parser).messageComplete() }
        return settings
    }()

    @inline(__always)
    private static func owner(_ parser: UnsafeMutablePointer<http_parser>?) -> HTTP1RequestParser {
        Unmanaged<HTTP1RequestParser>.fromOpaque(parser.unsafelyUnwrapped.pointee.data).takeUnretainedValue()
    }

    @inline(__always)
    private static func bytes(_ at: UnsafePointer<CChar>?, _ length: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: at, count: length)
    }

    /// Callbacks return 0 to go on, anything else (after setting `refusal`) to stop the parser.
    private static let proceed: Int32 = 0
    private static let stop: Int32 = -1

    private func messageBegin() -> Int32 {
        isInsideRequest = true
        headsBegun += 1
        target.removeAll(keepingCapacity: true)
        fieldName.removeAll(keepingCapacity: true)
        fieldValue.removeAll(keepingCapacity: true)
        inFieldValue = false
        headersDone = false
        headers = []
        trailers = []
        authority = ""
        body = []
        headerListSize = 0
        expectsContinue = false
        hostFields = 0
        headViolation = nil
        return Self.proceed
    }

    /// Counts `count` bytes of header material against the limit.
    private func countHeaderBytes(_ count: Int) -> Int32 {
        headerListSize += count
        guard headerListSize <= maxHeaderListSize else {
            refusal = .headersTooLarge(limit: maxHeaderListSize)
            return Self.stop
        }
        return Self.proceed
    }

    private func url(_ piece: UnsafeRawBufferPointer) -> Int32 {
        if target.isEmpty, countHeaderBytes(":path".utf8.count + 32) != Self.proceed { return Self.stop }
        target.append(contentsOf: piece)
        return countHeaderBytes(piece.count)
    }

    private func headerField(_ piece: UnsafeRawBufferPointer) -> Int32 {
        if inFieldValue {
            commitField()
        }
        if fieldName.isEmpty, countHeaderBytes(32) != Self.proceed { return Self.stop }
        // Lowercased as they arrive: handlers look fields up by lowercase name, as in HTTP/2.
        for byte in piece { fieldName.append(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) }
        return countHeaderBytes(piece.count)
    }

    private func headerValue(_ piece: UnsafeRawBufferPointer) -> Int32 {
        // A second piece of the same value that comes after a line feed and white space is an
        // obs-fold (http_parser joins folded lines silently); a piece split by the network is not.
        if inFieldValue, followsFold(piece) {
            headViolation = headViolation ?? "a header field folded over several lines (obs-fold)"
        }
        inFieldValue = true
        fieldValue.append(contentsOf: piece)
        return countHeaderBytes(piece.count)
    }

    /// Whether the bytes before `piece` (in this buffer, then the end of the previous one) are
    /// white space preceded by a line feed.
    private func followsFold(_ piece: UnsafeRawBufferPointer) -> Bool {
        guard let buffer = receiving, let start = piece.baseAddress, let base = buffer.baseAddress else { return false }
        // http_parser may hand the fold's white space over with the piece, or skip it.
        let leadingSpace = piece.first == 0x20 || piece.first == 0x09
        guard let sawSpace = Self.lineFeedBefore(start - base, in: buffer, carried: tailAfterLineFeed) else { return false }
        return leadingSpace || sawSpace
    }

    /// Whether the bytes before `offset` in `buffer` (then, past its start, the previous buffer's
    /// end as `carried` says) are a line feed followed by nothing but white space: nil if not,
    /// else whether there was any white space.
    private static func lineFeedBefore(_ offset: Int, in buffer: UnsafeRawBufferPointer, carried: Bool?) -> Bool? {
        var offset = offset
        var sawSpace = false
        while offset > 0 {
            offset -= 1
            let byte = buffer[offset]
            if byte == 0x20 || byte == 0x09 {
                sawSpace = true
                continue
            }
            return byte == 0x0A ? sawSpace : nil
        }
        return carried.map { sawSpace || $0 }
    }

    /// Ends the field being received: keeps it as a header or a trailer, or takes it apart.
    private func commitField() {
        defer {
            fieldName.removeAll(keepingCapacity: true)
            fieldValue.removeAll(keepingCapacity: true)
            inFieldValue = false
        }
        guard !fieldName.isEmpty else { return }
        // RFC 9112 §5.1: whitespace between a field name and its colon must be refused (a
        // proxy and a server reading "Host : x" differently is how requests get smuggled).
        if fieldName.contains(where: { $0 == 0x20 || $0 == 0x09 }) {
            headViolation = headViolation ?? "whitespace between a header field name and its colon"
        }
        // §5.2: a line folded onto the next (obs-fold) is refused rather than guessed at.
        if fieldValue.contains(where: { $0 == 0x0D || $0 == 0x0A }) {
            headViolation = headViolation ?? "a header field folded over several lines (obs-fold)"
        }
        let name = String(decoding: fieldName, as: UTF8.self)
        let value = String(decoding: fieldValue, as: UTF8.self)
        if headersDone {
            trailers.append((name, value))
            return
        }
        switch name {
        case "host":
            hostFields += 1
            if authority.isEmpty { authority = value }
        case "expect":
            expectsContinue = value.lowercased() == "100-continue"
        case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "http2-settings":
            break  // about this HTTP/1.1 connection (http_parser has read what matters), not the request
        default:
            headers.append((name, value))
        }
    }

    private func headersComplete() -> Int32 {
        commitField()
        headersDone = true
        if countHeaderBytes(":method".utf8.count + 32 + method.utf8.count) != Self.proceed { return Self.stop }
        let major = Int(parser.pointee.http_major)
        if major != 1 {
            refusal = .versionNotSupported(major: major)
            return Self.stop
        }
        // A minor version above 1 is read as HTTP/1.1 (RFC 9110 §2.5), Host rule included.
        let minor = Int(parser.pointee.http_minor)
        if headViolation == nil, minor >= 1, hostFields != 1 {
            headViolation = hostFields == 0 ? "an HTTP/1.1 request without a Host header" : "a request with \(hostFields) Host headers"
        }
        if let headViolation {
            refusal = .malformed(headViolation)
            return Self.stop
        }
        if headers.contains(where: { $0.name == "content-type" && $0.value.lowercased().hasPrefix("application/grpc") }) {
            refusal = .grpcNeedsHTTP2
            return Self.stop
        }
        let hasLength = parser.pointee.flags & UInt32(F_CONTENTLENGTH.rawValue) != 0
        let isChunked = parser.pointee.flags & UInt32(F_CHUNKED.rawValue) != 0
        let length = parser.pointee.content_length
        if hasLength, !isChunked {
            guard length <= UInt64(maxBodySize) else {
                refusal = .bodyTooLarge(limit: maxBodySize)
                return Self.stop
            }
            // Not all of it: a client could announce the limit on every connection and send
            // nothing. Beyond this the array grows as the body arrives.
            body.reserveCapacity(min(Int(length), 64 << 10))
        }
        if (hasLength && length > 0) || isChunked, expectsContinue {
            events.append(.continueExpected)
        }
        return Self.proceed
    }

    private var method: String { String(cString: http_method_str(http_method(UInt32(parser.pointee.method)))) }

    private func bodyChunk(_ piece: UnsafeRawBufferPointer) -> Int32 {
        guard body.count + piece.count <= maxBodySize else {
            refusal = .bodyTooLarge(limit: maxBodySize)
            return Self.stop
        }
        body.append(contentsOf: piece)
        return Self.proceed
    }

    private func messageComplete() -> Int32 {
        commitField()  // the last trailer of a chunked body
        isInsideRequest = false
        if case .continueExpected? = events.last {
            events.removeLast()  // the body came with the headers: too late to ask for it
        }
        let info = HTTP1RequestInfo(keepAlive: http_should_keep_alive(parser) != 0,
                                    isHead: parser.pointee.method == HTTP_HEAD.rawValue,
                                    isHTTP10: parser.pointee.http_minor == 0)
        var path = String(decoding: target, as: UTF8.self)
        var authority = self.authority
        if let absolute = Self.splitAbsoluteForm(target) {
            (authority, path) = absolute
        }
        let request = HTTP2Request(streamID: nextStreamID, method: method, path: path, authority: authority, scheme: "http",
                                   headers: headers, body: body, trailers: trailers)
        headers = []
        trailers = []
        body = []
        nextStreamID = nextStreamID >= Int32.max - 2 ? 1 : nextStreamID + 2
        events.append(.request(request, info))
        if !info.keepAlive {
            // The client's last request: pause the parser so that it reads nothing after it.
            isStopped = true
            http_parser_pause(parser, 1)
        }
        return Self.proceed
    }

    /// `http://host:port/path?query` (the absolute form, RFC 9112 §3.2.2, which proxies send and
    /// servers must accept) → (`host:port`, `/path?query`). http_parser has checked the target's
    /// syntax; what is left is to cut it at `://` and at the first `/` or `?` after it.
    static func splitAbsoluteForm(_ target: [UInt8]) -> (authority: String, path: String)? {
        guard let first = target.first, first != UInt8(ascii: "/"), first != UInt8(ascii: "*") else { return nil }
        let separator = Array("://".utf8)
        guard let schemeEnd = target.indices.first(where: { target[$0...].starts(with: separator) }) else { return nil }
        let hostStart = schemeEnd + separator.count
        let pathStart = target[hostStart...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? target.endIndex
        let authority = String(decoding: target[hostStart..<pathStart], as: UTF8.self)
        var path = String(decoding: target[pathStart...], as: UTF8.self)
        if !path.hasPrefix("/") { path = "/" + path }
        return (authority, path)
    }
}
