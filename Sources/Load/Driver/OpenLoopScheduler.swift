import Catalog
import Foundation
import HTTP2
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The open loop's clock: starts sessions at the arrival rate and sends every keystroke at the
/// moment its person would type it, whether or not earlier answers came back.
///
/// **Thread ownership**: everything but ``finished`` and ``sessionCounts`` is touched only by the
/// scheduler's own thread (started by ``start()``). It sleeps with `clock_nanosleep` on an
/// absolute CLOCK_MONOTONIC deadline (microsecond precision, where the event loops' timers have a
/// millisecond), then hands each due request to its lane's loop with `execute` — it never touches
/// a connection, and never waits for one, so a slow server cannot slow the schedule. When the
/// scheduler itself falls behind, requests leave late but their latency still counts from the
/// intended time (the report's send lag says by how much).
///
/// Cost per request: a heap operation, a closure queued on a loop; per session: one plan.
final class OpenLoopScheduler: @unchecked Sendable {
    private let lanes: [HTTP2LoopBound<Lane>]
    private let source: TextSource
    private let typing: TypingModel
    private let arrivals: ArrivalProcess
    private let clock: RunClock
    private let counters: LiveCounters
    private let runID: String
    private var random: SplitMix64

    /// Sessions by number, while typing.
    private var sessions: [Int: Session] = [:]
    private var queue = EventQueue()
    private var counts = SessionCounts()
    private var nextLane = 0

    private let result = Mutex<SessionCounts?>(nil)

    private struct Session {
        let id: String
        let plan: SessionPlan
        let lane: Int
        let measured: Bool
        /// The next request: keystroke index, or `plan.keystrokes.count` for the search.
        var step = 0
    }

    init(lanes: [HTTP2LoopBound<Lane>], source: TextSource, typing: TypingModel, arrivals: ArrivalProcess, clock: RunClock,
         counters: LiveCounters, seed: UInt64, runID: String) {
        self.lanes = lanes
        self.source = source
        self.typing = typing
        self.arrivals = arrivals
        self.clock = clock
        self.counters = counters
        self.runID = runID
        random = SplitMix64(seed: seed)
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "load-clock"
        thread.start()
    }

    /// The sessions counted, once the scheduler has sent its last request; nil until then.
    var sessionCounts: SessionCounts? { result.withLock { $0 } }

    // MARK: The scheduler thread

    private func run() {
        var nextArrival = clock.start
        var arriving = true
        while true {
            let now = monotonicNanoseconds()
            let hardEnd = clock.hardEnd
            if arriving && nextArrival >= clock.windowEnd { arriving = false }
            let nextEvent = queue.first?.due
            if !arriving && nextEvent == nil { break }
            // Past the graceful stop, or nothing left before it: what is still typing is cut.
            if now >= hardEnd || (!arriving && nextEvent! >= hardEnd) {
                cutAll()
                break
            }
            let due = min(arriving ? nextArrival : .max, nextEvent ?? .max)
            if due > now {
                // Short sleeps so that stop() (which moves the ends) is noticed within 50 ms.
                sleep(until: min(due, now + 50_000_000))
                continue
            }
            if arriving && nextArrival <= (nextEvent ?? .max) {
                begin(at: nextArrival)
                nextArrival += arrivals.nextGap(&random)
            } else {
                fire(queue.removeFirst())
            }
        }
        result.withLock { $0 = counts }
    }

    private func begin(at time: UInt64) {
        let number = counters.sessionsStarted.add(1, ordering: .relaxed).newValue
        let plan = typing.plan(typing: source.pick(&random), random: &random)
        let session = Session(id: "\(runID)-\(number)", plan: plan, lane: nextLane, measured: clock.isMeasured(time))
        nextLane = (nextLane + 1) % lanes.count
        if session.measured { counts.started += 1 }
        guard plan.requestCount > 0 else {
            if session.measured { counts.completed += 1 }
            return
        }
        sessions[number] = session
        queue.insert(Event(due: time, session: number))
    }

    private func fire(_ event: Event) {
        guard var session = sessions[event.session] else { return }
        let plan = session.plan
        let call: PlannedCall
        if session.step < plan.keystrokes.count {
            call = PlannedCall(kind: .suggest, session: session.id, revision: UInt64(session.step + 1),
                               text: plan.keystrokes[session.step].text, intended: event.due)
        } else {
            call = PlannedCall(kind: .search, session: session.id, revision: UInt64(session.step + 1), text: plan.text, intended: event.due)
        }
        let lane = lanes[session.lane]
        lane.eventLoop.execute { lane.value.send(call) }
        session.step += 1
        let delay: UInt64? = session.step < plan.keystrokes.count ? plan.keystrokes[session.step].delay
            : session.step == plan.keystrokes.count ? plan.submitDelay : nil
        if let delay {
            sessions[event.session] = session
            queue.insert(Event(due: event.due + delay, session: event.session))
        } else {
            sessions[event.session] = nil
            if session.measured {
                counts.completed += 1
                if plan.submits { counts.submitted += 1 }
            }
        }
    }

    private func cutAll() {
        for session in sessions.values where session.measured { counts.cut += 1 }
        sessions.removeAll()
        queue = EventQueue()
    }

    private func sleep(until deadline: UInt64) {
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        // EINTR: the loop recomputes and sleeps again.
        _ = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil)
    }
}

/// A session's next request, due at a time.
struct Event {
    var due: UInt64
    var session: Int
}

/// A binary min-heap of events by due time (ties: the lower session number, so a run is
/// repeatable). O(log n) insert and removal.
struct EventQueue {
    private var heap: [Event] = []

    var first: Event? { heap.first }
    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }

    private static func before(_ a: Event, _ b: Event) -> Bool {
        a.due != b.due ? a.due < b.due : a.session < b.session
    }

    mutating func insert(_ event: Event) {
        heap.append(event)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func removeFirst() -> Event {
        let first = heap[0]
        let last = heap.removeLast()
        guard !heap.isEmpty else { return first }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count && Self.before(heap[left], heap[smallest]) { smallest = left }
            if right < heap.count && Self.before(heap[right], heap[smallest]) { smallest = right }
            guard smallest != parent else { return first }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
