import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What every connection of one server shares: configuration, handler, logger, the connection
/// count (the only cross-thread mutable state, an atomic) and the per-loop state.
final class ServerContext: Sendable {
    let configuration: HTTP2Server.Configuration
    let handler: @Sendable (HTTP2Request, HTTP2Responder) -> Void
    let logger: HTTP2Logger
    let group: EventLoopGroup
    /// The server started these loops and stops them in `shutdown`; false for a shared
    /// ``HTTP2EventLoopGroup``, whose loops outlive the server.
    let ownsGroup: Bool
    /// Indexed by `EventLoop.index`; each element is confined to its loop.
    let loopStates: [ServerLoopState]
    /// Connections accepted and not yet closed, across all loops (exact: one acceptor).
    let connectionCount = Atomic<Int>(0)

    init(configuration: HTTP2Server.Configuration, handler: @escaping @Sendable (HTTP2Request, HTTP2Responder) -> Void,
         group: EventLoopGroup, ownsGroup: Bool) {
        self.configuration = configuration
        self.handler = handler
        self.logger = configuration.logger
        self.group = group
        self.ownsGroup = ownsGroup
        self.loopStates = group.loops.map { ServerLoopState(loop: $0) }
    }

    func state(of loop: EventLoop) -> ServerLoopState { loopStates[loop.index] }

    /// Takes ownership of an accepted socket on `loop` (loop thread): a channel whose first handler
    /// is a ``ProtocolSniffer``, which hands the channel to an HTTP/2 or an HTTP/1.1 connection once
    /// the client's first bytes tell which it speaks. Nothing is sent before that (our SETTINGS go
    /// out with the first answer to an HTTP/2 client, which sends its preface without waiting).
    func adopt(_ fd: Int32, on loop: EventLoop) {
        let loopState = state(of: loop)
        guard !loopState.shuttingDown else {
            _ = Glibc.close(fd)
            connectionCount.subtract(1, ordering: .relaxed)
            return
        }
        _ = csystemSetNoDelay(fd)
        let channel = Channel(loop: loop, fd: fd, outputLimit: configuration.outputLimit, pausesReading: true,
                              connecting: false)
        let sniffer = ProtocolSniffer(context: self, loopState: loopState, channel: channel)
        channel.handler = sniffer
        do {
            if let tls = configuration.tls { channel.tls = try tls.makeSession() }
            try channel.register()
        } catch {
            logger.error("could not set up a connection: \(error)")
            channel.handler = nil
            channel.close(error: error)
            connectionCount.subtract(1, ordering: .relaxed)
            return
        }
        loopState.track(sniffer)
        sniffer.start()
    }
}

/// The connections of one loop and that loop's shutdown progress. Loop thread only (hence
/// `@unchecked Sendable`: it is created elsewhere but only ever used on its loop).
final class ServerLoopState: @unchecked Sendable {
    let loop: EventLoop
    /// Keyed by channel (see ``AcceptedConnection``): a sniffer's hand-over replaces its entry.
    private(set) var connections: [ObjectIdentifier: any AcceptedConnection] = [:]
    var shuttingDown = false
    /// Set on loop 0 while the server listens.
    var acceptor: Acceptor?
    /// Set by `beginShutdown`, called once when this loop has no connection of the server left.
    private var shutdownFinished: (@Sendable () -> Void)?
    private var graceTimer: UInt64?

    init(loop: EventLoop) { self.loop = loop }

    /// Starts tracking `connection`, or replaces the entry of its channel (a sniffer's hand-over).
    func track(_ connection: any AcceptedConnection) {
        connections[ObjectIdentifier(connection.channel)] = connection
    }

    /// The channel of `connection` closed: forget it and count it out (once per channel).
    func connectionClosed(_ connection: any AcceptedConnection, context: ServerContext) {
        guard connections.removeValue(forKey: ObjectIdentifier(connection.channel)) != nil else { return }
        context.connectionCount.subtract(1, ordering: .relaxed)
        if shuttingDown, connections.isEmpty { finishShutdown() }
    }

    /// Stop accepting, send GOAWAY everywhere, and call `finished` once the last connection closed
    /// or `grace` has passed (then the rest are closed, cancelling their requests). What happens to
    /// the loop afterwards is the server's business (it stops the loops only if it owns them).
    func beginShutdown(grace: UInt64, finished: @escaping @Sendable () -> Void) {
        shuttingDown = true
        shutdownFinished = finished
        acceptor?.close()
        acceptor = nil
        // A GOAWAY (or an HTTP/1.1 connection with nothing in flight) can close its connection at
        // once, which may finish already.
        for connection in Array(connections.values) { connection.beginGracefulClose() }
        if connections.isEmpty {
            finishShutdown()
            return
        }
        graceTimer = loop.schedule(in: grace) { [self] in
            graceTimer = nil
            for connection in Array(connections.values) { connection.forceClose() }
            finishShutdown()
        }
    }

    /// Once: cancels the grace timer (on a shared loop it would otherwise fire later, and keep this
    /// state alive until then) and reports.
    private func finishShutdown() {
        guard let finished = shutdownFinished else { return }
        shutdownFinished = nil
        if let graceTimer { loop.cancelTimer(graceTimer) }
        graceTimer = nil
        finished()
    }
}
