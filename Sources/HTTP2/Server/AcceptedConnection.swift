/// What a server loop keeps for each accepted socket, whichever protocol it turned out to speak
/// (``ProtocolSniffer`` until the first bytes tell, then ``ServerConnection`` for HTTP/2 or
/// ``HTTP1Connection`` for HTTP/1.x): enough for statistics and shutdown. ``ServerLoopState`` keys
/// them by their channel, so the sniffer's hand-over replaces the entry in place and the connection
/// count (``ServerContext/connectionCount``) is decremented exactly once, when the channel closes.
///
/// Loop thread only.
protocol AcceptedConnection: AnyObject {
    var channel: Channel { get }
    /// Requests handed to the handler and not yet answered or cancelled.
    var activeRequests: Int { get }
    /// Graceful shutdown: accept no new request, let those in flight finish, then close.
    func beginGracefulClose()
    /// Close now (the grace period is over), cancelling what is still in flight.
    func forceClose()
}

extension AcceptedConnection {
    func forceClose() { channel.close(error: nil) }
}

/// The idle timeout both request-serving connections run: one loop timer per connection that
/// re-arms itself (rather than one timer per I/O event) until the connection has been idle for the
/// whole timeout, nothing in flight and no byte read or written, then calls ``idleTimeoutExpired()``.
///
/// Loop thread only.
protocol IdleTracking: AnyObject {
    var channel: Channel { get }
    var idleTimeout: UInt64 { get }
    /// The pending timer, owned by the extension below.
    var idleTimer: UInt64? { get set }
    /// Nothing in flight: the connection may be closed for idleness.
    var isIdle: Bool { get }
    /// Idle for the whole timeout. Re-arm with ``scheduleIdleCheck(after:)`` if the connection stays.
    func idleTimeoutExpired()
}

extension IdleTracking {
    func scheduleIdleCheck(after delay: UInt64) {
        idleTimer = channel.loop.schedule(in: delay) { [weak self] in self?.idleCheck() }
    }

    func cancelIdleCheck() {
        if let idleTimer { channel.loop.cancelTimer(idleTimer) }
        idleTimer = nil
    }

    private func idleCheck() {
        idleTimer = nil
        guard !channel.isClosed else { return }
        let idleFor = monotonicNow() &- channel.lastActivity
        if isIdle, idleFor >= idleTimeout {
            idleTimeoutExpired()
        } else {
            scheduleIdleCheck(after: idleFor >= idleTimeout ? idleTimeout : idleTimeout - idleFor)
        }
    }
}
