/// One accepted connection that spoke HTTP/1.x: joins a ``Channel`` to an ``HTTP1RequestParser``,
/// hands each request to the server's handler with an ``HTTP2Responder`` (the same type, and the
/// same handler, as for HTTP/2), and writes what the responder is told as HTTP/1.1. Created by
/// ``ProtocolSniffer`` when the first bytes are not the HTTP/2 preface; it exists so that the
/// tools operators use (Prometheus, `curl`, Kubernetes probes, load-balancer health checks), which
/// speak HTTP/1.1 to a cleartext port, reach `/metrics`, `/healthz`, `/readyz` and the JSON
/// endpoints of a server whose clients otherwise speak HTTP/2.
///
/// Requests are answered one at a time, in order. Pipelined requests are parsed ahead and queue
/// (at most `maxConcurrentStreams` of them, the HTTP/2 limit on outstanding requests; then reading
/// is suspended). The next one reaches the handler once the previous response has been moved into
/// the channel's output buffer (responses answered at once share one send), so a client that does
/// not read holds at most one response of server memory beyond the channel's `outputLimit`, and
/// reading pauses through the channel's backpressure as for HTTP/2.
///
/// Framing is ``HTTP1Response``'s (`content-length` for a whole response, chunked for one started
/// with `sendHeaders`). Keep-alive unless the client said `connection: close` (or spoke HTTP/1.0
/// without keep-alive), the server is shutting down, or the response could not be framed
/// otherwise.
///
/// Ending: after the last response is written, the connection half-closes and reads (discarding)
/// until the client closes or ``lingerTimeout`` passes — closing with unread input would make the
/// kernel reset the connection and could destroy that last response (see
/// ``Channel/shutdownOutput()``). A client that closes (or half-closes) while its request is in
/// flight cancels it (``HTTP2Responder/isCancelled``). Idle for the server's idle timeout (nothing
/// in flight): closed.
/// Shutdown: requests queued but not started are dropped (the client sees the connection close
/// after the last response, the HTTP/1.1 signal to retry them), the one in flight finishes with
/// `connection: close`, and a connection with nothing in flight closes at once.
///
/// Rejections: the limits of ``HTTP2SessionConfiguration`` apply (`maxHeaderListSize` → 431,
/// `maxBodySize` → 413), and a malformed request gets 400, gRPC 505; these are answered here as
/// plain text, then the connection closes. The server's `rejectionHandler` is not used: it answers
/// HTTP/2 streams (an RPC server's answers are gRPC trailers, which HTTP/1.1 cannot carry).
///
/// Thread ownership: created on and confined to its loop thread; responders reach it through
/// `HTTP2LoopBound` hops (``ResponseTarget/http1(_:)``).
final class HTTP1Connection: ChannelHandler, AcceptedConnection, ResponseWriter, IdleTracking {
    let context: ServerContext
    let loopState: ServerLoopState
    let channel: Channel
    private let parser: HTTP1RequestParser
    var idleTimer: UInt64?
    private var lingerTimer: UInt64?
    /// Armed while a request's head is arriving; see ``watchHead()``.
    private var headTimer: UInt64?

    /// Parsed and waiting for their turn, in arrival order.
    private enum Queued {
        case request(HTTP2Request, HTTP1RequestInfo)
        case refusal(HTTP1Refusal)
    }

    /// The request handed to the handler: its responder and its response so far.
    private struct Exchange {
        let streamID: Int32
        let responder: HTTP2Responder
        var response: HTTP1Response
    }

    private var queue: [Queued] = []
    private var exchange: Exchange?
    /// Encoded response bytes, handed to the channel as it asks (``channelProduce(_:into:limit:)``).
    private var output = ByteQueue()
    /// No more requests are read or started (the last request arrived, a refusal, shutdown).
    private var finishing = false
    /// The last response has been encoded: once written, half-close and linger.
    private var lastResponseWritten = false
    private var lingering = false
    private var shuttingDown = false
    private var closed = false
    /// Inside `channelRead`: the channel flushes afterwards, so writes need not flush themselves.
    private var reading = false
    /// Inside `advance` (a handler that answers inline re-enters it).
    private var advancing = false
    private let maxQueued: Int

    /// How long a closing connection waits for the client to close after our FIN.
    static let lingerTimeout: UInt64 = 2_000_000_000

    init(context: ServerContext, loopState: ServerLoopState, channel: Channel) {
        self.context = context
        self.loopState = loopState
        self.channel = channel
        let session = context.configuration.session
        parser = HTTP1RequestParser(maxHeaderListSize: Int(session.maxHeaderListSize), maxBodySize: session.maxBodySize)
        maxQueued = max(1, Int(session.maxConcurrentStreams))
    }

    // MARK: AcceptedConnection

    var activeRequests: Int { exchange == nil ? 0 : 1 }

    func beginGracefulClose() {
        guard !closed, !shuttingDown else { return }
        shuttingDown = true
        finishing = true
        queue.removeAll()
        channel.suspendReading(false)  // keep noticing the client leaving while the last one runs
        if exchange == nil {
            if output.isEmpty, channel.pendingOutputBytes == 0, !parser.isInsideRequest {
                channel.close(error: nil)  // nothing in flight and nothing unread: a plain close is safe
                return
            }
            lastResponseWritten = true
        }
        channel.flush()
    }

    // MARK: ChannelHandler

    func channelConnected(_ channel: Channel) {}

    func channelRead(_ channel: Channel, _ bytes: UnsafeRawBufferPointer) throws {
        // Finishing: what the client still sends is read (so that its close is noticed) and dropped.
        guard !finishing else { return }
        reading = true
        defer { reading = false }
        parser.receive(bytes)
        parser.drainEvents { event in
            switch event {
            case .request(let request, let info):
                queue.append(.request(request, info))
            case .refused(let refusal):
                queue.append(.refusal(refusal))
            case .continueExpected:
                // Only when this request is next: an interim answer must not overtake the
                // responses to earlier requests. Otherwise the client sends its body after its
                // own timeout (RFC 9110 §10.1.1), which is correct, if slower.
                if exchange == nil, queue.isEmpty { output.append(HTTP1ResponseEncoder.continueResponse) }
            }
        }
        if parser.isStopped { finishing = true }
        advance()
        if queue.count >= maxQueued { channel.suspendReading(true) }
        watchHead()
    }

    /// Bounds the time a request's line and headers may take (``HTTP2Server/Configuration/
    /// requestHeadTimeout``): the idle timeout restarts with every byte, so without this a client
    /// sending one header byte a minute holds the connection (and, with enough of them, every
    /// connection slot) forever. The timer is armed when a head begins and disarmed when it is
    /// complete; if it fires on the same head, the client gets 408 and the connection ends.
    private func watchHead() {
        guard parser.isReadingHead, !finishing else {
            if let headTimer { channel.loop.cancelTimer(headTimer) }
            headTimer = nil
            return
        }
        guard headTimer == nil else { return }
        let head = parser.headsBegun
        let timeout = context.configuration.requestHeadTimeout
        headTimer = channel.loop.schedule(in: timeout.nanoseconds) { [weak self] in
            guard let self else { return }
            self.headTimer = nil
            guard !self.closed, self.parser.isReadingHead, self.parser.headsBegun == head, !self.finishing else { return }
            self.context.logger.debug("HTTP/1.1 request head not complete within \(timeout)")
            self.finishing = true
            self.queue.append(.refusal(.headTimeout(seconds: Int(timeout.components.seconds))))
            self.advance()
            self.channel.flush()
        }
    }

    func channelProduce(_ channel: Channel, into buffer: inout [UInt8], limit: Int) throws {
        // Once a response is in the channel's buffer it is out of our hands: the next request may
        // start, and if it is answered at once its response joins the same batch (one send for a
        // pipeline of small answers), until the batch is full or nobody has answered yet.
        while true {
            if output.isEmpty { advance() }
            let before = buffer.count
            output.move(into: &buffer, limit: limit)
            if !output.isEmpty || buffer.count == before { break }
        }
        // Asked with nothing to give after the last response: all of it has been written.
        if buffer.isEmpty, lastResponseWritten, exchange == nil, !lingering { linger() }
    }

    func channelIsFinished(_ channel: Channel) -> Bool { false }  // we close ourselves (linger, idle)

    func channelClosed(_ channel: Channel, error: (any Error)?) {
        closed = true
        cancelIdleCheck()
        if let lingerTimer { channel.loop.cancelTimer(lingerTimer) }
        lingerTimer = nil
        if let headTimer { channel.loop.cancelTimer(headTimer) }
        headTimer = nil
        if let error { context.logger.debug("HTTP/1.1 connection closed: \(error)") }
        let open = exchange
        exchange = nil
        queue = []
        output = ByteQueue()
        open?.responder.streamClosed()
        loopState.connectionClosed(self, context: context)
    }

    // MARK: Requests

    /// Starts queued requests while none is in flight and the previous response has been handed
    /// to the channel. Loops instead of recursing: a handler that answers inline completes its
    /// exchange inside `start`.
    private func advance() {
        guard !advancing, !closed else { return }
        advancing = true
        defer { advancing = false }
        while exchange == nil, !lastResponseWritten, output.isEmpty, !queue.isEmpty {
            switch queue.removeFirst() {
            case .request(let request, let info):
                start(request, info)
            case .refusal(let refusal):
                context.logger.debug("HTTP/1.1 request refused with \(refusal.status): \(refusal)")
                output.append(HTTP1ResponseEncoder.refusal(refusal))
                lastResponseWritten = true
            }
        }
        if queue.count < maxQueued { channel.suspendReading(false) }
    }

    private func start(_ request: HTTP2Request, _ info: HTTP1RequestInfo) {
        let target = ResponseTarget.http1(HTTP2LoopBound(self, eventLoop: HTTP2EventLoop(channel.loop)))
        let responder = HTTP2Responder(streamID: request.streamID, connection: target)
        exchange = Exchange(streamID: request.streamID, responder: responder, response: HTTP1Response(for: info))
        context.handler(request, responder)
    }

    // MARK: Responses

    /// Applies one responder call (loop thread).
    func write(streamID: Int32, _ part: ResponsePart) {
        guard !closed, var current = exchange, current.streamID == streamID else { return }
        switch current.response.apply(part, lastOnConnection: shuttingDown, into: &output) {
        case .open: exchange = current
        case .complete: complete(current)
        case .invalid(let reason): abort(reason)
        }
        if !reading { channel.flush() }
    }

    /// The response is completely encoded: the next request may start once it is written, or the
    /// connection ends after it.
    private func complete(_ finished: Exchange) {
        exchange = nil
        if finished.response.closesConnection || shuttingDown { endAfterThisResponse() }
        advance()
    }

    /// A response that cannot be completed as HTTP/1.1: stop; what was written goes out, then the
    /// connection ends (the client sees a response cut short, or none, and knows something went
    /// wrong).
    private func abort(_ reason: String) {
        context.logger.debug("HTTP/1.1 response abandoned: \(reason)")
        let abandoned = exchange
        exchange = nil
        abandoned?.responder.streamClosed()  // a handler still writing learns that nothing arrives
        endAfterThisResponse()
    }

    /// What has been encoded is the connection's last response: start nothing more, read nothing
    /// more, and linger once it is written.
    private func endAfterThisResponse() {
        lastResponseWritten = true
        finishing = true
        queue.removeAll()
    }

    /// Everything is written: FIN, then read and drop until the client closes or the timer fires.
    private func linger() {
        lingering = true
        channel.shutdownOutput()
        channel.suspendReading(false)
        lingerTimer = channel.loop.schedule(in: min(Self.lingerTimeout, idleTimeout)) { [weak self] in
            guard let self else { return }
            self.lingerTimer = nil
            self.channel.close(error: nil)
        }
    }

    // MARK: Idle

    var idleTimeout: UInt64 { context.configuration.idleTimeout.nanoseconds }

    var isIdle: Bool { exchange == nil && queue.isEmpty && output.isEmpty && !lingering }

    func idleTimeoutExpired() {
        context.logger.debug("closing idle HTTP/1.1 connection")
        channel.close(error: nil)
    }
}
