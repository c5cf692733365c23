internal import CSystem
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/2 (h2c, prior knowledge) server: N event-loop threads, one acceptor, one handler call per
/// complete request.
///
/// HTTP/1.1 fallback: a connection whose first bytes are not the HTTP/2 client preface is served
/// as HTTP/1.1 (keep-alive, pipelining answered in order) by the same handler, with the same
/// ``HTTP2Request`` and ``HTTP2Responder`` (`scheme` "http", odd stream ids per connection), so
/// that Prometheus, curl and health checkers reach a server whose clients speak HTTP/2. The
/// same limits apply; over-size requests are answered 413/431 by the transport itself (not by
/// ``Configuration/rejectionHandler``), malformed ones 400, gRPC 505 (it needs HTTP/2), each
/// followed by closing the connection. `Upgrade: h2c` is ignored: the request is answered in
/// HTTP/1.1 (clients wanting HTTP/2 use prior knowledge). Telling the protocols apart costs the
/// HTTP/2 path one comparison of the first 24 bytes (see `ProtocolSniffer`).
///
///     let server = HTTP2Server(configuration: .init()) { request, responder in
///         responder.respond(status: 200, headers: [("content-type", "text/plain")], body: Array("hi".utf8))
///     }
///     let port = try server.start()
///     ...
///     server.shutdown(gracePeriod: .seconds(5))
///
/// The handler runs on the connection's event-loop thread (``HTTP2Responder/eventLoop``) and must
/// not block it: hand slow work to another thread and complete the ``HTTP2Responder`` from there
/// (it hops back to the loop). `shutdown` must be called before the server is released (its
/// connections, and the loop threads of a server that owns them, live until then).
///
/// Loops: by default the server starts `configuration.threadCount` loops of its own and stops them
/// in `shutdown`. Given an ``HTTP2EventLoopGroup`` it runs its connections on those loops instead
/// (the acceptor on loop 0) and leaves them running, so a handler can continue on its own loop with
/// an ``HTTP2Client`` on the same group, with timers of that loop, without a thread hop.
public final class HTTP2Server: Sendable {
    public let configuration: Configuration
    /// The shared loops given to `init`, or nil when the server runs loops of its own.
    public let eventLoops: HTTP2EventLoopGroup?
    private let handler: @Sendable (HTTP2Request, HTTP2Responder) -> Void

    private enum State {
        case idle
        case running(ServerContext)
        case stopped
    }

    private let state = Mutex(State.idle)

    /// A server that calls `handler` for every complete request. With `eventLoops` its connections
    /// run on that shared group (and `configuration.threadCount` is ignored); without, it starts
    /// loops of its own in ``start()``.
    public init(configuration: Configuration = .init(), eventLoops: HTTP2EventLoopGroup? = nil,
                handler: @escaping @Sendable (HTTP2Request, HTTP2Responder) -> Void) {
        self.configuration = configuration
        self.eventLoops = eventLoops
        self.handler = handler
    }

    /// Binds `host:port`, starts the loops (unless they are shared), and returns the bound port
    /// (the ephemeral one for port 0). Throws if binding fails, or if the shared group has already
    /// been shut down. Must not be called on a loop thread of a shared group (it waits for loop 0).
    public func start() throws(HTTP2SystemError) -> Int {
        try state.withLock { (state) throws(HTTP2SystemError) -> Int in
            guard case .idle = state else { throw HTTP2SystemError(code: EINVAL, function: "HTTP2Server.start: already started") }
            var port: Int32 = 0
            let fd = csystem_listen(configuration.host, Int32(configuration.port), configuration.backlog, &port)
            if fd < 0 { throw HTTP2SystemError(code: errno, function: "listen(\(configuration.host):\(configuration.port))") }
            let group: EventLoopGroup
            if let eventLoops {
                group = eventLoops.group
                precondition(!group.loops.contains { $0.inEventLoop }, "HTTP2Server.start called on one of its loops")
            } else {
                do throws(HTTP2SystemError) {
                    group = try EventLoopGroup(threadCount: configuration.threadCount, name: "h2-server", logger: configuration.logger)
                } catch {
                    _ = Glibc.close(fd)
                    throw error
                }
            }
            let context = ServerContext(configuration: configuration, handler: handler, group: group,
                                        ownsGroup: eventLoops == nil)
            let loop = group.loops[0]
            let registered = Mutex<HTTP2SystemError?>(nil)
            let done = DispatchSemaphore(value: 0)
            let queued = loop.execute {
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
            if queued {
                done.wait()
            } else {
                _ = Glibc.close(fd)
                registered.withLock { $0 = HTTP2SystemError(code: ESHUTDOWN, function: "HTTP2Server.start: the event loop group is shut down") }
            }
            if let error = registered.withLock({ $0 }) {
                if context.ownsGroup { group.stopAndJoin() }
                throw error
            }
            state = .running(context)
            configuration.logger.info("HTTP/2 server listening on \(configuration.host):\(port) with \(group.loops.count) loops")
            return Int(port)
        }
    }

    /// Graceful shutdown: stop accepting, send GOAWAY on every connection, let in-flight requests
    /// finish for up to `gracePeriod`, then close what is left (cancelling those requests). Returns
    /// once every connection of this server is closed; a server that owns its loops has then also
    /// stopped and joined their threads, while shared loops keep running for their other users.
    /// Blocks the caller until done; must not be called on a loop thread (from a handler, say).
    /// Idempotent.
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
        precondition(!context.group.loops.contains { $0.inEventLoop }, "HTTP2Server.shutdown called on one of its loops")
        let grace = gracePeriod.nanoseconds
        let finished = DispatchGroup()
        for loopState in context.loopStates {
            finished.enter()
            let queued = loopState.loop.execute { loopState.beginShutdown(grace: grace) { finished.leave() } }
            // A loop that has exited (a shared group shut down first) closed its connections then.
            if !queued { finished.leave() }
        }
        finished.wait()
        if context.ownsGroup { context.group.stopAndJoin() }
        configuration.logger.info("HTTP/2 server stopped")
    }

    /// Connection and buffer figures, gathered by visiting every loop (blocks briefly). Must not be
    /// called on one of the server's loops, since it waits for each of them (a precondition checks
    /// it: with a shared group, a handler of another server on the same loops could otherwise
    /// deadlock its own loop).
    public func statistics() -> Statistics {
        var total = Statistics(openConnections: 0, activeRequests: 0, pendingOutputBytes: 0, peakPendingOutputBytes: 0,
                               connectionsWithReadingPaused: 0)
        guard case .running(let context) = state.withLock({ $0 }) else { return total }
        precondition(!context.group.loops.contains { $0.inEventLoop }, "HTTP2Server.statistics called on one of its loops")
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
