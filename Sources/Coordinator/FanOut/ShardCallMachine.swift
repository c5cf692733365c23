import Wire

/// The decisions of one shard's part of a fan-out, as a pure state machine: events in (the call
/// starts, an attempt answers, the hedging timer fires, the fan-out stops), actions out (send an
/// attempt to a replica, arm or disarm the hedging timer, reset an attempt, record what a
/// replica did, finish with a result). ``ShardCall`` performs the actions on its event loop; the
/// tests drive the machine alone, with made-up clocks and replicas.
///
/// The rules (what ``FanOut`` documents): the least busy replica first; on an error another
/// replica while time is left (failover), unless the error is the request's own fault or an
/// attempt is still out; after the hedging delay one more attempt on another replica, the first
/// answer wins and the others are reset.
///
/// Which replica comes next is the driver's to say (it depends on live connection state): every
/// event that may send takes `pick`, which gets the replicas tried so far and returns the next
/// one, or nil when none is left.
struct ShardCallMachine {
    enum Action: Equatable {
        /// Send attempt `attempt` (numbered from 0) to `replica`.
        case send(attempt: Int, replica: Int, hedge: Bool)
        case armHedgeTimer(after: Duration)
        case disarmHedgeTimer
        /// Attempt `attempt` answered and is no longer out (its replica's slot is free).
        case released(attempt: Int)
        /// Reset an attempt still out (RST_STREAM; its slot is free too); `elapsed` is how long it had run.
        case reset(attempt: Int, replica: Int, reason: CoordinatorTelemetry.CancelReason, elapsed: Duration)
        /// An attempt answered: the replica's latency, and whether it was a hedge.
        case succeeded(replica: Int, elapsed: Duration, hedge: Bool)
        /// An attempt failed; `marksReplicaDown`: the failure says something about the replica's
        /// health (not overload, not a passed deadline, not the request's fault).
        case failed(replica: Int, status: GRPCStatus, elapsed: Duration, marksReplicaDown: Bool)
        case failover
        case hedgeSent
        /// The shard's result; nothing follows.
        case finish(Result<ArraySlice<UInt8>, GRPCStatus>)

        static func == (a: Action, b: Action) -> Bool {
            switch (a, b) {
            case let (.send(x1, y1, z1), .send(x2, y2, z2)): x1 == x2 && y1 == y2 && z1 == z2
            case let (.armHedgeTimer(x), .armHedgeTimer(y)): x == y
            case (.disarmHedgeTimer, .disarmHedgeTimer), (.failover, .failover), (.hedgeSent, .hedgeSent): true
            case let (.released(x), .released(y)): x == y
            case let (.reset(a1, r1, c1, e1), .reset(a2, r2, c2, e2)): a1 == a2 && r1 == r2 && c1 == c2 && e1 == e2
            case let (.succeeded(r1, e1, h1), .succeeded(r2, e2, h2)): r1 == r2 && e1 == e2 && h1 == h2
            case let (.failed(r1, s1, e1, m1), .failed(r2, s2, e2, m2)): r1 == r2 && s1 == s2 && e1 == e2 && m1 == m2
            case let (.finish(x), .finish(y)):
                switch (x, y) {
                case let (.success(p), .success(q)): p == q
                case let (.failure(p), .failure(q)): p == q
                default: false
                }
            default: false
            }
        }
    }

    private struct Attempt {
        let replica: Int
        let started: ContinuousClock.Instant
        let hedge: Bool
        var active = true
    }

    /// The shard's name, for the messages of its failures.
    let shardName: String
    let generation: UInt64
    private var attempts = SmallArray<Attempt>()
    /// The replicas tried so far (made when asked: empty, and no allocation, for the first pick).
    var tried: Set<Int> { attempts.isEmpty ? [] : Set(attempts.lazy.map(\.replica)) }
    private(set) var isDone = false
    private var hedged = false
    private var hedgeArmed = false
    /// The actions of the event being handled, returned to the driver. One buffer for every event
    /// of the call: emptied (keeping its capacity) as each event begins, so an event allocates
    /// nothing once the driver has let go of the previous event's actions (if it still holds them,
    /// emptying makes a fresh buffer and theirs stays intact).
    private var actions: [Action] = []

    init(shardName: String, generation: UInt64) {
        self.shardName = shardName
        self.generation = generation
        actions.reserveCapacity(6)
    }

    /// The call starts. `hedgeDelay`: when to hedge, or nil not to (one replica, no budget, or the
    /// delay would pass the deadline).
    mutating func start(at now: ContinuousClock.Instant, hedgeDelay: Duration?, pick: (Set<Int>) -> Int?) -> [Action] {
        actions.removeAll(keepingCapacity: true)
        guard send(at: now, hedge: false, pick: pick) else {
            return finish(.failure(GRPCStatus(.unavailable, "no healthy replica of \(shardName) holds generation \(generation)")))
        }
        if let hedgeDelay {
            hedgeArmed = true
            actions.append(.armHedgeTimer(after: hedgeDelay))
        }
        return actions
    }

    /// The hedging timer fired. `budgetAllows` spends one hedge of the loop's budget, if it has
    /// one; it is asked only when the call could still hedge.
    mutating func hedgeTimerFired(at now: ContinuousClock.Instant, budgetAllows: () -> Bool, pick: (Set<Int>) -> Int?) -> [Action] {
        hedgeArmed = false
        guard !isDone, !hedged, budgetAllows() else { return [] }
        actions.removeAll(keepingCapacity: true)
        if send(at: now, hedge: true, pick: pick) {
            hedged = true
            actions.append(.hedgeSent)
        }
        return actions
    }

    /// Attempt `index` answered (or failed). `timeLeft`: before the fan-out's deadline.
    mutating func answered(_ index: Int, _ result: Result<ArraySlice<UInt8>, GRPCStatus>, at now: ContinuousClock.Instant, timeLeft: Duration,
                           pick: (Set<Int>) -> Int?) -> [Action] {
        guard attempts.indices.contains(index), attempts[index].active else { return [] }
        attempts[index].active = false
        let attempt = attempts[index]
        actions.removeAll(keepingCapacity: true)
        actions.append(.released(attempt: index))
        guard !isDone else { return actions }
        let elapsed = now - attempt.started
        switch result {
        case .success(let bytes):
            actions.append(.succeeded(replica: attempt.replica, elapsed: elapsed, hedge: attempt.hedge))
            resetOthers(.hedge, at: now)
            return finish(.success(bytes))
        case .failure(let status):
            let requestsFault = Self.isTheRequestsFault(status)
            // Overload and a passed deadline say nothing about the replica's health, nor does a
            // call failed by this coordinator closing the link (a timed-out health check closes
            // it, and counting its calls too marked replicas down by the dozen: `scripts/soak.sh`
            // saw a slow moment take both replicas of a shard out of routing this way). A failure
            // still steers the next calls elsewhere, as a slow answer would (the driver records
            // at least 100 ms).
            let closedHere = status.reason == GRPCStatus.closedLocallyReason
            actions.append(.failed(replica: attempt.replica, status: status, elapsed: elapsed,
                                   marksReplicaDown: !requestsFault && !closedHere && status.code != .resourceExhausted
                                       && status.code != .deadlineExceeded))
            if requestsFault {
                resetOthers(.hedge, at: now)
                return finish(.failure(status))
            }
            if attempts.contains(where: \.active) { return actions }  // a hedge is still out
            if timeLeft > .zero, send(at: now, hedge: false, pick: pick) {
                actions.append(.failover)
                return actions
            }
            return finish(.failure(status))
        }
    }

    /// The fan-out stopped (cancelled, or its deadline passed): reset everything still out.
    mutating func stop(_ reason: CoordinatorTelemetry.CancelReason, at now: ContinuousClock.Instant) -> [Action] {
        actions.removeAll(keepingCapacity: true)
        if hedgeArmed {
            hedgeArmed = false
            actions.append(.disarmHedgeTimer)
        }
        resetOthers(reason, at: now)
        isDone = true
        return actions
    }

    /// Statuses every replica would answer alike: retrying elsewhere cannot help.
    static func isTheRequestsFault(_ status: GRPCStatus) -> Bool {
        switch status.code {
        case .invalidArgument, .unimplemented, .unauthenticated, .permissionDenied, .outOfRange: true
        default: false
        }
    }

    private mutating func send(at now: ContinuousClock.Instant, hedge: Bool, pick: (Set<Int>) -> Int?) -> Bool {
        guard let replica = pick(tried) else { return false }
        attempts.append(Attempt(replica: replica, started: now, hedge: hedge))
        actions.append(.send(attempt: attempts.count - 1, replica: replica, hedge: hedge))
        return true
    }

    private mutating func resetOthers(_ reason: CoordinatorTelemetry.CancelReason, at now: ContinuousClock.Instant) {
        for index in attempts.indices where attempts[index].active {
            attempts[index].active = false
            actions.append(.reset(attempt: index, replica: attempts[index].replica, reason: reason, elapsed: now - attempts[index].started))
        }
    }

    private mutating func finish(_ result: Result<ArraySlice<UInt8>, GRPCStatus>) -> [Action] {
        isDone = true
        if hedgeArmed {
            hedgeArmed = false
            actions.append(.disarmHedgeTimer)
        }
        actions.append(.finish(result))
        return actions
    }
}
