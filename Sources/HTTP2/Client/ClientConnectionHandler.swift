import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One client connection's protocol side: joins a `Channel` to an `HTTP2ClientSession`, keeps the
/// completion of every request in flight, fails them all if the connection ends, bounds the TCP
/// connect with a timer, and tells close handlers when it is gone.
///
/// Thread ownership: confined to its loop thread; `HTTP2ClientConnection` and `HTTP2ClientStream`
/// reach it through `HTTP2LoopBound` hops. Completions and close handlers are called on that
/// thread. The one thing other threads read is `status`, an atomic written here.
final class ClientConnectionHandler: ChannelHandler {
    typealias Completion = @Sendable (Result<HTTP2Response, HTTP2ClientError>) -> Void

    /// Who waits for a request's response: a handle and its completion, or a receiver and the
    /// request's tag (``HTTP2ResponseReceiver``).
    private enum InFlight {
        case completion(HTTP2ClientStream, Completion)
        case receiver(HTTP2ResponseReceiver, tag: Int)
    }

    let session: HTTP2ClientSession
    let authority: String
    let logger: HTTP2Logger
    var channel: Channel!
    private var inFlight: [Int32: InFlight] = [:]
    private var connectCompletion: (@Sendable (Result<Void, HTTP2ClientError>) -> Void)?
    private(set) var closed = false
    /// Closed by ``forceClose()``: requests in flight fail with ``HTTP2ClientError/Code/closedLocally``.
    private var closedLocally = false
    /// GOAWAY was received or sent: no new requests (``HTTP2ClientConnection/isAcceptingRequests``).
    private var goingAway = false
    private var reading = false
    /// Called once, in order, when the connection closed (the registry's removal comes first).
    private var closeHandlers: [() -> Void] = []
    private var connectTimer: UInt64?
    /// Set when the connect timer closed the channel, for the error message.
    private var connectTimedOutAfter: Duration?
    /// Mirrors "open, connected and not going away" for other threads.
    let status: ClientConnectionStatus

    init(session: HTTP2ClientSession, authority: String, logger: HTTP2Logger, status: ClientConnectionStatus,
         connectCompletion: @escaping @Sendable (Result<Void, HTTP2ClientError>) -> Void) {
        self.session = session
        self.authority = authority
        self.logger = logger
        self.status = status
        self.connectCompletion = connectCompletion
    }

    var inFlightCount: Int { inFlight.count }

    // MARK: Requests (loop thread)

    func submit(_ request: HTTP2ClientRequest, handle: HTTP2ClientStream, completion: @escaping Completion) {
        if handle.isCancelled {
            complete(.completion(handle, completion), .failure(HTTP2ClientError(code: .cancelled, message: "cancelled before it was sent")))
            return
        }
        if let id = submit(request, .completion(handle, completion)) { handle.submitted(as: id) }
    }

    func submit(_ request: HTTP2ClientRequest, to receiver: HTTP2ResponseReceiver, tag: Int) -> Int32? {
        submit(request, .receiver(receiver, tag: tag))
    }

    /// Submits the request and records who waits for it; nil (the waiter already failed) when it
    /// cannot be sent.
    private func submit(_ request: HTTP2ClientRequest, _ waiter: InFlight) -> Int32? {
        guard !closed, !goingAway, connectCompletion == nil else {
            let reason = goingAway ? "the connection is going away (GOAWAY)" : "the connection is not open"
            complete(waiter, .failure(HTTP2ClientError(code: .notConnected, message: reason)))
            return nil
        }
        let id: Int32
        do {
            id = try session.sendRequest(method: request.method, authority: request.authority ?? authority,
                                         path: request.path, headers: request.headers, body: request.body)
        } catch {
            complete(waiter, .failure(HTTP2ClientError(code: .notConnected, message: "request not submitted", cause: error)))
            return nil
        }
        inFlight[id] = waiter
        if !reading { channel.flushSoon() }
        return id
    }

    func cancel(_ handle: HTTP2ClientStream) {
        guard let id = handle.streamID else { return }
        cancel(streamID: id)
    }

    func cancel(streamID id: Int32) {
        guard let waiter = inFlight.removeValue(forKey: id) else { return }
        try? session.resetStream(streamID: id, errorCode: .cancel)
        complete(waiter, .failure(HTTP2ClientError(code: .cancelled, message: "cancelled", errorCode: .cancel)))
        if !reading { channel.flushSoon() }
    }

    /// GOAWAY, then close once the streams in flight are done.
    func close() {
        guard !closed else { return }
        if connectCompletion != nil {
            channel.close(error: nil)
            return
        }
        try? session.goAway()
        stopAcceptingRequests()
        channel.flush()
    }

    func forceClose() {
        closedLocally = true
        channel.close(error: nil)
    }

    /// Runs `handler` once when the connection closes, or now if it already has.
    func whenClosed(_ handler: @escaping () -> Void) {
        if closed {
            handler()
        } else {
            closeHandlers.append(handler)
        }
    }

    /// Fails the connect if the socket has not connected within `timeout` (the kernel would keep
    /// retrying SYNs for minutes towards a host that does not answer).
    func startConnectTimer(_ timeout: Duration) {
        guard !closed, connectCompletion != nil else { return }
        connectTimer = channel.loop.schedule(in: timeout.nanoseconds) { [weak self] in
            guard let self else { return }
            self.connectTimer = nil
            guard !self.closed, self.connectCompletion != nil else { return }
            self.connectTimedOutAfter = timeout
            self.channel.close(error: HTTP2SystemError(code: ETIMEDOUT, function: "connect"))
        }
    }

    private func cancelConnectTimer() {
        if let connectTimer { channel.loop.cancelTimer(connectTimer) }
        connectTimer = nil
    }

    private func stopAcceptingRequests() {
        goingAway = true
        status.acceptingRequests.store(false, ordering: .relaxed)
    }

    private func complete(_ waiter: InFlight, _ result: Result<HTTP2Response, HTTP2ClientError>) {
        switch waiter {
        case .completion(let handle, let completion):
            handle.markCompleted()
            completion(result)
        case .receiver(let receiver, let tag):
            receiver.received(result, tag: tag)
        }
    }

    // MARK: ChannelHandler

    func channelConnected(_ channel: Channel) {
        cancelConnectTimer()
        let completion = connectCompletion
        connectCompletion = nil
        completion?(.success(()))
    }

    func channelRead(_ channel: Channel, _ bytes: UnsafeRawBufferPointer) throws {
        reading = true
        defer { reading = false }
        try session.receive(bytes)
        processEvents()
    }

    func channelProduce(_ channel: Channel, into buffer: inout [UInt8], limit: Int) throws {
        try session.send(into: &buffer, limit: limit)
        processEvents()
    }

    func channelIsFinished(_ channel: Channel) -> Bool {
        // nghttp2 keeps wanting to read on an idle client connection; it is finished only once a
        // GOAWAY was exchanged and no stream is left.
        !session.wantsRead && !session.wantsWrite
    }

    func channelClosed(_ channel: Channel, error: (any Error)?) {
        closed = true
        status.acceptingRequests.store(false, ordering: .relaxed)
        cancelConnectTimer()
        if let completion = connectCompletion {
            connectCompletion = nil
            let message = connectTimedOutAfter.map { "connecting to \(authority) timed out after \($0)" }
                ?? "could not connect to \(authority)"
            completion(.failure(HTTP2ClientError(code: .connectFailed, message: message, cause: sendableError(error))))
        }
        let pending = inFlight
        inFlight = [:]
        for waiter in pending.values {
            let failure = closedLocally
                ? HTTP2ClientError(code: .closedLocally, message: "connection closed by this client before the response ended")
                : HTTP2ClientError(code: .connectionClosed, message: "connection closed before the response ended", cause: sendableError(error))
            complete(waiter, .failure(failure))
        }
        if closedLocally {
            logger.debug("connection to \(authority) closed by this client with \(pending.count) requests in flight")
        } else if let error {
            logger.log(pending.isEmpty ? .debug : .warning, "connection to \(authority) closed with \(pending.count) requests in flight: \(error)")
        } else if !pending.isEmpty {
            logger.warning("server \(authority) closed the connection with \(pending.count) requests in flight")
        }
        let handlers = closeHandlers
        closeHandlers = []
        for handler in handlers { handler() }
    }

    private func processEvents() {
        session.drainEvents { event in
            switch event {
            case .response(let response):
                if let waiter = inFlight.removeValue(forKey: response.streamID) {
                    complete(waiter, .success(response))
                }
            case .responseRejected(let id, let reason):
                if let waiter = inFlight.removeValue(forKey: id) {
                    complete(waiter, .failure(HTTP2ClientError(code: .responseRejected, message: "\(reason)")))
                }
            case .streamClosed(let id, let errorCode):
                if let waiter = inFlight.removeValue(forKey: id) {
                    complete(waiter, .failure(HTTP2ClientError(code: .streamReset, message: "stream \(id) reset by the server",
                                                               errorCode: errorCode)))
                }
            case .goAway(let last, let errorCode):
                stopAcceptingRequests()
                // NO_ERROR is a server shutting down or recycling the connection; anything else
                // says why it ended it on us.
                logger.log(errorCode == .noError ? .debug : .warning,
                           "server \(authority) sent GOAWAY (last stream \(last), \(errorCode)), \(inFlight.count) requests in flight")
            }
        }
    }
}

/// What other threads may read about a connection: one atomic flag, written on the loop thread
/// (relaxed: it is advisory, nothing else is published with it).
final class ClientConnectionStatus: Sendable {
    let acceptingRequests = Atomic<Bool>(true)
}

/// The errors that reach a channel are this module's own Sendable structs; anything else is
/// carried by its description.
func sendableError(_ error: (any Error)?) -> (any Error & Sendable)? {
    guard let error else { return nil }
    if let error = error as? HTTP2SystemError { return error }
    if let error = error as? HTTP2SessionError { return error }
    return HTTP2ClientError(code: .connectionClosed, message: "\(error)")
}
