import Synchronization

/// The keystrokes in flight, by search-field session: a search field sends one request per
/// keystroke with its `session` and a rising `revision`, and only the newest one matters. When a
/// newer revision arrives, the older one's fan-out is cancelled (RST_STREAM to the nodes, so no
/// shard keeps reading candidates for a stale prefix) and its caller gets CANCELLED; an older
/// revision that arrives after a newer one is refused the same way without being sent anywhere.
///
/// Only calls in flight are held (each leaves when it completes), so the table's size is bounded
/// by the coordinator's concurrency; past ``maximumSessions`` new sessions are simply not tracked
/// (their keystrokes are answered, just never cancelled).
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
        /// The newest revision that completed, per session, for sessions seen recently; trimmed
        /// when it grows past its bound (stale revisions are then merely answered, never wrong).
        var finished: [String: UInt64] = [:]
    }

    /// One lock's share of the sessions (a class: `Mutex` cannot be copied into an array).
    private final class Stripe: Sendable {
        let state = Mutex(StripeState())
    }

    public let maximumSessions: Int
    private let stripes: [Stripe]
    private let count = Atomic<Int>(0)

    public init(maximumSessions: Int = 100_000) {
        self.maximumSessions = maximumSessions
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
            if let done = stripe.finished[session], done > revision { return .superseded(by: done) }
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
        stripe(session).state.withLock { stripe in
            if let current = stripe.inFlight[session], current.revision == revision {
                stripe.inFlight[session] = nil
                count.subtract(1, ordering: .relaxed)
            }
            if stripe.finished[session].map({ $0 < revision }) ?? true {
                if stripe.finished.count >= 4096 { stripe.finished.removeAll(keepingCapacity: true) }
                stripe.finished[session] = revision
            }
        }
    }

    /// Keystrokes in flight (for tests and metrics).
    public var inFlightCount: Int { count.load(ordering: .relaxed) }
}
