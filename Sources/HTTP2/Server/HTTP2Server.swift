internal import CSystem
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/2 (h2c, prior knowledge) server: N event-loop threads, one acceptor, one handler call per
/// complete request.
///
///     let server = HTTP2Server(configuration: .init()) { request, responder in
///         responder.respond(status: 200, headers: [("content-type", "text/plain")], body: Array("hi".utf8))
///     }
///     let port = try server.start()
///     ...
///     server.shutdown(gracePeriod: .seconds(5))
///
/// The handler runs on the connection's event-loop thread and must not block it: hand slow work to
/// another thread and complete the ``HTTP2Responder`` from there (it hops back to the loop).
/// `shutdown` must be called before the server is released (the loop threads keep running until
/// then).
public final class HTTP2Server: Sendable {
    public let configuration: Configuration
    private let handler: @Sendable (HTTP2Request, HTTP2Responder) -> Void

    private enum State {
        case idle
        case running(ServerContext)
        case stopped
    }

    private let state = Mutex(State.idle)

    public init(configuration: Configuration = .init(),
                handler: @escaping @Sendable (HTTP2Request, HTTP2Responder) -> Void) {
        self.configuration = configuration
        self.handler = handler
    }

    /// Binds `host:port`, starts the loops, and returns the bound port (the ephemeral one for port 0).
    public func start() throws(HTTP2SystemError) -> Int {
        try state.withLock { (state) throws(HTTP2SystemError) -> Int in
            guard case .idle = state else { throw HTTP2SystemError(code: EINVAL, function: "HTTP2Server.start: already started") }
            var port: Int32 = 0
            let fd = csystem_listen(configuration.host, Int32(configuration.port), configuration.backlog, &port)
            if fd < 0 { throw HTTP2SystemError(code: errno, function: "listen(\(configuration.host):\(configuration.port))") }
            let group: EventLoopGroup
            do throws(HTTP2SystemError) {
                group = try EventLoopGroup(threadCount: configuration.threadCount, name: "h2-server", logger: configuration.logger)
            } catch {
                _ = Glibc.close(fd)
                throw error
            }
            let context = ServerContext(configuration: configuration, handler: handler, group: group)
            let loop = group.loops[0]
            let registered = Mutex<HTTP2SystemError?>(nil)
            let done = DispatchSemaphore(value: 0)
            loop.execute {
                let acceptor = Acceptor(context: context, loop: loop, fd: fd)
                do throws(HTTP2SystemError) {
                    try acceptor.register()
                    context.state(of: loop).acceptor = acceptor
                } catch {
                    registered.withLock { $0 = error }
                    acceptor.close()
                }
                done.signal()
            }
            done.wait()
            if let error = registered.withLock({ $0 }) {
                group.stopAndJoin()
                throw error
            }
            state = .running(context)
            configuration.logger.info("HTTP/2 server listening on \(configuration.host):\(port) with \(group.loops.count) loops")
            return Int(port)
        }
    }

    /// Graceful shutdown: stop accepting, send GOAWAY on every connection, let in-flight requests
    /// finish for up to `gracePeriod`, then close what is left (cancelling those requests) and join
    /// the loop threads. Blocks the caller until done; must not be called from a handler on a loop
    /// thread. Idempotent.
    public func shutdown(gracePeriod: Duration = .seconds(5)) {
        let context: ServerContext? = state.withLock { state in
            guard case .running(let context) = state else {
                state = .stopped
                return nil
            }
            state = .stopped
            return context
        }
        guard let context else { return }
        let grace = gracePeriod.nanoseconds
        for loopState in context.loopStates {
            loopState.loop.execute { loopState.beginShutdown(grace: grace) }
        }
        context.group.join()
        configuration.logger.info("HTTP/2 server stopped")
    }

    /// Connection and buffer figures, gathered by visiting every loop (blocks briefly).
    public func statistics() -> Statistics {
        var total = Statistics(openConnections: 0, activeRequests: 0, pendingOutputBytes: 0, peakPendingOutputBytes: 0,
                               connectionsWithReadingPaused: 0)
        guard case .running(let context) = state.withLock({ $0 }) else { return total }
        let parts = Mutex<[Statistics]>([])
        let group = DispatchGroup()
        for loopState in context.loopStates {
            group.enter()
            let queued = loopState.loop.execute {
                var part = Statistics(openConnections: 0, activeRequests: 0, pendingOutputBytes: 0,
                                      peakPendingOutputBytes: 0, connectionsWithReadingPaused: 0)
                for connection in loopState.connections.values {
                    part.openConnections += 1
                    part.activeRequests += connection.activeRequests
                    part.pendingOutputBytes += connection.channel.pendingOutputBytes
                    part.peakPendingOutputBytes = max(part.peakPendingOutputBytes, connection.channel.peakPendingOutput)
                    if connection.channel.isReadingPaused { part.connectionsWithReadingPaused += 1 }
                }
                parts.withLock { $0.append(part) }
                group.leave()
            }
            if !queued { group.leave() }
        }
        group.wait()
        for part in parts.withLock({ $0 }) {
            total.openConnections += part.openConnections
            total.activeRequests += part.activeRequests
            total.pendingOutputBytes += part.pendingOutputBytes
            total.peakPendingOutputBytes = max(total.peakPendingOutputBytes, part.peakPendingOutputBytes)
            total.connectionsWithReadingPaused += part.connectionsWithReadingPaused
        }
        return total
    }
}
