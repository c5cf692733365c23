/// One accepted HTTP/2 connection: joins a `Channel` (socket I/O) to an `HTTP2ServerSession`
/// (protocol), delivers requests to the handler, applies responder writes, and runs the idle timer
/// and graceful shutdown.
///
/// Thread ownership: created on and confined to its loop thread; responders reach it through
/// `HTTP2LoopBound` hops.
final class ServerConnection: ChannelHandler {
    let context: ServerContext
    let loopState: ServerLoopState
    let session: HTTP2ServerSession
    let channel: Channel
    private var responders: [Int32: HTTP2Responder] = [:]
    private var idleTimer: UInt64?
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
    }

    func channelProduce(_ channel: Channel, into buffer: inout [UInt8], limit: Int) throws {
        try session.send(into: &buffer, limit: limit)
        // Sending can close streams (our RST_STREAM, a response completing) → events.
        processEvents()
    }

    func channelIsFinished(_ channel: Channel) -> Bool { !session.wantsRead && !session.wantsWrite }

    func channelClosed(_ channel: Channel, error: (any Error)?) {
        closed = true
        if let idleTimer { channel.loop.cancelTimer(idleTimer) }
        if let error {
            if let sessionError = error as? HTTP2SessionError, sessionError.isBadPreface {
                context.logger.debug("connection closed: not an HTTP/2 client (\(sessionError))")
            } else {
                context.logger.debug("connection closed: \(error)")
            }
        }
        let open = responders
        responders = [:]
        for responder in open.values { responder.streamClosed() }
        loopState.connectionClosed(self)
    }

    // MARK: Events

    private func processEvents() {
        let loop = HTTP2EventLoop(channel.loop)
        session.drainEvents { event in
            switch event {
            case .request(let request):
                let responder = HTTP2Responder(streamID: request.streamID, connection: HTTP2LoopBound(self, eventLoop: loop))
                responders[request.streamID] = responder
                context.handler(request, responder)
            case .requestRejected(let streamID, let reason):
                context.logger.debug("stream \(streamID) rejected: \(reason)")
                let responder = HTTP2Responder(streamID: streamID, connection: HTTP2LoopBound(self, eventLoop: loop))
                responders[streamID] = responder
                context.configuration.rejectionHandler(reason, responder)
            case .streamClosed(let streamID, let errorCode):
                if errorCode != .noError { context.logger.trace("stream \(streamID) closed: \(errorCode)") }
                responders.removeValue(forKey: streamID)?.streamClosed()
            case .goAway(_, let errorCode):
                context.logger.debug("client sent GOAWAY (\(errorCode))")
            }
        }
    }

    /// Applies one responder write (loop thread).
    func write(streamID: Int32, _ body: (HTTP2ServerSession, Int32) throws(HTTP2SessionError) -> Void) {
        guard !closed else { return }
        do {
            try body(session, streamID)
        } catch {
            // The stream is gone (reset by the client, say): nothing to answer any more.
            context.logger.trace("write to stream \(streamID) dropped: \(error)")
        }
        if !reading { channel.flush() }
    }

    // MARK: Timers and shutdown

    func scheduleIdleCheck(after delay: UInt64) {
        idleTimer = channel.loop.schedule(in: delay) { [weak self] in self?.idleCheck() }
    }

    private func idleCheck() {
        idleTimer = nil
        guard !closed else { return }
        let timeout = context.configuration.idleTimeout.nanoseconds
        let idleFor = monotonicNow() &- channel.lastActivity
        if session.openStreamCount == 0, responders.isEmpty, idleFor >= timeout {
            if goingAway {
                // GOAWAY went out a whole timeout ago and the peer neither closed nor read it.
                channel.close(error: nil)
                return
            }
            context.logger.debug("closing idle connection")
            goAway()  // usually closes the channel at once: no streams, nothing left to exchange
            if !closed { scheduleIdleCheck(after: timeout) }
        } else {
            scheduleIdleCheck(after: idleFor >= timeout ? timeout : timeout - idleFor)
        }
    }

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

    func forceClose() { channel.close(error: nil) }
}
