import HTTP2
import RPC
import Wire

/// A replica whose services run in this process: shard calls go through an
/// `InProcessTransport` to a node's real methods (over its real shard), and the answers come back
/// through the loop's ``FanOutClock``, never inline, as they would from a socket. The coordinator's
/// tests run the whole query path on such replicas (fan-out, hedging, failover, supersession,
/// deadlines, merging, presenting) with a ``ManualClock``.
///
/// ``behaviour`` decides each call's fate, so a test makes a replica slow, failing or silent at
/// exact instants (the delay relay and stalled nodes do the same over sockets, in the end-to-end
/// tests). A call the fan-out resets is cancelled at the node, as an RST_STREAM would be.
///
/// Thread ownership: loop-confined (its link's loop).
final class InProcessReplica {
    /// What a replica does with a call.
    enum Behaviour {
        /// The node answers; the answer arrives `after` the call was sent.
        case answer(after: Duration)
        /// The call fails with `status` `after` it was sent (the node is not called).
        case fail(GRPCStatus, after: Duration)
        /// The node is called and its answer never arrives (a blackholed link, a hung node).
        case silent
    }

    let transport: InProcessTransport
    /// Each call's fate, asked once per call (default: answer at once).
    var behaviour: () -> Behaviour = { .answer(after: .zero) }
    /// Calls sent here, and how many of them the caller reset.
    private(set) var calls = 0
    private(set) var cancellations = 0

    init(transport: InProcessTransport) {
        self.transport = transport
    }

    /// One call out: what its answer needs to arrive, until it arrives or is reset.
    final class Call {
        fileprivate var receiver: ShardCall?
        fileprivate let tag: Int
        fileprivate let due: ContinuousClock.Instant
        fileprivate let clock: FanOutClock
        fileprivate var transportCall: InProcessTransport.Call?
        fileprivate var timer: FanOutClock.Timer?

        fileprivate init(receiver: ShardCall, tag: Int, due: ContinuousClock.Instant, clock: FanOutClock) {
            self.receiver = receiver
            self.tag = tag
            self.due = due
            self.clock = clock
        }

        /// The answer is here: deliver it at its due instant (the next turn at the earliest).
        fileprivate func arrived(_ result: Result<ArraySlice<UInt8>, GRPCStatus>) {
            guard receiver != nil else { return }
            timer = clock.schedule(after: due - clock.now) { [self] in
                timer = nil
                guard let receiver else { return }
                self.receiver = nil  // ends the cycle with the shard call
                receiver.answered(inProcess: tag, result)
            }
        }
    }

    /// Sends one shard call (`message`: the request's protobuf bytes); its answer reaches
    /// `receiver` as attempt `tag`, on the loop.
    func send(path: String, message: ArraySlice<UInt8>, deadline: ContinuousClock.Instant, requestID: String, clock: FanOutClock,
              loop: HTTP2EventLoop, to receiver: ShardCall, tag: Int) -> Call {
        calls += 1
        let now = clock.now
        switch behaviour() {
        case .fail(let status, let delay):
            let call = Call(receiver: receiver, tag: tag, due: now + delay, clock: clock)
            call.arrived(.failure(status))
            return call
        case .silent:
            let call = Call(receiver: receiver, tag: tag, due: now, clock: clock)
            call.transportCall = transport.call(path: path, messages: [message], deadline: deadline, requestID: requestID, on: loop) { _ in }
            return call
        case .answer(let delay):
            let call = Call(receiver: receiver, tag: tag, due: now + delay, clock: clock)
            let bound = HTTP2LoopBound(call, eventLoop: loop)
            call.transportCall = transport.call(path: path, messages: [message], deadline: deadline, requestID: requestID, on: loop) { result in
                // A node answers a suggest inline (here, on the loop) and a search from its read
                // pool: hop back to the loop then.
                let answer = result.map { $0[...] }
                if loop.inEventLoop { bound.value.arrived(answer) } else { loop.execute { bound.value.arrived(answer) } }
            }
            return call
        }
    }

    /// The caller reset `call`: its answer will not be delivered, and the node sees it cancelled.
    func cancel(_ call: Call) {
        guard call.receiver != nil else { return }
        cancellations += 1
        call.receiver = nil
        if let timer = call.timer { call.clock.cancel(timer) }
        call.timer = nil
        call.transportCall?.cancel()
    }
}
