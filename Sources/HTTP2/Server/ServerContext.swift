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
    /// Indexed by `EventLoop.index`; each element is confined to its loop.
    let loopStates: [ServerLoopState]
    /// Connections accepted and not yet closed, across all loops (exact: one acceptor).
    let connectionCount = Atomic<Int>(0)

    init(configuration: HTTP2Server.Configuration, handler: @escaping @Sendable (HTTP2Request, HTTP2Responder) -> Void,
         group: EventLoopGroup) {
        self.configuration = configuration
        self.handler = handler
        self.logger = configuration.logger
        self.group = group
        self.loopStates = group.loops.map { ServerLoopState(loop: $0) }
    }

    func state(of loop: EventLoop) -> ServerLoopState { loopStates[loop.index] }

    /// Takes ownership of an accepted socket on `loop` (loop thread): session, channel, idle timer,
    /// and our SETTINGS right away.
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
        do {
            let session = try HTTP2ServerSession(configuration: configuration.session, logger: logger)
            let connection = ServerConnection(context: self, loopState: loopState, session: session, channel: channel)
            channel.handler = connection
            try channel.register()
            loopState.connections[ObjectIdentifier(connection)] = connection
            connection.scheduleIdleCheck(after: configuration.idleTimeout.nanoseconds)
            channel.flush()
        } catch {
            logger.error("could not set up a connection: \(error)")
            channel.handler = nil
            channel.close(error: error)
            connectionCount.subtract(1, ordering: .relaxed)
        }
    }
}

/// The connections of one loop and that loop's shutdown progress. Loop thread only (hence
/// `@unchecked Sendable`: it is created elsewhere but only ever used on its loop).
final class ServerLoopState: @unchecked Sendable {
    let loop: EventLoop
    var connections: [ObjectIdentifier: ServerConnection] = [:]
    var shuttingDown = false
    /// Set on loop 0 while the server listens.
    var acceptor: Acceptor?

    init(loop: EventLoop) { self.loop = loop }

    func connectionClosed(_ connection: ServerConnection) {
        guard connections.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return }
        connection.context.connectionCount.subtract(1, ordering: .relaxed)
        if shuttingDown, connections.isEmpty { loop.stop() }
    }

    /// Stop accepting, send GOAWAY everywhere, and stop the loop once the last connection closed or
    /// `grace` has passed (then the rest are closed, cancelling their requests).
    func beginShutdown(grace: UInt64) {
        shuttingDown = true
        acceptor?.close()
        acceptor = nil
        for connection in Array(connections.values) { connection.goAway() }
        if connections.isEmpty {
            loop.stop()
            return
        }
        loop.schedule(in: grace) { [self] in
            for connection in Array(connections.values) { connection.forceClose() }
            loop.stop()
        }
    }
}
