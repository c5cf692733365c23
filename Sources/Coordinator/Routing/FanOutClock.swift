import HTTP2

/// Time as a loop's fan-outs see it: the instant now, and timers (shard deadlines, hedging
/// delays, in-process answers' delays). On a running coordinator it is the loop's own clock and
/// timer queue; in tests it is a ``ManualClock`` that moves only when the test says, so hedging,
/// failover and deadlines are decided at exact instants, without sleeping.
///
/// Why an enum and not a protocol: the set of clocks is closed (the loop's, a test's), and the
/// fan-out reads the time several times per call; a switch costs nothing, an existential a call
/// through a witness table and a box for the timer it returns.
///
/// Thread ownership: loop-confined, like the ``LoopState`` that holds it.
enum FanOutClock {
    case loop(HTTP2EventLoop)
    case manual(ManualClock)

    /// A timer of either clock, to cancel it with the clock that made it.
    enum Timer {
        case loop(HTTP2Timer)
        case manual(Int)
    }

    var now: ContinuousClock.Instant {
        switch self {
        case .loop: ContinuousClock.now
        case .manual(let clock): clock.now
        }
    }

    /// Runs `body` on the loop once `delay` has passed (never inline; a zero delay: the next turn).
    func schedule(after delay: Duration, _ body: @escaping () -> Void) -> Timer {
        switch self {
        case .loop(let loop): .loop(loop.scheduleTimer(after: delay, body))
        case .manual(let clock): .manual(clock.schedule(after: delay, body))
        }
    }

    /// `timer` will not fire (a no-op if it has fired or was cancelled).
    func cancel(_ timer: Timer) {
        switch (self, timer) {
        case (.loop(let loop), .loop(let timer)): loop.cancelTimer(timer)
        case (.manual(let clock), .manual(let id)): clock.cancel(id)
        default: preconditionFailure("a timer cancelled on another clock than the one that made it")
        }
    }
}

/// A clock that stands still until ``advance(by:)``: timers fire in deadline order (equal
/// deadlines in the order they were scheduled), each with ``now`` set to its deadline, including
/// timers that earlier ones schedule within the step. It starts at the real instant it is made,
/// so deadlines computed from it compare with the instants a call's context carries.
///
/// Thread ownership: not thread-safe; used on the one loop whose fan-outs it times.
final class ManualClock {
    private(set) var now = ContinuousClock.now
    private var timers: [(deadline: ContinuousClock.Instant, id: Int, body: () -> Void)] = []
    private var nextID = 0

    func schedule(after delay: Duration, _ body: @escaping () -> Void) -> Int {
        nextID += 1
        timers.append((now + max(.zero, delay), nextID, body))
        return nextID
    }

    func cancel(_ id: Int) {
        timers.removeAll { $0.id == id }
    }

    /// Timers waiting to fire.
    var pending: Int { timers.count }

    /// Moves time forward by `duration`, firing every timer due by then in order.
    func advance(by duration: Duration) {
        let end = now + duration
        while let next = timers.indices.filter({ timers[$0].deadline <= end })
            .min(by: { (timers[$0].deadline, timers[$0].id) < (timers[$1].deadline, timers[$1].id) }) {
            let timer = timers.remove(at: next)
            now = max(now, timer.deadline)
            timer.body()
        }
        now = end
    }
}
