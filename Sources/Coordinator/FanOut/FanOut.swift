import HTTP2
import RPC
import Wire

/// One client call's fan-out: the same shard request to one replica of every shard, in parallel,
/// until every shard has answered, failed, or the deadline passed.
///
/// Per shard (``ShardCall``): the least busy eligible replica first; another replica after an
/// error while time is left (failover); the same request to another replica when the first has
/// not answered within the hedging delay, first answer wins, the other is reset (hedging).
/// Per call: one timer at the shard deadline (the client's minus the coordinator's margin), which
/// resets what is still out and completes with what has arrived; ``cancel(_:)`` resets everything
/// when the client goes away or a newer keystroke supersedes the call.
///
/// Thread ownership: loop-confined — created, run and completed on the event loop that received
/// the client's call (the loop's links, timers and completions are all on it).
final class FanOut {
    /// How a fan-out ended.
    enum Outcome {
        /// Every shard answered or failed (or the deadline passed): per shard, the answer's
        /// message bytes or why there is none.
        case answered([Result<[UInt8], GRPCStatus>])
        /// Stopped by ``cancel(_:)`` before it completed.
        case cancelled(CoordinatorTelemetry.CancelReason)
    }

    let state: LoopState
    let core: CoordinatorCore
    let view: ClusterView
    let generation: UInt64
    /// The shard method's path (`/typeahead.v1.Shard/ShardSuggest`) and its framed request, the
    /// same bytes for every shard.
    let path: String
    let framedRequest: [UInt8]
    /// When shard calls must have answered.
    let deadline: ContinuousClock.Instant
    let requestID: String
    private var calls: [ShardCall] = []
    private var results: [Result<[UInt8], GRPCStatus>?]
    private var remaining: Int
    private var completed = false
    private var deadlineTimer: HTTP2Timer?
    private let completion: (Outcome) -> Void

    init(state: LoopState, core: CoordinatorCore, view: ClusterView, generation: UInt64, path: String, framedRequest: [UInt8],
         deadline: ContinuousClock.Instant, requestID: String, completion: @escaping (Outcome) -> Void) {
        self.state = state
        self.core = core
        self.view = view
        self.generation = generation
        self.path = path
        self.framedRequest = framedRequest
        self.deadline = deadline
        self.requestID = requestID
        self.completion = completion
        let shardCount = view.eligible.count
        results = Array(repeating: nil, count: shardCount)
        remaining = shardCount
    }

    var isCompleted: Bool { completed }

    func start() {
        let delay = deadline - ContinuousClock.now
        deadlineTimer = state.loop.scheduleTimer(after: delay) { [self] in expire() }
        calls = (0..<view.eligible.count).map { ShardCall(fanOut: self, shard: $0) }
        for call in calls where !completed { call.start() }
    }

    /// Called by a shard's call when it is done (once per shard).
    func shardFinished(_ shard: Int, _ result: Result<[UInt8], GRPCStatus>) {
        guard !completed, results[shard] == nil else { return }
        results[shard] = result
        remaining -= 1
        if remaining == 0 { complete() }
    }

    /// Resets every shard call still out and completes as cancelled.
    func cancel(_ reason: CoordinatorTelemetry.CancelReason) {
        guard !completed else { return }
        completed = true
        if let deadlineTimer { state.loop.cancelTimer(deadlineTimer) }
        for call in calls { call.stop(reason) }
        calls = []
        completion(.cancelled(reason))
    }

    /// The deadline passed: whatever has not answered is reset and fails with DEADLINE_EXCEEDED.
    private func expire() {
        deadlineTimer = nil
        guard !completed else { return }
        for (shard, call) in calls.enumerated() where results[shard] == nil {
            call.stop(.deadline)
            results[shard] = .failure(GRPCStatus(.deadlineExceeded, "\(core.shardNames[shard]) did not answer within the deadline"))
            core.telemetry.shards[shard].deadline.increment()
        }
        remaining = 0
        complete()
    }

    private func complete() {
        guard !completed else { return }
        completed = true
        if let deadlineTimer { state.loop.cancelTimer(deadlineTimer) }
        calls = []
        completion(.answered(results.map { $0 ?? .failure(GRPCStatus(.internal, "no result")) }))
    }

    /// Time left before the shard deadline.
    var timeLeft: Duration { deadline - ContinuousClock.now }
}

/// One shard's part of a fan-out: attempts on its replicas (the first, failovers, one hedge).
/// Loop-confined like its ``FanOut``.
final class ShardCall {
    private struct Attempt {
        let link: ReplicaLink
        var stream: HTTP2ClientStream?
        let started: ContinuousClock.Instant
        let hedge: Bool
        var active = true
    }

    /// Strong: late completions (a reset hedge's, a connect that finished) may outlive everything
    /// else that holds the fan-out. The fan-out drops its calls when it completes, so the cycle
    /// ends then.
    let fanOut: FanOut
    let shard: Int
    private var attempts: [Attempt] = []
    private var tried: Set<Int> = []
    private var done = false
    private var hedgeTimer: HTTP2Timer?
    private var hedged = false

    init(fanOut: FanOut, shard: Int) {
        self.fanOut = fanOut
        self.shard = shard
    }

    private var state: LoopState { fanOut.state }
    private var core: CoordinatorCore { fanOut.core }

    func start() {
        state.hedgeBudget.earn()
        guard send(hedge: false) else {
            finish(.failure(GRPCStatus(.unavailable, "no healthy replica of \(core.shardNames[shard]) holds generation \(fanOut.generation)")))
            return
        }
        scheduleHedge()
    }

    /// The hedging delay: the configured one, or this shard's recent p95 (at least the floor).
    private func scheduleHedge() {
        guard fanOut.view.eligible[shard].count > 1, core.settings.hedgeBudget > 0 else { return }
        let delay = core.settings.hedgeDelay ?? max(core.settings.hedgeFloor, state.latency[shard].p95 ?? .milliseconds(10))
        guard delay < fanOut.timeLeft else { return }
        hedgeTimer = state.loop.scheduleTimer(after: delay) { [self] in
            hedgeTimer = nil
            guard !done, !hedged, !fanOut.isCompleted, state.hedgeBudget.spend() else { return }
            if send(hedge: true) {
                hedged = true
                core.telemetry.shards[shard].hedgesSent.increment()
            }
        }
    }

    /// The replica to try next: eligible, not tried yet, connected ones first, then the lowest
    /// expected cost (``ReplicaLink/cost(at:)``: smoothed latency × calls waiting); ties taken in
    /// turn so load spreads. When no eligible replica is left, the shard's others whose
    /// connection is up are a last resort: being marked down is a guess from recent failures
    /// (health checks that timed out on an overloaded machine, say), and a replica may answer
    /// before the next check says so. One whose connection is gone is not tried, so a shard whose
    /// hosts are cut off fails fast instead of waiting for a connect.
    private func nextLink() -> ReplicaLink? {
        var candidates = fanOut.view.eligible[shard].filter { !tried.contains($0) }.map { state.links[$0] }
        if candidates.isEmpty {
            candidates = core.replicasByShard[shard].filter { !tried.contains($0) }.map { state.links[$0] }.filter(\.isConnected)
        }
        guard !candidates.isEmpty else { return nil }
        state.rotation &+= 1
        let offset = state.rotation % candidates.count
        let now = ContinuousClock.now
        var best: (link: ReplicaLink, cost: Double)?
        for index in 0..<candidates.count {
            let link = candidates[(index + offset) % candidates.count]
            let cost = link.cost(at: now) * (link.isConnected ? 1 : 1e6)
            if best == nil || cost < best!.cost { best = (link, cost) }
        }
        return best?.link
    }

    /// Sends one attempt; false if there is no replica left to try.
    @discardableResult
    private func send(hedge: Bool) -> Bool {
        guard let link = nextLink() else { return false }
        tried.insert(link.replica.id)
        let index = attempts.count
        attempts.append(Attempt(link: link, stream: nil, started: ContinuousClock.now, hedge: hedge))
        link.inFlight += 1
        link.withConnection { [self] connection in
            guard attempts[index].active else { return }
            guard let connection else {
                answered(index, .failure(GRPCStatus(.unavailable, "cannot connect to \(link.replica.endpoint)")))
                return
            }
            var options = core.shardCallOptions
            options.timeout = max(.milliseconds(1), fanOut.timeLeft)
            options.requestID = fanOut.requestID
            let bound = HTTP2LoopBound(self, eventLoop: state.loop)
            let stream = GRPCClient.call(path: fanOut.path, framedRequest: fanOut.framedRequest, on: connection, options: options) { result in
                bound.value.answered(index, result)
            }
            // The answer may already have come (a connection that closed under the request).
            if attempts[index].active { attempts[index].stream = stream }
        }
        return true
    }

    private func answered(_ index: Int, _ result: Result<[UInt8], GRPCStatus>) {
        guard attempts[index].active else { return }
        attempts[index].active = false
        let attempt = attempts[index]
        attempt.link.inFlight -= 1
        guard !done else { return }
        let series = core.telemetry.shards[shard]
        switch result {
        case .success(let bytes):
            let now = ContinuousClock.now
            let elapsed = now - attempt.started
            attempt.link.record(elapsed, at: now)
            attempt.link.answered(at: now)
            attempt.link.replica.succeeded()
            state.latency[shard].record(elapsed)
            series.ok.increment()
            series.latency.observe(elapsed)
            if attempt.hedge { series.hedgesWon.increment() }
            stopOthers(.hedge)
            finish(.success(bytes))
        case .failure(let status):
            series.error.increment()
            if Self.isTheRequestsFault(status) {
                stopOthers(.hedge)
                finish(.failure(status))
                return
            }
            if status.code != .resourceExhausted && status.code != .deadlineExceeded {
                // Overload and a passed deadline say nothing about the replica's health.
                attempt.link.replica.failed("\(status)")
            }
            // A failure steers the next calls elsewhere, like a slow answer would.
            attempt.link.record(max(.milliseconds(100), ContinuousClock.now - attempt.started), at: .now)
            if attempts.contains(where: \.active) { return }   // a hedge is still out
            if fanOut.timeLeft > .zero, send(hedge: false) {
                series.failovers.increment()
                return
            }
            finish(.failure(status))
        }
    }

    /// Statuses every replica would answer alike: retrying elsewhere cannot help.
    static func isTheRequestsFault(_ status: GRPCStatus) -> Bool {
        switch status.code {
        case .invalidArgument, .unimplemented, .unauthenticated, .permissionDenied, .outOfRange: true
        default: false
        }
    }

    private func finish(_ result: Result<[UInt8], GRPCStatus>) {
        guard !done else { return }
        done = true
        if let hedgeTimer { state.loop.cancelTimer(hedgeTimer) }
        hedgeTimer = nil
        fanOut.shardFinished(shard, result)
    }

    /// Resets the attempts still out (RST_STREAM to their nodes).
    private func stopOthers(_ reason: CoordinatorTelemetry.CancelReason) {
        let now = ContinuousClock.now
        for index in attempts.indices where attempts[index].active {
            attempts[index].active = false
            attempts[index].link.inFlight -= 1
            // It was slower than the winner by at least this much.
            if reason == .hedge { attempts[index].link.record(now - attempts[index].started, at: now) }
            attempts[index].stream?.cancel()
            core.telemetry.cancelled(reason, shard: shard)
        }
    }

    /// The fan-out stopped (cancelled or past its deadline): reset everything still out.
    func stop(_ reason: CoordinatorTelemetry.CancelReason) {
        if let hedgeTimer { state.loop.cancelTimer(hedgeTimer) }
        hedgeTimer = nil
        stopOthers(reason)
        done = true
    }
}
