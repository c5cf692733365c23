import Synchronization

/// The keystrokes in flight, by search-field session: a search field sends one request per
/// keystroke with its `session` and a rising `revision`, and only the newest one matters. When a
/// newer revision arrives, the older one's fan-out is cancelled (RST_STREAM to the nodes, so no
/// shard keeps reading candidates for a stale prefix) and its caller gets CANCELLED; an older
/// revision that arrives after a newer one is refused the same way without being sent anywhere.
///
/// Only calls in flight are held (each leaves when it completes), so the table's size is bounded
/// by the coordinator's concurrency; past ``maximumSessions`` new sessions are simply not tracked
/// (their keystrokes are answered, just never cancelled). Besides them, each session's newest
/// finished revision is remembered for one to two ``finishedWindow``s, so that a keystroke
/// overtaken on the way is refused even after the newer one was answered; after that it would
/// merely be answered (stale, never wrong). So memory follows the sessions of the last seconds,
/// not every session ever seen.
///
/// Striped by the session's hash over 64 mutexes: keystrokes of different sessions never contend,
/// and a lookup is one uncontended lock of a few nanoseconds — there is no global lock.
public final class SessionTable: Sendable {
    /// What ``begin(session:revision:cancel:)`` decided.
    public enum Admission: Sendable, Equatable {
        /// Go ahead; an older keystroke of the session (if any) was cancelled.
        case admitted(supersededRevision: UInt64?)
        /// A newer keystroke of the session is already in flight or done.
        case superseded(by: UInt64)
        /// No session (empty id) or the table is full: not tracked.
        case untracked
    }

    private struct Entry {
        var revision: UInt64
        /// Cancels the keystroke's fan-out (hops to its loop).
        var cancel: @Sendable () -> Void
    }

    private struct StripeState {
        var inFlight: [String: Entry] = [:]
        /// The newest revision that completed, per session: `finished` for the current window,
        /// `finishedBefore` for the one before. When a window ends (or `finished` reaches its
        /// bound) the older dictionary is dropped whole and the current one takes its place, which
        /// frees its memory at once. (With one dictionary trimmed only at 4,096 sessions a stripe,
        /// the coordinator of a 30-minute soak grew by 18 MiB: 200,000 sessions came and went.)
        var finished: [String: UInt64] = [:]
        var finishedBefore: [String: UInt64] = [:]
        var windowStart: Duration = .zero

        func lastFinished(_ session: String) -> UInt64? {
            switch (finished[session], finishedBefore[session]) {
            case let (a?, b?): return max(a, b)
            case let (a, b): return a ?? b
            }
        }
    }

    /// One lock's share of the sessions (a class: `Mutex` cannot be copied into an array).
    private final class Stripe: Sendable {
        let state = Mutex(StripeState())
    }

    public let maximumSessions: Int
    /// How long a finished revision is remembered at least (and at most twice as long).
    public let finishedWindow: Duration
    /// Finished sessions a stripe remembers per window at most; past it the window ends early.
    public let finishedPerStripe: Int
    private let now: @Sendable () -> Duration
    private let stripes: [Stripe]
    private let count = Atomic<Int>(0)

    /// - Parameter now: a monotonic clock (time since any fixed instant); tests pass their own.
    public init(maximumSessions: Int = 100_000, finishedWindow: Duration = .seconds(10), finishedPerStripe: Int = 4096,
                now: (@Sendable () -> Duration)? = nil) {
        self.maximumSessions = maximumSessions
        self.finishedWindow = finishedWindow
        self.finishedPerStripe = finishedPerStripe
        let start = ContinuousClock.now
        self.now = now ?? { ContinuousClock.now - start }
        stripes = (0..<64).map { _ in Stripe() }
    }

    private func stripe(_ session: String) -> Stripe {
        var hasher = Hasher()
        hasher.combine(session)
        return stripes[Int(UInt(bitPattern: hasher.finalize()) % UInt(stripes.count))]
    }

    /// Registers a keystroke. `cancel` is called (on the caller's thread, outside the lock) if a
    /// newer revision of the session arrives while this one is in flight.
    public func begin(session: String, revision: UInt64, cancel: @escaping @Sendable () -> Void) -> Admission {
        guard !session.isEmpty else { return .untracked }
        var toCancel: (@Sendable () -> Void)?
        let admission: Admission = stripe(session).state.withLock { stripe in
            if let done = stripe.lastFinished(session), done > revision { return .superseded(by: done) }
            if let current = stripe.inFlight[session] {
                if current.revision >= revision { return .superseded(by: current.revision) }
                toCancel = current.cancel
                stripe.inFlight[session] = Entry(revision: revision, cancel: cancel)
                return .admitted(supersededRevision: current.revision)
            }
            guard count.add(1, ordering: .relaxed).newValue <= maximumSessions else {
                count.subtract(1, ordering: .relaxed)
                return .untracked
            }
            stripe.inFlight[session] = Entry(revision: revision, cancel: cancel)
            return .admitted(supersededRevision: nil)
        }
        toCancel?()
        return admission
    }

    /// The keystroke finished (answered, failed or cancelled); forgets it if it is still the
    /// session's newest.
    public func end(session: String, revision: UInt64) {
        guard !session.isEmpty else { return }
        let time = now()
        stripe(session).state.withLock { stripe in
            if let current = stripe.inFlight[session], current.revision == revision {
                stripe.inFlight[session] = nil
                count.subtract(1, ordering: .relaxed)
            }
            if time - stripe.windowStart >= finishedWindow || stripe.finished.count >= finishedPerStripe {
                stripe.finishedBefore = stripe.finished
                stripe.finished = [:]
                stripe.windowStart = time
            }
            if stripe.lastFinished(session).map({ $0 < revision }) ?? true {
                stripe.finished[session] = revision
            }
        }
    }

    /// Sessions whose finished revision is remembered (for tests and metrics). O(remembered): a
    /// session in both windows counts once.
    public var finishedCount: Int {
        stripes.reduce(0) { total, stripe in
            total + stripe.state.withLock { state in
                let current = state.finished
                return current.count + state.finishedBefore.keys.reduce(0) { $0 + (current[$1] == nil ? 1 : 0) }
            }
        }
    }

    /// Keystrokes in flight (for tests and metrics).
    public var inFlightCount: Int { count.load(ordering: .relaxed) }
}
