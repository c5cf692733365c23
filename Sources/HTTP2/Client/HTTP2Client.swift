internal import CSystem
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/2 client (h2c, prior knowledge). Open connections with ``connect(host:port:on:completion:)``;
/// each ``HTTP2ClientConnection`` multiplexes many requests.
///
///     let client = try HTTP2Client()
///     let connection = try await client.connect(host: "10.0.0.7", port: 7701)
///     let response = try await connection.send(HTTP2ClientRequest(path: "/readyz"))
///     ...
///     client.shutdown()
///
/// Loops: by default the client starts `configuration.threadCount` loops of its own and stops them
/// in ``shutdown()``. Given an ``HTTP2EventLoopGroup`` it opens its connections on those loops and
/// leaves them running; `connect(..., on: responder.eventLoop)` then puts a backend connection on
/// the loop of a server handler, so that sending, the completion and the handler's response all
/// happen on one thread.
///
/// Completions run on the connection's loop thread and must not block it. Call ``shutdown()``
/// before releasing the client: it closes every connection (failing requests in flight).
public final class HTTP2Client: Sendable {
    public struct Configuration: Sendable {
        /// Event-loop threads; connections are spread over them round robin. Ignored when the
        /// client is given a shared ``HTTP2EventLoopGroup``.
        public var threadCount: Int = 1
        /// HTTP/2 settings and response limits (`maxBodySize` bounds a response body).
        public var session = HTTP2SessionConfiguration()
        /// Bytes serialized per write batch (clients never pause reading).
        public var outputLimit: Int = 256 << 10
        /// How long a TCP connect may take before it fails with ``HTTP2ClientError/Code-swift.struct/connectFailed``
        /// (message "… timed out after …") and the socket is closed. Without it, a connect to a host
        /// whose link is down waits for the kernel's SYN retries (about two minutes). It bounds the
        /// TCP handshake only; name resolution happens before, on the calling thread.
        public var connectTimeout: Duration = .seconds(3)
        public var logger: HTTP2Logger = .disabled
        /// TLS on every connection (h2 by ALPN; mutual TLS when it has a certificate), or nil for
        /// cleartext HTTP/2 with prior knowledge.
        public var tls: HTTP2ClientTLS?

        public init() {}
    }

    public let configuration: Configuration
    /// The shared loops given to `init`, or nil when the client runs loops of its own.
    public let eventLoops: HTTP2EventLoopGroup?
    private let group: EventLoopGroup
    /// Open connections per loop, indexed by loop index (each registry confined to its loop).
    private let registries: [ClientRegistry]
    private let stopped = Atomic<Bool>(false)
    /// The client's own round robin (a shared group's `next()` is also used by others).
    private let cursor = Atomic<Int>(0)

    /// A client on loops of its own (`configuration.threadCount`), or on the shared `eventLoops`.
    /// Throws only when starting its own loops fails.
    public init(configuration: Configuration = .init(), eventLoops: HTTP2EventLoopGroup? = nil) throws(HTTP2SystemError) {
        self.configuration = configuration
        self.eventLoops = eventLoops
        if let eventLoops {
            group = eventLoops.group
        } else {
            group = try EventLoopGroup(threadCount: configuration.threadCount, name: "h2-client", logger: configuration.logger)
        }
        registries = group.loops.map { _ in ClientRegistry() }
    }

    /// Connects (nonblocking) and calls `completion` once the connection can send requests, or with
    /// ``HTTP2ClientError/Code-swift.struct/connectFailed`` (refused, unreachable, timed out after
    /// ``Configuration/connectTimeout``, or `host` unknown).
    ///
    /// - `host`: a numeric address, or a name resolved with getaddrinfo on the calling thread
    ///   (which blocks: on a loop thread, pass numeric addresses).
    /// - `loop`: the loop that will own the connection; it must be one of this client's loops
    ///   (precondition). nil picks the next one round robin. Called on `loop` itself, the
    ///   connection is set up inline, without a hop.
    /// - `completion`: runs on the connection's loop thread (or on the calling thread when the
    ///   connect fails before reaching the loop).
    public func connect(host: String, port: Int, on loop: HTTP2EventLoop? = nil,
                        completion: @escaping @Sendable (Result<HTTP2ClientConnection, HTTP2ClientError>) -> Void) {
        let target = loop.map(member) ?? group.loops[cursor.wrappingAdd(1, ordering: .relaxed).oldValue % group.loops.count]
        guard !stopped.load(ordering: .relaxed) else {
            completion(.failure(Self.shutDownError))
            return
        }
        var resolution: Int32 = 0
        let fd = csystem_connect(host, Int32(port), &resolution)
        if fd < 0 {
            let cause = HTTP2SystemError(code: errno, function: resolution != 0 ? "getaddrinfo(\(host)): \(resolution)" : "connect")
            completion(.failure(HTTP2ClientError(code: .connectFailed, message: "could not connect to \(host):\(port)", cause: cause)))
            return
        }
        _ = csystem_set_nodelay(fd)
        if target.inEventLoop {
            open(fd, host: host, port: port, on: target, completion: completion)
        } else if !target.execute({ self.open(fd, host: host, port: port, on: target, completion: completion) }) {
            _ = Glibc.close(fd)
            completion(.failure(Self.shutDownError))
        }
    }

    /// Connects and returns once the connection can send requests; see
    /// ``connect(host:port:on:completion:)``. Throws ``HTTP2ClientError``.
    public func connect(host: String, port: Int, on loop: HTTP2EventLoop? = nil) async throws -> HTTP2ClientConnection {
        try await withCheckedThrowingContinuation { continuation in
            connect(host: host, port: port, on: loop) { continuation.resume(with: $0) }
        }
    }

    /// Closes every connection of this client (requests in flight fail with `connectionClosed`)
    /// and returns once they are closed. A client that owns its loops also stops and joins their
    /// threads; shared loops keep running. Must not be called on a loop thread (e.g. from a
    /// completion). Idempotent.
    public func shutdown() {
        precondition(!group.loops.contains { $0.inEventLoop }, "HTTP2Client.shutdown called on one of its loops")
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        let closed = DispatchGroup()
        for (loop, registry) in zip(group.loops, registries) {
            closed.enter()
            let queued = loop.execute {
                for handler in Array(registry.connections.values) { handler.forceClose() }
                closed.leave()
            }
            // A loop that has exited (a shared group shut down first) closed its connections then.
            if !queued { closed.leave() }
        }
        closed.wait()
        if eventLoops == nil { group.stopAndJoin() }
    }

    // MARK: Loop thread

    /// Takes over the connecting socket on `loop`: session, channel, registry entry, connect timer.
    private func open(_ fd: Int32, host: String, port: Int, on loop: EventLoop,
                      completion: @escaping @Sendable (Result<HTTP2ClientConnection, HTTP2ClientError>) -> Void) {
        // `shutdown` sets the flag before queueing its close pass on this loop, so a connect that
        // runs after that pass sees it and does not leave a connection behind.
        guard !stopped.load(ordering: .relaxed) else {
            _ = Glibc.close(fd)
            completion(.failure(Self.shutDownError))
            return
        }
        let eventLoop = HTTP2EventLoop(loop)
        let status = ClientConnectionStatus()
        let connectionBox = ConnectionBox()
        let handler: ClientConnectionHandler
        do {
            let session = try HTTP2ClientSession(configuration: configuration.session, logger: configuration.logger)
            handler = ClientConnectionHandler(session: session, authority: "\(host):\(port)", logger: configuration.logger,
                                              status: status) { result in
                switch result {
                case .success: completion(.success(connectionBox.connection!))
                case .failure(let error): completion(.failure(error))
                }
            }
        } catch {
            _ = Glibc.close(fd)
            completion(.failure(HTTP2ClientError(code: .connectFailed, message: "session setup failed", cause: error)))
            return
        }
        var tlsSession: TLSSession?
        if let tls = configuration.tls {
            do {
                tlsSession = try tls.makeSession(host: host)
            } catch {
                _ = Glibc.close(fd)
                completion(.failure(HTTP2ClientError(code: .connectFailed, message: "TLS setup failed", cause: error)))
                return
            }
        }
        let channel = Channel(loop: loop, fd: fd, outputLimit: configuration.outputLimit, pausesReading: false,
                              connecting: true)
        channel.tls = tlsSession
        handler.channel = channel
        channel.handler = handler
        connectionBox.connection = HTTP2ClientConnection(host: host, port: port, status: status,
                                                         handler: HTTP2LoopBound(handler, eventLoop: eventLoop))
        let registry = registries[loop.index]
        let key = ObjectIdentifier(handler)
        registry.connections[key] = handler
        handler.whenClosed { registry.connections[key] = nil }
        do {
            try channel.register()
        } catch {
            channel.close(error: error)
            return
        }
        handler.startConnectTimer(configuration.connectTimeout)
    }

    /// `loop`'s internal loop, which must be one of this client's.
    private func member(_ loop: HTTP2EventLoop) -> EventLoop {
        precondition(group.loops.indices.contains(loop.index) && group.loops[loop.index] === loop.loop,
                     "HTTP2Client.connect: the loop is not one of this client's loops")
        return loop.loop
    }

    private static var shutDownError: HTTP2ClientError {
        HTTP2ClientError(code: .notConnected, message: "the client is shut down")
    }
}

/// Loop-confined table of a loop's client connections (for shutdown).
private final class ClientRegistry: @unchecked Sendable {
    var connections: [ObjectIdentifier: ClientConnectionHandler] = [:]
}

/// Hands the connection object to the connect completion (both on the loop thread).
private final class ConnectionBox: @unchecked Sendable {
    var connection: HTTP2ClientConnection?
}
