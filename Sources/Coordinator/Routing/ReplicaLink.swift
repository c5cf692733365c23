import Cluster
import Dispatch
import Foundation
import HTTP2

/// One event loop's connection to one replica: multiplexed (every request from this loop to this
/// replica shares it), reconnected with exponential backoff, dropped when the replica is marked
/// down (so calls stuck on a dead TCP connection fail over at once).
///
/// Every coordinator loop has its own links, so a fan-out never leaves the loop that received the
/// client's call: requests are written, answered and merged on one thread, without locks or hops.
///
/// A link may instead reach its replica in this process (``InProcessReplica``: a node's services
/// through an `InProcessTransport`), as the coordinator's tests do; it is then always connected.
///
/// Thread ownership: loop-confined (created, used and completed on `loop`).
final class ReplicaLink {
    let replica: Replica
    let loop: HTTP2EventLoop
    /// Nil for an in-process link.
    private let client: HTTP2Client?
    /// The replica's services in this process, if this link reaches it so.
    let inProcess: InProcessReplica?
    private let backoff: ClosedRange<Duration>
    private var connection: HTTP2ClientConnection?
    private var connecting = false
    private var nextDelay: Duration
    private var retryAt = ContinuousClock.now
    /// Waiting for the connect under way: called with the connection, or nil if it failed.
    private var waiters: [(HTTP2ClientConnection?) -> Void] = []
    /// Requests from this loop in flight on this replica (replica choice prefers the least busy).
    var inFlight = 0
    /// Smoothed latency of this replica's answers to this loop, in seconds, decaying toward zero
    /// while unmeasured (``cost``).
    private var latency: Double = 0
    private var measuredAt = ContinuousClock.now

    init(replica: Replica, loop: HTTP2EventLoop, client: HTTP2Client, backoff: ClosedRange<Duration>) {
        self.replica = replica
        self.loop = loop
        self.client = client
        self.backoff = backoff
        nextDelay = backoff.lowerBound
        inProcess = nil
    }

    /// A link to a replica in this process.
    init(replica: Replica, loop: HTTP2EventLoop, inProcess: InProcessReplica) {
        self.replica = replica
        self.loop = loop
        client = nil
        backoff = .zero ... .zero
        nextDelay = .zero
        self.inProcess = inProcess
    }

    /// Whether a request can be written now without waiting for a connect.
    var isConnected: Bool { inProcess != nil || (connection?.isAcceptingRequests ?? false) }

    /// The connection, if it takes requests now (``withConnection(_:)`` without the wait).
    var readyConnection: HTTP2ClientConnection? {
        guard let connection, connection.isAcceptingRequests else { return nil }
        return connection
    }

    /// Calls `body` with a connection that takes requests: at once when there is one, after the
    /// connect under way, or with nil when connecting failed or is backing off.
    func withConnection(_ body: @escaping (HTTP2ClientConnection?) -> Void) {
        if let connection, connection.isAcceptingRequests {
            body(connection)
            return
        }
        connection = nil
        guard client != nil, ContinuousClock.now >= retryAt || connecting else {
            body(nil)
            return
        }
        waiters.append(body)
        connect()
    }

    /// Starts connecting unless a connect is under way or backing off (so a fresh coordinator
    /// warms every link before the first query).
    func connect() {
        guard let client, !connecting, connection == nil, ContinuousClock.now >= retryAt else { return }
        connecting = true
        let bound = HTTP2LoopBound(self, eventLoop: loop)
        let endpoint = replica.endpoint
        let loop = self.loop
        // Off the loop: a host name is resolved by the connecting thread, and resolving blocks.
        DispatchQueue.global(qos: .userInitiated).async {
            client.connect(host: endpoint.host, port: endpoint.port, on: loop) { result in
                // On the loop, except when the connect fails before reaching it (a host name
                // that does not resolve, as a Kubernetes pod's does not while it is replaced; no
                // socket): then on this thread, so hop back before touching the link.
                // (A loop that has shut down drops the call, and the link goes with it.)
                if loop.inEventLoop {
                    bound.value.connected(result)
                } else {
                    _ = loop.execute { bound.value.connected(result) }
                }
            }
        }
    }

    private func connected(_ result: Result<HTTP2ClientConnection, HTTP2ClientError>) {
        connecting = false
        let ready: HTTP2ClientConnection?
        switch result {
        case .success(let connection):
            self.connection = connection
            nextDelay = backoff.lowerBound
            let bound = HTTP2LoopBound(self, eventLoop: loop)
            connection.onClose { [loop] in
                // onClose runs on the connection's loop, which is ours.
                precondition(loop.inEventLoop)
                let link = bound.value
                if link.connection === connection { link.connection = nil }
            }
            ready = connection
        case .failure:
            // Not counted against the replica here: the health check or the call that waited for
            // this connect counts it, once.
            retryAt = ContinuousClock.now + nextDelay
            nextDelay = min(backoff.upperBound, nextDelay * 2)
            ready = nil
        }
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter(ready) }
    }

    /// How long a call is expected to take here: "peak EWMA" (Finagle's load balancer) — the
    /// smoothed latency times the calls already waiting. A fast replica's latency rises at once
    /// with a slow answer (peaks are taken whole), so a replica that turns slow stops being chosen
    /// after one slow call; the estimate then decays (time constant 1 s), so a slow replica is
    /// probed again every few seconds and chosen again once it has recovered.
    func cost(at now: ContinuousClock.Instant) -> Double {
        (decayedLatency(at: now) + 1e-6) * Double(inFlight + 1)
    }

    private func decayedLatency(at now: ContinuousClock.Instant) -> Double {
        let idle = now - measuredAt
        let seconds = Double(idle.components.seconds) + Double(idle.components.attoseconds) * 1e-18
        return latency * exp(-seconds / 1.0)
    }

    /// Folds in one call's latency (a failure counts as a slow answer of `penalty`).
    func record(_ duration: Duration, at now: ContinuousClock.Instant) {
        let sample = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        let current = decayedLatency(at: now)
        latency = sample > current ? sample : current * 0.7 + sample * 0.3
        measuredAt = now
    }

    /// When a call last succeeded over this link (``answered(at:)``).
    private(set) var lastAnswer: ContinuousClock.Instant?

    /// A call answered over this link: the connection works, whatever a health check says.
    func answered(at now: ContinuousClock.Instant) {
        lastAnswer = now
    }

    /// Closes the connection now (requests in flight on it fail over); the next request reconnects.
    func drop() {
        connection?.forceClose()
        connection = nil
    }
}
