/// The HTTP/1.1 response being written for one request: turns the responder's calls
/// (``ResponsePart``) into bytes, choosing the framing the calls allow. No I/O: the connection
/// owns one per request in flight (on its loop) and hands the bytes to its channel; tests apply
/// parts and read the bytes.
///
/// Framing: a whole response (`respond`) goes out with `content-length` (its trailers are
/// dropped: they would need chunked encoding, and gRPC, their one user, is refused over
/// HTTP/1.1); a response started with `sendHeaders` is chunked, its trailers in the last chunk;
/// HTTP/1.0 has no chunks, so there the body is unframed and ends with the connection; HEAD,
/// 1xx, 204 and 304 carry no body (a HEAD's `content-length` is the one a GET would get).
struct HTTP1Response {
    /// How body bytes are written once the head is out.
    enum Body: Equatable {
        /// The head went out with `content-length`: the whole body is written with it.
        case whole
        case chunked
        /// Written as they come; the connection's close ends them (HTTP/1.0).
        case raw
        /// Not written (HEAD, 1xx, 204, 304).
        case discarded
    }

    /// What a call meant for the response.
    enum Outcome: Equatable {
        /// More calls are expected.
        case open
        /// The response is completely encoded.
        case complete
        /// The calls cannot make an HTTP/1.1 response (a body before the head, a second head, a
        /// reset): the connection must end after what was written, which the client sees as a
        /// response cut short.
        case invalid(String)
    }

    let info: HTTP1RequestInfo
    /// Nil until the head has been written.
    private(set) var body: Body?
    /// The head said `connection: close`: the connection ends after this response.
    private(set) var closesConnection = false

    init(for info: HTTP1RequestInfo) { self.info = info }

    /// Encodes `part` into `output`. `lastOnConnection`: the server is shutting down, so a head not
    /// yet written says `connection: close`.
    mutating func apply(_ part: ResponsePart, lastOnConnection: Bool, into output: inout ByteQueue) -> Outcome {
        switch part {
        case .whole(let status, let headers, let body, _):
            if let invalid = writeHead(status: status, headers: headers, length: body.count, last: lastOnConnection, into: &output) {
                return invalid
            }
            if self.body == .whole { output.append(body) }
            return .complete
        case .head(let status, let headers, let endStream):
            if let invalid = writeHead(status: status, headers: headers, length: endStream ? 0 : nil, last: lastOnConnection,
                                       into: &output) {
                return invalid
            }
            return endStream ? .complete : .open
        case .body(let bytes, let endStream):
            guard let body else { return .invalid("body before the head") }
            Self.append(bytes, body, to: &output)
            if endStream { return end(trailers: [], into: &output) }
            return .open
        case .finish(let trailers):
            guard body != nil else { return .invalid("finish before the head") }
            return end(trailers: trailers, into: &output)
        case .reset(let errorCode):
            // HTTP/1.1 cannot abandon one response and keep the connection.
            return .invalid("handler reset the response (\(errorCode))")
        }
    }

    /// Writes the head, choosing the framing; the outcome if that is not possible.
    private mutating func writeHead(status: Int, headers: [HTTP2HeaderField], length: Int?, last: Bool,
                                    into output: inout ByteQueue) -> Outcome? {
        guard body == nil else { return .invalid("a second head for one response") }
        let framing: HTTP1ResponseHead.Length
        if HTTP1ResponseEncoder.forbidsBody(status) {
            framing = .unframed
            body = .discarded
        } else if let length {
            framing = .fixed(length)
            body = info.isHead ? .discarded : .whole
        } else if info.isHead {
            framing = .unframed
            body = .discarded
        } else if info.isHTTP10 {
            framing = .unframed
            body = .raw
        } else {
            framing = .chunked
            body = .chunked
        }
        closesConnection = !info.keepAlive || last || body == .raw
        let persistence: HTTP1ResponseHead.Persistence = closesConnection ? .close : (info.isHTTP10 ? .keepAlive : .implicit)
        output.append(HTTP1ResponseEncoder.encode(HTTP1ResponseHead(status: status, headers: headers, length: framing,
                                                                    persistence: persistence)))
        return nil
    }

    private static func append(_ bytes: [UInt8], _ body: Body, to output: inout ByteQueue) {
        guard !bytes.isEmpty else { return }
        switch body {
        case .chunked:
            output.append(HTTP1ResponseEncoder.chunkStart(bytes.count))
            output.append(bytes)
            output.append(HTTP1ResponseEncoder.crlf)
        case .raw, .whole:
            output.append(bytes)
        case .discarded:
            break
        }
    }

    private func end(trailers: [HTTP2HeaderField], into output: inout ByteQueue) -> Outcome {
        if body == .chunked { output.append(HTTP1ResponseEncoder.lastChunk(trailers: trailers)) }
        return .complete
    }
}
