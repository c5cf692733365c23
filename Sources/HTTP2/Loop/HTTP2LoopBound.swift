/// A reference that belongs to one event loop: it can be carried across threads (it is
/// `Sendable`), but ``value`` may only be read on that loop's thread, where a precondition checks
/// it. Like swift-nio's `NIOLoopBound`: the check turns a threading bug into a trap instead of a
/// data race, and lets loop-confined state (a per-loop connection pool, a request's fan-out state)
/// be captured by `@Sendable` closures that run on the loop.
///
///     final class FanOut { var answers: [HTTP2Response] = [] }     // not Sendable, loop-confined
///     let state = HTTP2LoopBound(FanOut(), eventLoop: responder.eventLoop)
///     connection.send(request) { result in                          // a @Sendable completion
///         if case .success(let answer) = result {
///             state.value.answers.append(answer)                   // on the loop: allowed
///         }
///     }
///
/// Why it is sound: the value is only reachable through ``value`` once wrapped, and ``value`` is
/// only handed out on the loop thread, so every access happens on one thread. Both initializers
/// keep that true: one runs on the loop (the value may still be referenced there, which is the
/// same thread), the other takes the value over (`sending`), so nobody else holds it. Cost of
/// ``value``: one atomic load and `pthread_self`.
public struct HTTP2LoopBound<Value: AnyObject>: @unchecked Sendable {
    /// The loop the value belongs to.
    public let eventLoop: HTTP2EventLoop
    private let _value: Value

    /// Binds `value` to `eventLoop`. Must be called on that loop's thread (precondition).
    public init(_ value: Value, eventLoop: HTTP2EventLoop) {
        precondition(eventLoop.inEventLoop, "HTTP2LoopBound created off loop \(eventLoop.index)'s thread")
        self.eventLoop = eventLoop
        self._value = value
    }

    /// Binds a value that the caller hands over (nothing else may refer to it), from any thread;
    /// for loop-confined state built before it is used, e.g. one pool per loop at startup.
    public init(sending value: sending Value, eventLoop: HTTP2EventLoop) {
        self.eventLoop = eventLoop
        self._value = value
    }

    /// The value. Only on the loop thread (precondition).
    public var value: Value {
        precondition(eventLoop.inEventLoop, "HTTP2LoopBound accessed off loop \(eventLoop.index)'s thread")
        return _value
    }

    /// Runs `body` with the value on the loop: inline when called there, else queued with
    /// ``HTTP2EventLoop/execute(_:)``. Calls made from one thread are applied in order, because a
    /// thread is either always the loop (inline) or never (queued, FIFO). Returns false when the
    /// loop has shut down (`body` is dropped).
    @discardableResult
    func withValueOnLoop(_ body: @escaping @Sendable (Value) -> Void) -> Bool {
        if eventLoop.inEventLoop {
            body(_value)
            return true
        }
        let bound = self
        return eventLoop.execute { body(bound.value) }
    }
}
