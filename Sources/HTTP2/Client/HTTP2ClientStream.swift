import Synchronization

/// The handle of one request in flight: cancel it from any thread. Cancelling resets the stream
/// (RST_STREAM CANCEL) and completes the request with ``HTTP2ClientError/Code-swift.struct/cancelled``,
/// unless it already completed.
public final class HTTP2ClientStream: Sendable {
    private struct State {
        var streamID: Int32?
        var cancelled = false
        var completed = false
    }

    private let state = Mutex(State())
    private let connection: HTTP2LoopBound<ClientConnectionHandler>

    init(connection: HTTP2LoopBound<ClientConnectionHandler>) {
        self.connection = connection
    }

    /// The HTTP/2 stream id, once the request was submitted on the loop.
    public var streamID: Int32? { state.withLock { $0.streamID } }

    public func cancel() {
        let proceed = state.withLock { state -> Bool in
            if state.cancelled || state.completed { return false }
            state.cancelled = true
            return true
        }
        guard proceed else { return }
        connection.withValueOnLoop { $0.cancel(self) }
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    func submitted(as streamID: Int32) { state.withLock { $0.streamID = streamID } }

    func markCompleted() { state.withLock { $0.completed = true } }
}
