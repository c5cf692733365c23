import Synchronization

/// The run's timeline, shared by the scheduler thread and every loop: when measuring starts, when
/// the measured window ends, and when the last keystroke may be sent. All times are
/// ``monotonicNanoseconds()``. The two ends are atomics because ``stop()`` moves them earlier
/// from any thread (Ctrl-C); everything else is fixed at creation.
///
/// ```
///  start ──warmup──▶ measureStart ──duration──▶ windowEnd ──graceful stop──▶ hardEnd
///  sessions arrive ─────────────────────────────┘  started ones finish typing ┘
/// ```
final class RunClock: Sendable {
    let start: UInt64
    let measureStart: UInt64
    private let gracefulStop: UInt64
    private let windowEndValue: Atomic<UInt64>
    private let hardEndValue: Atomic<UInt64>
    private let stops = Atomic<Int>(0)

    init(start: UInt64, warmup: Duration, duration: Duration, gracefulStop: Duration) {
        self.start = start
        measureStart = start + warmup.wholeNanoseconds
        self.gracefulStop = gracefulStop.wholeNanoseconds
        let windowEnd = measureStart + duration.wholeNanoseconds
        windowEndValue = Atomic(windowEnd)
        hardEndValue = Atomic(windowEnd + self.gracefulStop)
    }

    /// No session starts (open loop) and no request is sent (closed loop) from here on.
    var windowEnd: UInt64 { windowEndValue.load(ordering: .relaxed) }
    /// No keystroke is sent from here on; sessions still typing are cut.
    var hardEnd: UInt64 { hardEndValue.load(ordering: .relaxed) }

    /// The first call ends the window now (the graceful stop follows); the second ends everything.
    func stop() {
        let now = monotonicNanoseconds()
        let first = stops.add(1, ordering: .relaxed).newValue == 1
        if first {
            _ = windowEndValue.min(now, ordering: .relaxed)
            _ = hardEndValue.min(now + gracefulStop, ordering: .relaxed)
        } else {
            _ = windowEndValue.min(now, ordering: .relaxed)
            _ = hardEndValue.min(now, ordering: .relaxed)
        }
    }

    /// Whether a request intended at `time` is measured (not in the warmup).
    func isMeasured(_ time: UInt64) -> Bool { time >= measureStart }

    /// The timeline index of a measured time.
    func second(of time: UInt64) -> Int { Int((time - min(time, measureStart)) / 1_000_000_000) }
}

/// Counts every loop updates as requests finish, for the once-a-second progress line and for
/// knowing when the last answer is in. Relaxed atomics: a progress line may be a few requests
/// stale, and the end of the run is decided by `inFlight` reaching 0 after sending has stopped.
final class LiveCounters: Sendable {
    let sent = Atomic<Int>(0)
    let answered = Atomic<Int>(0)
    let superseded = Atomic<Int>(0)
    let failed = Atomic<Int>(0)
    let inFlight = Atomic<Int>(0)
    let sessionsStarted = Atomic<Int>(0)
    let connectionsLost = Atomic<Int>(0)
    let reconnects = Atomic<Int>(0)
    /// Closed loop: streams that have stopped sending.
    let finishedStreams = Atomic<Int>(0)

    func started() {
        sent.add(1, ordering: .relaxed)
        inFlight.add(1, ordering: .relaxed)
    }

    func finished(_ outcome: RequestOutcome) {
        switch outcome {
        case .answered: answered.add(1, ordering: .relaxed)
        case .superseded: superseded.add(1, ordering: .relaxed)
        case .failed: failed.add(1, ordering: .relaxed)
        }
        inFlight.subtract(1, ordering: .relaxed)
    }

    func progress(elapsed: Duration) -> LoadProgress {
        LoadProgress(elapsed: elapsed, sent: sent.load(ordering: .relaxed), answered: answered.load(ordering: .relaxed),
                     superseded: superseded.load(ordering: .relaxed), failed: failed.load(ordering: .relaxed),
                     inFlight: inFlight.load(ordering: .relaxed), sessionsStarted: sessionsStarted.load(ordering: .relaxed),
                     reconnects: reconnects.load(ordering: .relaxed))
    }
}

/// A snapshot of a run in progress (every second, to ``LoadGenerator/run(events:)``), counting
/// warmup requests too.
///
/// ```swift
/// let report = try await generator.run { event in
///     if case .progress(let p) = event { print("\(p.elapsed): \(p.sent) sent, \(p.inFlight) in flight") }
/// }
/// ```
public struct LoadProgress: Sendable, Equatable {
    /// Since the first request.
    public var elapsed: Duration
    public var sent: Int
    public var answered: Int
    public var superseded: Int
    public var failed: Int
    public var inFlight: Int
    public var sessionsStarted: Int
    public var reconnects: Int
}
