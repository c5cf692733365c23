/// A handle to one event-loop thread of an ``HTTP2EventLoopGroup``: run closures on it, and run
/// timers on it.
///
///     // In a server handler: fan out on the loop that received the request, with a deadline.
///     let loop = responder.eventLoop                      // the handler runs on it
///     let deadline = loop.scheduleTimer(after: .milliseconds(50)) {
///         responder.respond(status: 504)                  // on `loop`, no lock, no hop
///     }
///     backend.send(request) { result in                   // `backend` lives on `loop` too
///         loop.cancelTimer(deadline)                      // so does this completion
///         ...
///     }
///
/// Threading: ``execute(_:)`` and ``inEventLoop`` work from any thread. Timers are loop-thread
/// state: ``scheduleTimer(after:_:)`` and ``cancelTimer(_:)`` must be called on the loop thread
/// (a precondition checks it) and callbacks run there, so the per-request timers of a coordinator
/// need no lock; from elsewhere, wrap the call in ``execute(_:)``.
///
/// Two handles are equal when they name the same loop. The handle keeps its loop object alive, not
/// its thread: the thread runs until the group is shut down.
public struct HTTP2EventLoop: Sendable, Hashable {
    let loop: EventLoop

    init(_ loop: EventLoop) { self.loop = loop }

    /// The loop's position in ``HTTP2EventLoopGroup/loops`` (0 for the loop that runs a server's
    /// acceptor). Handy to index per-loop state.
    public var index: Int { loop.index }

    /// True when called on this loop's thread. O(1): one atomic load and `pthread_self`.
    public var inEventLoop: Bool { loop.inEventLoop }

    /// Runs `task` on the loop thread after the I/O of the current iteration, in the order tasks
    /// were queued. Called on the loop thread itself it still queues (it never runs `task` inline).
    /// Returns false, dropping `task`, once the group has been shut down.
    ///
    /// Cost: one mutex-protected append; the eventfd is written at most once per batch of tasks.
    @discardableResult
    public func execute(_ task: @escaping @Sendable () -> Void) -> Bool { loop.execute(task) }

    /// Runs `callback` on this loop's thread once `delay` has passed (a zero or negative delay: in
    /// the next iteration, never inline). Timers fire in deadline order; equal deadlines in the
    /// order they were scheduled. Resolution is a millisecond (epoll's timeout), so a few-ms hedge
    /// fires within about a millisecond of its deadline on an idle loop.
    ///
    /// Loop thread only. O(log n) in the loop's pending timers. Timers still pending when the group
    /// shuts down never fire.
    public func scheduleTimer(after delay: Duration, _ callback: @escaping () -> Void) -> HTTP2Timer {
        precondition(loop.inEventLoop, "HTTP2EventLoop.scheduleTimer called off loop \(loop.index)'s thread")
        return HTTP2Timer(id: loop.schedule(in: delay.nanoseconds, callback), loop: ObjectIdentifier(loop))
    }

    /// Cancels `timer` so its callback never runs. A no-op if it already fired or was cancelled,
    /// including from inside its own callback or that of a timer due at the same moment.
    ///
    /// Loop thread only, and only for timers of this loop (preconditions). O(1).
    public func cancelTimer(_ timer: HTTP2Timer) {
        precondition(loop.inEventLoop, "HTTP2EventLoop.cancelTimer called off loop \(loop.index)'s thread")
        precondition(timer.loop == ObjectIdentifier(loop), "HTTP2EventLoop.cancelTimer: the timer belongs to another loop")
        loop.cancelTimer(timer.id)
    }

    public static func == (lhs: HTTP2EventLoop, rhs: HTTP2EventLoop) -> Bool { lhs.loop === rhs.loop }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(loop)) }
}
