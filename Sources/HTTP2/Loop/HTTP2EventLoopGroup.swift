/// Event-loop threads that servers and clients can share, so that work arriving on one loop (a
/// request) can continue on that same thread (requests to backends on connections of that loop,
/// their completions, their timers) without a thread hop or a lock.
///
///     let loops = try HTTP2EventLoopGroup(threadCount: 2, name: "coord")
///     let backends = try HTTP2Client(eventLoops: loops)
///     let front = HTTP2Server(eventLoops: loops) { request, responder in
///         let connection = pool[responder.eventLoop.index]   // one connection per loop
///         connection.send(HTTP2ClientRequest(path: "/v1/suggest")) { result in
///             responder.respond(status: 200)               // on the same thread as the handler
///         }
///     }
///     ...
///     front.shutdown()      // its connections close; the loops keep running
///     backends.shutdown()
///     loops.shutdown()      // last: stops and joins the threads
///
/// Ownership: the group owns its threads; servers and clients given a group own only their
/// connections. Shut them down before the group. If the group goes first, every connection still on
/// it is closed as its loop exits (requests fail with `connectionClosed`, responders are
/// cancelled) and their `shutdown` calls return at once, so the wrong order leaks nothing and
/// hangs nothing, but it is abrupt.
///
/// `shutdown()` must be called before the group is released: the threads keep running until then.
public final class HTTP2EventLoopGroup: Sendable {
    let group: EventLoopGroup
    /// The loops, indexed by ``HTTP2EventLoop/index``.
    public let loops: [HTTP2EventLoop]

    /// Starts `threadCount` loops (at least one), each on its own thread named `name-<index>`
    /// (visible in `top -H` and gdb; truncated to 15 bytes). Throws if a thread, an epoll instance
    /// or an eventfd cannot be created; the threads started until then are stopped.
    public init(threadCount: Int, name: String = "h2", logger: HTTP2Logger = .disabled) throws(HTTP2SystemError) {
        group = try EventLoopGroup(threadCount: threadCount, name: name, logger: logger)
        loops = group.loops.map(HTTP2EventLoop.init)
    }

    /// The loops in turn, round robin (any thread; one relaxed atomic increment). Servers and
    /// clients keep their own rotation, so their connections spread evenly whatever this returns.
    public func next() -> HTTP2EventLoop { HTTP2EventLoop(group.next()) }

    /// Stops every loop and waits for its thread to return. What was queued with `execute` before
    /// still runs; later `execute` calls return false; pending timers never fire; connections still
    /// open are closed. Blocks the caller, so it must not be called on one of the group's loops
    /// (a precondition checks it). Idempotent.
    public func shutdown() { group.stopAndJoin() }
}
