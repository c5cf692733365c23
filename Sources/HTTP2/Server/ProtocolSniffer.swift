#if canImport(Glibc)
import Glibc
#endif

/// The first handler of every accepted connection: reads until the client's first bytes say which
/// protocol it speaks, then hands the channel (and those bytes) to a ``ServerConnection`` (HTTP/2
/// with prior knowledge) or an ``HTTP1Connection`` (anything else: an HTTP/1.x request, or garbage
/// that its parser answers with 400).
///
/// The test is one comparison with the 24-byte client preface `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`,
/// over as many of those bytes as have arrived. An HTTP/2 client sends the preface (and its
/// SETTINGS) in its first segment, so HTTP/2 is decided on the first read, straight from the
/// loop's read buffer, without a copy; the only other cost is that the HTTP/2 session (and our
/// SETTINGS) is created on that first read instead of at accept. A prefix that matches so far but
/// is shorter than 24 bytes is kept until the rest arrives. Any HTTP/1.x request differs from the
/// preface within its first bytes (no method is `PRI`), so even a request shorter than 24 bytes
/// (`GET / HTTP/1.0\r\n\r\n`) is recognised when it arrives.
///
/// A client that sends nothing is closed after the server's idle timeout. Thread ownership: loop
/// thread only, like the channel.
final class ProtocolSniffer: ChannelHandler, AcceptedConnection {
    let context: ServerContext
    let loopState: ServerLoopState
    let channel: Channel
    /// A matching prefix of the preface, when it arrived in pieces (rare).
    private var buffered: [UInt8] = []
    private var idleTimer: UInt64?

    /// RFC 9113 §3.4.
    static let preface: StaticString = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

    init(context: ServerContext, loopState: ServerLoopState, channel: Channel) {
        self.context = context
        self.loopState = loopState
        self.channel = channel
    }

    /// Arms the idle timer (once registered).
    func start() {
        idleTimer = channel.loop.schedule(in: context.configuration.idleTimeout.nanoseconds) { [weak self] in
            guard let self else { return }
            self.idleTimer = nil
            self.context.logger.debug("closing a connection that sent nothing")
            self.channel.close(error: nil)
        }
    }

    /// What the first bytes say.
    enum Verdict: Equatable { case http2, http1, undecided }

    static func verdict(_ bytes: UnsafeRawBufferPointer) -> Verdict {
        let length = preface.utf8CodeUnitCount
        let compared = min(bytes.count, length)
        guard compared > 0 else { return .undecided }
        if memcmp(bytes.baseAddress!, preface.utf8Start, compared) != 0 { return .http1 }
        return compared == length ? .http2 : .undecided
    }

    // MARK: AcceptedConnection

    var activeRequests: Int { 0 }

    /// Nothing is in flight before the client has spoken: close.
    func beginGracefulClose() { channel.close(error: nil) }

    // MARK: ChannelHandler

    func channelConnected(_ channel: Channel) {}

    func channelRead(_ channel: Channel, _ bytes: UnsafeRawBufferPointer) throws {
        if buffered.isEmpty {
            let verdict = Self.verdict(bytes)
            if verdict == .undecided {
                buffered.append(contentsOf: bytes)
                return
            }
            try handOver(verdict, bytes)
            return
        }
        buffered.append(contentsOf: bytes)
        let all = buffered
        try all.withUnsafeBytes { all in
            let verdict = Self.verdict(all)
            if verdict != .undecided { try handOver(verdict, all) }
        }
    }

    func channelProduce(_ channel: Channel, into buffer: inout [UInt8], limit: Int) throws {}

    func channelIsFinished(_ channel: Channel) -> Bool { false }

    func channelClosed(_ channel: Channel, error: (any Error)?) {
        if let idleTimer { channel.loop.cancelTimer(idleTimer) }
        idleTimer = nil
        if let error { context.logger.debug("connection closed before it spoke: \(error)") }
        loopState.connectionClosed(self, context: context)
    }

    // MARK: Hand-over

    /// Makes the connection for `verdict` the channel's handler and the loop's entry for this
    /// channel, and feeds it the bytes read so far. Throwing closes the channel (with that
    /// connection as its handler, which counts the connection out).
    private func handOver(_ verdict: Verdict, _ bytes: UnsafeRawBufferPointer) throws {
        if let idleTimer { channel.loop.cancelTimer(idleTimer) }
        idleTimer = nil
        let next: any ChannelHandler & AcceptedConnection
        switch verdict {
        case .http2:
            let session: HTTP2ServerSession
            do {
                session = try HTTP2ServerSession(configuration: context.configuration.session, logger: context.logger)
            } catch {
                context.logger.error("could not set up an HTTP/2 session: \(error)")
                throw error
            }
            let connection = ServerConnection(context: context, loopState: loopState, session: session, channel: channel)
            connection.scheduleIdleCheck(after: connection.idleTimeout)
            next = connection
        case .http1:
            context.logger.trace("connection speaks HTTP/1.x")
            let connection = HTTP1Connection(context: context, loopState: loopState, channel: channel)
            connection.scheduleIdleCheck(after: connection.idleTimeout)
            next = connection
        case .undecided:
            preconditionFailure("handOver called undecided")
        }
        channel.handler = next
        loopState.track(next)
        try next.channelRead(channel, bytes)
    }
}
