import Catalog
import Dispatch
import HTTP2
import RPC
import Wire

/// One request, as planned: what to send and when it was meant to leave.
struct PlannedCall: Sendable {
    var kind: RequestKind
    var session: String
    /// The keystroke's revision (Search: the session's last revision + 1, for the request id only).
    var revision: UInt64
    var text: String
    /// When a person would have sent it (``monotonicNanoseconds()``); latency counts from here.
    var intended: UInt64

    /// `x-request-id`: the server's log lines about a call name the session and keystroke.
    var requestID: String { kind == .suggest ? "\(session)/\(revision)" : "\(session)/search" }
}

/// What a lane needs from the run, shared by all lanes (every field is immutable or thread-safe).
struct LaneContext: Sendable {
    let client: HTTP2Client
    let host: String
    let port: Int
    /// Every call's options; `timeout` is the load generator's per-request timeout.
    let options: GRPCClient.Options
    let clock: RunClock
    let counters: LiveCounters
    let typing: TypingModel
    let source: TextSource
    let seed: UInt64
    let runID: String
}

/// The statistics of one event loop, shared by the lanes of that loop (all on its thread).
final class LoopRecorder {
    var statistics = LoadStatistics()
}

/// One HTTP/2 connection and everything sent on it. **Confined to the connection's event loop**:
/// it is created elsewhere but handed over (`HTTP2LoopBound(sending:)`), and every method runs on
/// that loop — sends from the open-loop scheduler arrive through `execute`, completions and timers
/// run there by construction — so none of its state needs a lock.
///
/// It sends, times out (a loop timer, not a dispatch timer per call), classifies and records each
/// request; replaces its connection when it closes; and, in a closed loop, drives its streams
/// (Lane+ClosedLoop.swift).
final class Lane {
    let index: Int
    let loop: HTTP2EventLoop
    let context: LaneContext
    let recorder: HTTP2LoopBound<LoopRecorder>
    private(set) var connection: HTTP2ClientConnection?
    private(set) var stopping = false
    /// Closed loop (see Lane+ClosedLoop.swift): the simulated people of this connection, and
    /// those waiting for a reconnect.
    var users: [VirtualUser] = []
    var parked: [VirtualUser] = []

    init(index: Int, connection: HTTP2ClientConnection, recorder: HTTP2LoopBound<LoopRecorder>, context: LaneContext) {
        self.index = index
        self.loop = connection.eventLoop
        self.connection = connection
        self.recorder = recorder
        self.context = context
    }

    var bound: HTTP2LoopBound<Lane> { HTTP2LoopBound(self, eventLoop: loop) }

    // MARK: Sending

    /// Sends `call` now; `then` runs on the loop with its outcome (never inline within `send`, so
    /// a closed loop that fails fast cannot recurse).
    func send(_ call: PlannedCall, then: ((RequestOutcome) -> Void)? = nil) {
        let sentAt = monotonicNanoseconds()
        context.counters.started()
        let pending = PendingCall(call: call, sentAt: sentAt, then: then)
        guard let connection else {
            finish(pending, .failure(GRPCStatus(.unavailable, "not connected to \(context.host):\(context.port) (reconnecting)")))
            return
        }
        var options = context.options
        options.requestID = call.requestID
        let lane = bound
        let state = HTTP2LoopBound(pending, eventLoop: loop)
        pending.sending = true
        // The timeout (`options.timeout`) is GRPCClient's, a timer of this loop.
        switch call.kind {
        case .suggest:
            let request = Typeahead_V1_SuggestRequest(text: call.text, session: call.session, revision: call.revision)
            GRPCClient.call(Typeahead_V1_TypeaheadService.suggest, request, on: connection, options: options) { result in
                lane.value.finish(state.value, result.map(\.shards))
            }
        case .search:
            GRPCClient.call(Typeahead_V1_TypeaheadService.search, Typeahead_V1_SearchRequest(text: call.text),
                            on: connection, options: options) { result in
                lane.value.finish(state.value, result.map(\.shards))
            }
        }
        pending.sending = false
    }

    private func finish(_ pending: PendingCall, _ result: Result<Typeahead_V1_ShardStatus?, GRPCStatus>) {
        let finished = monotonicNanoseconds()
        let outcome: RequestOutcome
        switch result {
        case .success(let shards): outcome = .answered(shards: shards)
        case .failure(let status): outcome = RequestOutcome(status)
        }
        context.counters.finished(outcome)
        let call = pending.call
        let clock = context.clock
        if clock.isMeasured(call.intended) {
            recorder.value.statistics.record(call.kind, prefixLength: call.text.count, outcome: outcome, intended: call.intended,
                                             sent: pending.sentAt, finished: finished, second: clock.second(of: call.intended),
                                             inWindow: call.intended < clock.windowEnd)
        }
        guard let then = pending.then else { return }
        if pending.sending {
            let state = HTTP2LoopBound(pending, eventLoop: loop)
            loop.execute { state.value.then?(outcome) }
        } else {
            then(outcome)
        }
    }

    // MARK: The connection

    /// Starts watching the connection (call once, on the loop).
    func watch() {
        guard let connection else { return }
        let lane = bound
        connection.onClose { lane.value.closed(connection) }
    }

    /// No more reconnects, no more sends from the closed loop; the client's shutdown follows.
    func stop() {
        stopping = true
        let waiting = parked
        parked.removeAll()
        for user in waiting { finishUser(user) }
    }

    private func closed(_ closed: HTTP2ClientConnection) {
        guard closed === connection else { return }
        connection = nil
        guard !stopping else { return }
        context.counters.connectionsLost.add(1, ordering: .relaxed)
        reconnect(after: .milliseconds(200))
    }

    private func reconnect(after delay: Duration) {
        let lane = bound
        _ = loop.scheduleTimer(after: delay) {
            let me = lane.value
            guard !me.stopping else { return }
            let (client, host, port, loop) = (me.context.client, me.context.host, me.context.port, me.loop)
            // Off the loop: connect resolves a host name on the calling thread, which may block.
            DispatchQueue.global().async {
                client.connect(host: host, port: port, on: loop) { result in
                    // On the loop, except for failures before the connect got there.
                    loop.execute { lane.value.reconnected(result) }
                }
            }
        }
    }

    private func reconnected(_ result: Result<HTTP2ClientConnection, HTTP2ClientError>) {
        switch result {
        case .success(let fresh):
            guard !stopping else {
                fresh.close()
                return
            }
            connection = fresh
            watch()
            context.counters.reconnects.add(1, ordering: .relaxed)
            let waiting = parked
            parked.removeAll()
            for user in waiting { advance(user) }
        case .failure:
            if !stopping { reconnect(after: .seconds(1)) }
        }
    }
}

/// A request in flight (loop-confined, like its lane).
final class PendingCall {
    let call: PlannedCall
    let sentAt: UInt64
    let then: ((RequestOutcome) -> Void)?
    /// True while `GRPCClient.call` runs: a completion then is synchronous.
    var sending = false

    init(call: PlannedCall, sentAt: UInt64, then: ((RequestOutcome) -> Void)?) {
        self.call = call
        self.sentAt = sentAt
        self.then = then
    }
}
