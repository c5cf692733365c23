/// One call a handler made on its ``HTTP2Responder``, carried to the connection's loop and applied
/// there by whichever protocol the connection speaks.
enum ResponsePart: Sendable {
    /// `respond`: the whole response, so the body's length is known before the head is written.
    case whole(status: Int, headers: [HTTP2HeaderField], body: [UInt8], trailers: [HTTP2HeaderField])
    /// `sendHeaders`: the head; with `endStream`, a response without a body.
    case head(status: Int, headers: [HTTP2HeaderField], endStream: Bool)
    /// `sendBody`.
    case body([UInt8], endStream: Bool)
    /// `finish`: the end of a streamed body, with trailers if any.
    case finish(trailers: [HTTP2HeaderField])
    /// `reset`: abandon the response.
    case reset(HTTP2ErrorCode)
}

/// A connection that answers requests: applies a responder's calls for one of its requests.
/// Loop thread only. Calls for a request the connection no longer knows (cancelled, already
/// answered) are dropped.
protocol ResponseWriter: AnyObject {
    func write(streamID: Int32, _ part: ResponsePart)
}

/// The connection behind an ``HTTP2Responder``: an HTTP/2 connection or an HTTP/1.1 one, bound to
/// its loop.
///
/// Why an enum of two loop-bound references rather than one `HTTP2LoopBound<any ResponseWriter>`:
/// `HTTP2LoopBound` needs a class type, which an existential is not; boxing the connection in a
/// class would cost an allocation and an indirection for nothing, while the set of protocols a
/// server speaks is closed and small. The switch is the whole price of sharing one responder type.
enum ResponseTarget: Sendable {
    case http2(HTTP2LoopBound<ServerConnection>)
    case http1(HTTP2LoopBound<HTTP1Connection>)
    /// No connection: a call made in the same process (``HTTP2Responder/inProcess(on:)``), whose
    /// transport carries the method's reply itself; only the loop and cancellation are used.
    case inProcess(HTTP2EventLoop)

    var eventLoop: HTTP2EventLoop {
        switch self {
        case .http2(let connection): connection.eventLoop
        case .http1(let connection): connection.eventLoop
        case .inProcess(let loop): loop
        }
    }

    /// Applies `part` on the loop: inline when called there, else queued (FIFO per calling thread,
    /// see ``HTTP2LoopBound``).
    func write(streamID: Int32, _ part: ResponsePart) {
        switch self {
        case .http2(let connection): Self.write(part, streamID: streamID, on: connection)
        case .http1(let connection): Self.write(part, streamID: streamID, on: connection)
        case .inProcess: break
        }
    }

    /// On the loop (a handler answering inline, the usual case) the write is a direct call:
    /// `withValueOnLoop` would allocate its closure's context even when it runs inline.
    private static func write<Connection: ResponseWriter>(_ part: ResponsePart, streamID: Int32, on connection: HTTP2LoopBound<Connection>) {
        if connection.eventLoop.inEventLoop {
            connection.value.write(streamID: streamID, part)
        } else {
            connection.withValueOnLoop { $0.write(streamID: streamID, part) }
        }
    }
}
