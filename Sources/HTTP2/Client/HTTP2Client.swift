internal import CSystem
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/2 client (h2c, prior knowledge) on its own event loop(s). Open connections with
/// ``connect(host:port:)``; each ``HTTP2ClientConnection`` multiplexes many requests.
///
/// Completions run on the connection's loop thread and must not block it. Call ``shutdown()``
/// before releasing the client: it closes every connection (failing requests in flight) and joins
/// the loop threads.
public final class HTTP2Client: Sendable {
    public struct Configuration: Sendable {
        /// Event-loop threads; connections are spread over them round robin.
        public var threadCount: Int = 1
        /// HTTP/2 settings and response limits (`maxBodySize` bounds a response body).
        public var session = HTTP2SessionConfiguration()
        /// Bytes serialized per write batch (clients never pause reading).
        public var outputLimit: Int = 256 << 10
        public var logger: HTTP2Logger = .disabled

        public init() {}
    }

    public let configuration: Configuration
    private let group: EventLoopGroup
    /// Open connections per loop (each dictionary confined to its loop).
    private let registries: [ClientRegistry]
    private let stopped = Atomic<Bool>(false)

    public init(configuration: Configuration = .init()) throws(HTTP2SystemError) {
        self.configuration = configuration
        group = try EventLoopGroup(threadCount: configuration.threadCount, name: "h2-client", logger: configuration.logger)
        registries = group.loops.map { _ in ClientRegistry() }
    }

    /// Connects (nonblocking) and calls `completion` on the loop thread once the connection can
    /// send requests. `host` may be a name (resolved on the calling thread) or a numeric address.
    public func connect(host: String, port: Int,
                        completion: @escaping @Sendable (Result<HTTP2ClientConnection, HTTP2ClientError>) -> Void) {
        guard !stopped.load(ordering: .relaxed) else {
            completion(.failure(HTTP2ClientError(code: .notConnected, message: "the client is shut down")))
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
        let loop = group.next()
        let registry = registries[loop.index]
        let configuration = self.configuration
        let authority = "\(host):\(port)"
        let queued = loop.execute {
            let connectionBox = ConnectionBox()
            let handler: ClientConnectionHandler
            do {
                let session = try HTTP2ClientSession(configuration: configuration.session, logger: configuration.logger)
                handler = ClientConnectionHandler(session: session, authority: authority, logger: configuration.logger) { result in
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
            let channel = Channel(loop: loop, fd: fd, outputLimit: configuration.outputLimit, pausesReading: false,
                                  connecting: true)
            handler.channel = channel
            channel.handler = handler
            connectionBox.connection = HTTP2ClientConnection(host: host, port: port, handler: HTTP2LoopBound(handler, eventLoop: HTTP2EventLoop(loop)))
            let key = ObjectIdentifier(handler)
            registry.connections[key] = handler
            handler.onClose = { registry.connections[key] = nil }
            do {
                try channel.register()
            } catch {
                channel.close(error: error)
            }
        }
        if !queued {
            _ = Glibc.close(fd)
            completion(.failure(HTTP2ClientError(code: .notConnected, message: "the client is shut down")))
        }
    }

    /// Connects and returns once the connection can send requests.
    public func connect(host: String, port: Int) async throws -> HTTP2ClientConnection {
        try await withCheckedThrowingContinuation { continuation in
            connect(host: host, port: port) { continuation.resume(with: $0) }
        }
    }

    /// Closes every connection (requests in flight fail with `connectionClosed`) and joins the loop
    /// threads. Must not be called on a loop thread (e.g. from a completion). Idempotent.
    public func shutdown() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        for (loop, registry) in zip(group.loops, registries) {
            loop.execute {
                for handler in Array(registry.connections.values) { handler.forceClose() }
            }
        }
        group.stopAndJoin()
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

/// One HTTP/2 connection to a server. Thread-safe: every method hops to the connection's loop.
public final class HTTP2ClientConnection: Sendable {
    public let host: String
    public let port: Int
    private let handler: HTTP2LoopBound<ClientConnectionHandler>

    init(host: String, port: Int, handler: HTTP2LoopBound<ClientConnectionHandler>) {
        self.host = host
        self.port = port
        self.handler = handler
    }

    /// Sends a request; `completion` runs on the loop thread with the complete response or an
    /// ``HTTP2ClientError``. The returned handle cancels it.
    @discardableResult
    public func send(_ request: HTTP2ClientRequest,
                     completion: @escaping @Sendable (Result<HTTP2Response, HTTP2ClientError>) -> Void) -> HTTP2ClientStream {
        let handle = HTTP2ClientStream(connection: handler)
        start(request, handle: handle, completion: completion)
        return handle
    }

    /// Sends a request and awaits the complete response. Cancelling the task resets the stream.
    /// Throws ``HTTP2ClientError``.
    public func send(_ request: HTTP2ClientRequest) async throws -> HTTP2Response {
        let handle = HTTP2ClientStream(connection: handler)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                start(request, handle: handle) { continuation.resume(with: $0) }
            }
        } onCancel: {
            handle.cancel()
        }
    }

    /// GOAWAY: no new requests; the connection closes once the requests in flight are done.
    public func close() {
        let handler = self.handler
        handler.eventLoop.execute { handler.value.close() }
    }

    private func start(_ request: HTTP2ClientRequest, handle: HTTP2ClientStream,
                       completion: @escaping @Sendable (Result<HTTP2Response, HTTP2ClientError>) -> Void) {
        let queued = handler.withValueOnLoop { $0.submit(request, handle: handle, completion: completion) }
        if !queued {
            completion(.failure(HTTP2ClientError(code: .notConnected, message: "the client is shut down")))
        }
    }
}
