#if canImport(Glibc)
import Glibc
#endif

/// One accepted HTTP/2 connection: joins a `Channel` (socket I/O) to an `HTTP2ServerSession`
/// (protocol), delivers requests to the handler, applies responder writes, and runs the idle timer
/// and graceful shutdown.
///
/// Created by ``ProtocolSniffer`` once the client's first bytes are the HTTP/2 preface.
///
/// Thread ownership: created on and confined to its loop thread; responders reach it through
/// `HTTP2LoopBound` hops.
final class ServerConnection: ChannelHandler, AcceptedConnection, ResponseWriter, IdleTracking {
    let context: ServerContext
    let loopState: ServerLoopState
    let session: HTTP2ServerSession
    let channel: Channel
    private var responders: [Int32: HTTP2Responder] = [:]
    var idleTimer: UInt64?
    /// Armed while a request's header block is arriving; see ``watchHeads()``.
    private var headTimer: UInt64?
    private var goingAway = false
    private(set) var closed = false
    /// Inside `channelRead`: the channel flushes afterwards, so writes need not flush themselves.
    private var reading = false

    init(context: ServerContext, loopState: ServerLoopState, session: HTTP2ServerSession, channel: Channel) {
        self.context = context
        self.loopState = loopState
        self.session = session
        self.channel = channel
    }

    var activeRequests: Int { responders.values.reduce(0) { $0 + ($1.isEnded ? 0 : 1) } }

    // MARK: ChannelHandler

    func channelConnected(_ channel: Channel) {}

    func channelRead(_ channel: Channel, _ bytes: UnsafeRawBufferPointer) throws {
        reading = true
        defer { reading = false }
        try session.receive(bytes)
        processEvents()
        if headTimer == nil, session.takeHeadsBegun() { armHeadTimer(after: context.configuration.requestHeadTimeout.nanoseconds) }
    }

    /// Bounds the time a request's header block (HEADERS and its CONTINUATIONs) may take
    /// (``HTTP2Server/Configuration/requestHeadTimeout``): a client trickling one is sent GOAWAY
    /// ENHANCE_YOUR_CALM and the connection ends. One timer per connection, armed when a block
    /// begins; when it fires it looks at the oldest block still incomplete and re-arms for it.
    private func armHeadTimer(after delay: UInt64) {
        headTimer = channel.loop.schedule(in: delay) { [weak self] in
            guard let self else { return }
            self.headTimer = nil
            self.checkHeads()
        }
    }

    private func checkHeads() {
        guard !closed else { return }
        _ = session.takeHeadsBegun()
        guard let oldest = session.oldestIncompleteHead else { return }
        let timeout = context.configuration.requestHeadTimeout.nanoseconds
        let waited = monotonicNow() &- oldest
        guard waited >= timeout else {
            armHeadTimer(after: timeout - waited)
            return
        }
        context.logger.debug("a request header block took longer than \(context.configuration.requestHeadTimeout): closing")
        do { try session.terminate(errorCode: .enhanceYourCalm) } catch { context.logger.debug("GOAWAY not sent: \(error)") }
        goingAway = true
        channel.flush()
    }

    func channelProduce(_ channel: Channel, into buffer: inout [UInt8], limit: Int) throws {
        try session.send(into: &buffer, limit: limit)
        // Sending can close streams (our RST_STREAM, a response completing) → events.
        processEvents()
    }

    func channelIsFinished(_ channel: Channel) -> Bool { !session.wantsRead && !session.wantsWrite }

    func channelClosed(_ channel: Channel, error: (any Error)?) {
        closed = true
        cancelIdleCheck()
        if let headTimer { channel.loop.cancelTimer(headTimer) }
        headTimer = nil
        // No bad-preface case any more: the sniffer only hands over clients that sent the preface.
        if let error {
            // A peer that went away is routine; anything else (a protocol error, nghttp2 finding
            // the peer flooding it) is what an operator needs to see: clients lose every stream
            // open on the connection.
            if let system = error as? HTTP2SystemError, [ECONNRESET, EPIPE, ECANCELED, ETIMEDOUT].contains(system.code) {
                context.logger.debug("connection closed: \(error)")
            } else {
                context.logger.warning("connection closed on an error, \(responders.count) streams open: \(error)")
            }
        }
        let open = responders
        responders = [:]
        for responder in open.values { responder.streamClosed() }
        loopState.connectionClosed(self, context: context)
    }

    // MARK: Events

    private func processEvents() {
        let loop = HTTP2EventLoop(channel.loop)
        session.drainEvents { event in
            switch event {
            case .request(let request):
                let responder = HTTP2Responder(streamID: request.streamID, connection: .http2(HTTP2LoopBound(self, eventLoop: loop)))
                responders[request.streamID] = responder
                context.handler(request, responder)
            case .requestRejected(let streamID, let reason, let request):
                context.logger.debug("stream \(streamID) rejected: \(reason)")
                let responder = HTTP2Responder(streamID: streamID, connection: .http2(HTTP2LoopBound(self, eventLoop: loop)))
                responders[streamID] = responder
                context.configuration.rejectionHandler(reason, request, responder)
            case .streamClosed(let streamID, let errorCode):
                if errorCode != .noError { context.logger.trace("stream \(streamID) closed: \(errorCode)") }
                responders.removeValue(forKey: streamID)?.streamClosed()
            case .goAway(_, let errorCode):
                context.logger.debug("client sent GOAWAY (\(errorCode))")
            }
        }
    }

    /// Applies one responder write (loop thread).
    func write(streamID: Int32, _ part: ResponsePart) {
        guard !closed else { return }
        do throws(HTTP2SessionError) {
            switch part {
            case .whole(let status, let headers, let body, let trailers):
                try session.respond(streamID: streamID, status: status, headers: headers, body: body, trailers: trailers)
            case .head(let status, let headers, let endStream):
                try session.sendHeaders(streamID: streamID, status: status, headers: headers, endStream: endStream)
            case .body(let bytes, let endStream):
                try session.sendBody(streamID: streamID, bytes, endStream: endStream)
            case .finish(let trailers):
                try session.finish(streamID: streamID, trailers: trailers)
            case .reset(let errorCode):
                try session.resetStream(streamID: streamID, errorCode: errorCode)
            }
        } catch {
            // The stream is gone (reset by the client, say): nothing to answer any more.
            context.logger.trace("write to stream \(streamID) dropped: \(error)")
        }
        if !reading { channel.flushSoon() }
    }

    // MARK: Timers and shutdown

    var idleTimeout: UInt64 { context.configuration.idleTimeout.nanoseconds }

    var isIdle: Bool { session.openStreamCount == 0 && responders.isEmpty }

    func idleTimeoutExpired() {
        if goingAway {
            // GOAWAY went out a whole timeout ago and the peer neither closed nor read it.
            channel.close(error: nil)
            return
        }
        context.logger.debug("closing idle connection")
        goAway()  // usually closes the channel at once: no streams, nothing left to exchange
        if !closed { scheduleIdleCheck(after: idleTimeout) }
    }

    func beginGracefulClose() { goAway() }

    /// GOAWAY(NO_ERROR) naming the last processed stream; in-flight streams continue and the
    /// channel closes when nghttp2 has nothing left to read or write.
    func goAway() {
        guard !closed else { return }
        if !goingAway {
            goingAway = true
            do { try session.goAway() } catch { context.logger.debug("GOAWAY not sent: \(error)") }
        }
        channel.flush()
    }
}
