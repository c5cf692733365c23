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
        case answered([Result<ArraySlice<UInt8>, GRPCStatus>])
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
    private var machine: FanOutMachine
    private var calls: [ShardCall] = []
    private var deadlineTimer: FanOutClock.Timer?
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
        // The view lists every shard (or none, before the first health check): no copy then.
        let names = view.eligible.count == core.shardNames.count ? core.shardNames : Array(core.shardNames.prefix(view.eligible.count))
        machine = FanOutMachine(shardNames: names)
    }

    var isCompleted: Bool { machine.isCompleted }

    func start() {
        let delay = deadline - state.clock.now
        deadlineTimer = state.clock.schedule(after: delay) { [self] in
            deadlineTimer = nil
            perform(machine.deadlinePassed())
        }
        calls = (0..<view.eligible.count).map { ShardCall(fanOut: self, shard: $0) }
        starting = true
        for call in calls where !isCompleted { call.start() }
        starting = false
        startRequest = nil
    }

    /// Sending the first attempts, in ``start()``.
    private var starting = false
    private var startRequest: HTTP2ClientRequest?

    /// The HTTP/2 request of one attempt, with the time left as its `grpc-timeout`. The attempts
    /// sent while the fan-out starts leave together, in one turn of the loop, so they share one
    /// (one header list per call, not one per shard); failovers and hedges leave later and make
    /// their own.
    func shardRequest() -> HTTP2ClientRequest {
        if starting, let startRequest { return startRequest }
        var options = core.shardCallOptions
        options.timeout = max(.milliseconds(1), timeLeft)
        options.requestID = requestID
        let request = GRPCClient.request(path: path, framedRequest: framedRequest, options: options)
        if starting { startRequest = request }
        return request
    }

    /// Called by a shard's call when it is done (once per shard).
    func shardFinished(_ shard: Int, _ result: Result<ArraySlice<UInt8>, GRPCStatus>) {
        perform(machine.shardFinished(shard, result))
    }

    /// Resets every shard call still out and completes as cancelled.
    func cancel(_ reason: CoordinatorTelemetry.CancelReason) {
        perform(machine.cancel(reason))
    }

    private func perform(_ actions: [FanOutMachine.Action]) {
        for action in actions {
            switch action {
            case .stopShard(let shard, let reason):
                if calls.indices.contains(shard) { calls[shard].stop(reason) }
            case .missedDeadline(let shard):
                core.telemetry.shards[shard].deadline.increment()
            case .disarmDeadlineTimer:
                if let deadlineTimer { state.clock.cancel(deadlineTimer) }
                deadlineTimer = nil
            case .answered(let results):
                calls = []  // ends the cycle with the calls (see ShardCall.fanOut)
                completion(.answered(results))
            case .cancelled(let reason):
                calls = []
                completion(.cancelled(reason))
            }
        }
    }

    /// Time left before the shard deadline.
    var timeLeft: Duration { deadline - state.clock.now }
}

/// One shard's part of a fan-out: performs what its ``ShardCallMachine`` decides (sends, resets,
/// the hedging timer, what replicas did). Loop-confined like its ``FanOut``, and so are the links'
/// connections: it sends on them directly and receives their answers itself
/// (``HTTP2ResponseReceiver``, the attempt number as the tag), with no closure per attempt.
final class ShardCall: HTTP2ResponseReceiver {
    /// Strong: late completions (a reset hedge's, a connect that finished) may outlive everything
    /// else that holds the fan-out. The fan-out drops its calls when it completes, so the cycle
    /// ends then.
    let fanOut: FanOut
    let shard: Int
    private var machine: ShardCallMachine
    /// Each attempt's link, and its connection and stream once sent (or its in-process call), by
    /// attempt number.
    private var attempts = SmallArray<(link: ReplicaLink, connection: HTTP2ClientConnection?, stream: Int32?, local: InProcessReplica.Call?)>()
    private var hedgeTimer: FanOutClock.Timer?

    init(fanOut: FanOut, shard: Int) {
        self.fanOut = fanOut
        self.shard = shard
        machine = ShardCallMachine(shardName: fanOut.core.shardNames[shard], generation: fanOut.generation)
    }

    private var state: LoopState { fanOut.state }
    private var core: CoordinatorCore { fanOut.core }

    func start() {
        state.hedgeBudget.earn()
        perform(machine.start(at: state.clock.now, hedgeDelay: hedgeDelay(), pick: nextReplica))
    }

    /// The hedging delay: the configured one, or this shard's recent p95 (at least the floor);
    /// nil when there is nothing to hedge to or no time for it.
    private func hedgeDelay() -> Duration? {
        guard fanOut.view.eligible[shard].count > 1, core.settings.hedgeBudget > 0 else { return nil }
        let delay = core.settings.hedgeDelay ?? max(core.settings.hedgeFloor, state.latency[shard].p95 ?? .milliseconds(10))
        return delay < fanOut.timeLeft ? delay : nil
    }

    /// The replica to try next: eligible, not tried yet, connected ones first, then the lowest
    /// expected cost (``ReplicaLink/cost(at:)``: smoothed latency × calls waiting); ties taken in
    /// turn so load spreads. When no eligible replica is left, the shard's others whose
    /// connection is up are a last resort: being marked down is a guess from recent failures
    /// (health checks that timed out on an overloaded machine, say), and a replica may answer
    /// before the next check says so. One whose connection is gone is not tried, so a shard whose
    /// hosts are cut off fails fast instead of waiting for a connect.
    private func nextReplica(_ tried: Set<Int>) -> Int? {
        cheapest(fanOut.view.eligible[shard], tried, connectedOnly: false)
            ?? cheapest(core.replicasByShard[shard], tried, connectedOnly: true)
    }

    /// The untried replica of `replicas` (only connected ones if `connectedOnly`; otherwise
    /// unconnected ones only as a last resort) with the lowest cost, ties taken in turn: the
    /// candidates are read from a rotating offset and the first of equal cost wins. Two passes
    /// over the list, no list made.
    private func cheapest(_ replicas: [Int], _ tried: Set<Int>, connectedOnly: Bool) -> Int? {
        func isCandidate(_ replica: Int) -> Bool { !tried.contains(replica) && (!connectedOnly || state.links[replica].isConnected) }
        var count = 0
        for replica in replicas where isCandidate(replica) { count += 1 }
        guard count > 0 else { return nil }
        state.rotation &+= 1
        let offset = state.rotation % count
        let now = state.clock.now
        var best: (replica: Int, cost: Double, turn: Int)?
        var index = 0
        for replica in replicas where isCandidate(replica) {
            let link = state.links[replica]
            let cost = link.cost(at: now) * (link.isConnected ? 1 : 1e6)
            let turn = (index - offset + count) % count  // its place in the rotated order
            index += 1
            if best == nil || cost < best!.cost || (cost == best!.cost && turn < best!.turn) { best = (replica, cost, turn) }
        }
        return best?.replica
    }

    private func perform(_ actions: [ShardCallMachine.Action]) {
        let series = core.telemetry.shards[shard]
        for action in actions {
            switch action {
            case .send(let attempt, let replica, _):
                send(attempt, to: state.links[replica])
            case .armHedgeTimer(let delay):
                hedgeTimer = state.clock.schedule(after: delay) { [self] in
                    hedgeTimer = nil
                    guard !fanOut.isCompleted else { return }
                    perform(machine.hedgeTimerFired(at: state.clock.now, budgetAllows: { state.hedgeBudget.spend() }, pick: nextReplica))
                }
            case .disarmHedgeTimer:
                if let hedgeTimer { state.clock.cancel(hedgeTimer) }
                hedgeTimer = nil
            case .released(let attempt):
                attempts[attempt].link.inFlight -= 1
            case .reset(let attempt, _, let reason, let elapsed):
                let link = attempts[attempt].link
                link.inFlight -= 1
                // It was slower than the winner by at least this much.
                if reason == .hedge { link.record(elapsed, at: state.clock.now) }
                if let connection = attempts[attempt].connection, let stream = attempts[attempt].stream { connection.cancel(streamID: stream) }
                if let local = attempts[attempt].local { link.inProcess?.cancel(local) }
                core.telemetry.cancelled(reason, shard: shard)
            case .succeeded(let replica, let elapsed, let hedge):
                let link = state.links[replica]
                let now = state.clock.now
                link.record(elapsed, at: now)
                link.answered(at: now)
                link.replica.succeeded()
                state.latency[shard].record(elapsed)
                series.ok.increment()
                series.latency.observe(elapsed)
                if hedge { series.hedgesWon.increment() }
            case .failed(let replica, let status, let elapsed, let marksReplicaDown):
                series.error.increment()
                let link = state.links[replica]
                if marksReplicaDown { link.replica.failed("\(status)") }
                // A failure steers the next calls elsewhere, like a slow answer would.
                if !ShardCallMachine.isTheRequestsFault(status) { link.record(max(.milliseconds(100), elapsed), at: state.clock.now) }
            case .failover:
                series.failovers.increment()
            case .hedgeSent:
                series.hedgesSent.increment()
            case .finish(let result):
                fanOut.shardFinished(shard, result)
            }
        }
    }

    /// Sends attempt `attempt` on `link`'s connection (connecting first if need be).
    private func send(_ attempt: Int, to link: ReplicaLink) {
        precondition(attempt == attempts.count, "attempts are sent in order")
        attempts.append((link, nil, nil, nil))
        link.inFlight += 1
        if let replica = link.inProcess {
            attempts[attempt].local = replica.send(path: fanOut.path, message: fanOut.framedRequest.dropFirst(GRPCFraming.headerSize),
                                                   deadline: fanOut.deadline, requestID: fanOut.requestID, clock: state.clock,
                                                   loop: state.loop, to: self, tag: attempt)
            return
        }
        // Connected (the usual case): sent now, without a closure for the wait.
        if let connection = link.readyConnection { return send(attempt, on: connection) }
        link.withConnection { [self] connection in
            guard let connection else {
                answered(attempt, .failure(GRPCStatus(.unavailable, "cannot connect to \(link.replica.endpoint)")))
                return
            }
            send(attempt, on: connection)
        }
    }

    private func send(_ attempt: Int, on connection: HTTP2ClientConnection) {
        attempts[attempt].connection = connection
        // The answer may come before this returns (a connection closing fails the request at once);
        // then there is no stream to keep.
        attempts[attempt].stream = connection.send(fanOut.shardRequest(), to: self, tag: attempt)
    }

    func received(_ result: Result<HTTP2Response, HTTP2ClientError>, tag attempt: Int) {
        let connection = attempts[attempt].connection
        answered(attempt, GRPCClient.unaryResult(of: result, method: fanOut.path,
                                                 peer: connection.map { "\($0.host):\($0.port)" } ?? "\(attempts[attempt].link.replica.endpoint)"))
    }

    /// An in-process replica's answer (``InProcessReplica``), on the loop.
    func answered(inProcess attempt: Int, _ result: Result<ArraySlice<UInt8>, GRPCStatus>) {
        answered(attempt, result)
    }

    private func answered(_ attempt: Int, _ result: Result<ArraySlice<UInt8>, GRPCStatus>) {
        perform(machine.answered(attempt, result, at: state.clock.now, timeLeft: fanOut.timeLeft, pick: nextReplica))
    }

    /// The fan-out stopped (cancelled or past its deadline): reset everything still out.
    func stop(_ reason: CoordinatorTelemetry.CancelReason) {
        perform(machine.stop(reason, at: state.clock.now))
    }
}
