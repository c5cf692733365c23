internal import CSystem
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Something registered with an event loop's epoll instance.
protocol Selectable: AnyObject {
    /// Called on the loop thread with the epoll event bits.
    func ready(_ events: UInt32)
    /// The loop is exiting while this is still registered (a shared group was shut down before
    /// the server or client on it): close now, telling the owner as for any other close, so that
    /// no socket outlives its loop and nobody waits for a loop that will never run again.
    func loopIsExiting()
}

/// One epoll instance driven by one thread.
///
/// Thread ownership: the registrations, timers and everything reachable from a registered
/// `Selectable` belong to the loop thread. The only members other threads may use are
/// ``execute(_:)`` (queue a closure and wake the loop through its eventfd) and ``inEventLoop``.
/// That split is why the class is `@unchecked Sendable`. The public face is ``HTTP2EventLoop``.
///
/// Level-triggered: a readiness bit stays set until the condition is consumed, so a handler may
/// stop after a bounded amount of work (fairness across connections) without losing the wakeup,
/// and interest changes (pausing reads for backpressure) take effect by changing the mask.
final class EventLoop: @unchecked Sendable {
    let index: Int
    let logger: HTTP2Logger
    private let epoll: FileDescriptor
    private let wakeup: FileDescriptor

    private struct Inbox {
        var tasks: [@Sendable () -> Void] = []
        /// The eventfd has been written since the loop last emptied the inbox.
        var signalled = false
        /// The loop has exited; `execute` refuses new tasks.
        var closed = false
    }

    private let inbox = Mutex(Inbox())
    private let threadID = Atomic<UInt>(0)

    // Loop-thread state.
    private var handlers: [UInt64: any Selectable] = [:]
    private var nextToken: UInt64 = 1  // 0 is the wakeup eventfd
    private var timers = TimerQueue()
    private var stopRequested = false
    /// Channels with frames produced outside their own read (``flushSoon(_:)``), written once
    /// each at the end of this iteration.
    private var pendingFlushes: [Channel] = []
    /// One read buffer per loop, shared by all its connections: a read is consumed (fed to the
    /// session) before the next one starts, so no connection needs a buffer of its own.
    let readBuffer: UnsafeMutableRawBufferPointer

    init(index: Int, logger: HTTP2Logger) throws(HTTP2SystemError) {
        self.index = index
        self.logger = logger
        guard case .done(let epollFD) = try SystemCall.run("epoll_create1", { csystem_epoll_create() }),
              case .done(let eventFD) = try SystemCall.run("eventfd", { csystem_eventfd() }) else {
            throw HTTP2SystemError(code: EAGAIN, function: "EventLoop.init")
        }
        epoll = FileDescriptor(epollFD)
        wakeup = FileDescriptor(eventFD)
        readBuffer = .allocate(byteCount: 64 << 10, alignment: 16)
        try SystemCall.check("epoll_ctl") { csystem_epoll_add(epoll.raw, wakeup.raw, CSYSTEM_EPOLLIN, 0) }
    }

    deinit { readBuffer.deallocate() }

    /// True on the loop thread while ``run()`` runs. Relaxed is enough: the only thread that can
    /// see its own id stored is the one that stored it.
    var inEventLoop: Bool { threadID.load(ordering: .relaxed) == UInt(bitPattern: Int(bitPattern: pthread_self())) }

    /// Runs `task` on the loop thread, after the current iteration's I/O. Returns false (and drops
    /// the task) if the loop has exited. Wakeups are coalesced: one eventfd write per batch.
    @discardableResult
    func execute(_ task: @escaping @Sendable () -> Void) -> Bool {
        let signal: Bool? = inbox.withLock { inbox in
            if inbox.closed { return nil }
            inbox.tasks.append(task)
            if inbox.signalled { return false }
            inbox.signalled = true
            return true
        }
        guard let signal else { return false }
        if signal, csystem_eventfd_signal(wakeup.raw) != 0 {
            logger.error("eventfd write failed: \(HTTP2SystemError(code: errno, function: "write(eventfd)"))")
        }
        return true
    }

    /// Asks the loop to return from ``run()`` after the current iteration (any thread).
    func stop() {
        execute { [self] in stopRequested = true }
    }

    // MARK: Loop thread only

    func register(_ handler: any Selectable, fd: Int32, events: UInt32) throws(HTTP2SystemError) -> UInt64 {
        let token = nextToken
        nextToken += 1
        try SystemCall.check("epoll_ctl(ADD)") { csystem_epoll_add(epoll.raw, fd, events, token) }
        handlers[token] = handler
        return token
    }

    func reregister(token: UInt64, fd: Int32, events: UInt32) throws(HTTP2SystemError) {
        try SystemCall.check("epoll_ctl(MOD)") { csystem_epoll_modify(epoll.raw, fd, events, token) }
    }

    func deregister(token: UInt64, fd: Int32) {
        handlers[token] = nil
        // Fails only if fd is already closed, which also removes it from the epoll set.
        _ = csystem_epoll_remove(epoll.raw, fd)
    }

    /// Runs `callback` on this thread once `delay` nanoseconds have passed; returns the id that
    /// ``cancelTimer(_:)`` takes. Timers still pending when the loop exits never fire.
    @discardableResult
    func schedule(in delay: UInt64, _ callback: @escaping () -> Void) -> UInt64 {
        timers.schedule(at: monotonicNow() &+ delay, callback)
    }

    /// A no-op for a timer that already fired or was cancelled.
    func cancelTimer(_ id: UInt64) { timers.cancel(id) }

    /// Writes `channel`'s output at the end of this iteration, once however often it is asked.
    ///
    /// Why: a coordinator that reads sixteen client requests in one read submits sixty-four shard
    /// requests on four connections, and answers as many clients as shard answers arrive in one
    /// batch; flushing at each would be one `send` per frame. Deferred to the iteration's end
    /// (after its I/O, timers and tasks, still before the next `epoll_wait`), each connection gets
    /// one `send` carrying all of them, and no frame waits longer than the iteration.
    func flushSoon(_ channel: Channel) {
        pendingFlushes.append(channel)
    }

    private func runPendingFlushes() {
        // Flushing can complete requests whose callers produce more output (and ask again).
        while !pendingFlushes.isEmpty {
            let channels = pendingFlushes
            pendingFlushes.removeAll(keepingCapacity: true)
            for channel in channels { channel.flushIfPending() }
        }
    }

    /// The loop body. Returns after ``stop()``; tasks queued until then still run, later ones are
    /// refused, so nothing handed over (an accepted socket, say) is silently dropped. Whatever is
    /// still registered at that point is closed (see ``Selectable/loopIsExiting()``).
    func run() {
        threadID.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .relaxed)
        var events = [csystem_event](repeating: csystem_event(), count: 64)
        while !stopRequested {
            var timeout: Int32 = -1
            if let deadline = timers.nextDeadline {
                let now = monotonicNow()
                timeout = deadline <= now ? 0 : Int32(clamping: (deadline - now + 999_999) / 1_000_000)
            }
            let count: Int32
            do {
                let result = try SystemCall.run("epoll_wait") {
                    events.withUnsafeMutableBufferPointer { csystem_epoll_wait(epoll.raw, $0.baseAddress, 64, timeout) }
                }
                guard case .done(let n) = result else { continue }
                count = n
            } catch {
                logger.error("event loop \(index): \(error)")
                break
            }
            for i in 0..<Int(count) {
                let event = events[i]
                if event.token == 0 {
                    _ = csystem_eventfd_drain(wakeup.raw)
                } else {
                    handlers[event.token]?.ready(event.events)
                }
            }
            let now = monotonicNow()
            while let callback = timers.popDue(at: now) { callback() }
            runTasks()
            runPendingFlushes()
        }
        // Exit. Close what is still registered, and run what was queued before closing the inbox
        // so hand-overs see the shutdown; both can produce more of the other (a closing connection
        // completes requests whose callers queue work, a queued hand-over registers a socket), so
        // repeat until neither is left.
        while true {
            runPendingFlushes()
            for handler in Array(handlers.values) { handler.loopIsExiting() }
            handlers.removeAll()
            let tasks: [@Sendable () -> Void] = inbox.withLock { inbox in
                if inbox.tasks.isEmpty { inbox.closed = true }
                defer { inbox.tasks = [] }
                return inbox.tasks
            }
            if tasks.isEmpty { break }
            for task in tasks { task() }
        }
        timers.removeAll()
        // A later thread may get the same pthread_t; it must not pass for this loop.
        threadID.store(0, ordering: .relaxed)
    }

    private func runTasks() {
        let tasks: [@Sendable () -> Void] = inbox.withLock { inbox in
            inbox.signalled = false
            defer { inbox.tasks = [] }
            return inbox.tasks
        }
        for task in tasks { task() }
    }
}
