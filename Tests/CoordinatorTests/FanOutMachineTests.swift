@testable import Coordinator
import Wire
import XCTest

/// The fan-out's decisions, driven without sockets, loops or clocks: made-up instants and
/// replicas, every action checked.
final class ShardCallMachineTests: XCTestCase {
    typealias Action = ShardCallMachine.Action
    let t0 = ContinuousClock.now
    func at(_ ms: Int) -> ContinuousClock.Instant { t0 + .milliseconds(ms) }

    /// Replicas 0, 1, 2 in that order of preference, each once.
    func pick(_ tried: Set<Int>) -> Int? { [0, 1, 2].first { !tried.contains($0) } }
    func machine() -> ShardCallMachine { ShardCallMachine(shardName: "shard-0", generation: 7) }

    func testTheFirstAnswerFinishesTheShard() {
        var call = machine()
        XCTAssertEqual(call.start(at: at(0), hedgeDelay: nil, pick: pick), [.send(attempt: 0, replica: 0, hedge: false)])
        XCTAssertEqual(call.answered(0, .success([1, 2]), at: at(3), timeLeft: .seconds(1), pick: pick),
                       [.released(attempt: 0), .succeeded(replica: 0, elapsed: .milliseconds(3), hedge: false), .finish(.success([1, 2]))])
        XCTAssertTrue(call.isDone)
    }

    /// The hedge answers first: it wins, the first attempt is reset, and the timer is gone.
    func testAHedgeThatAnswersFirstWinsAndTheSlowAttemptIsReset() {
        var call = machine()
        XCTAssertEqual(call.start(at: at(0), hedgeDelay: .milliseconds(5), pick: pick),
                       [.send(attempt: 0, replica: 0, hedge: false), .armHedgeTimer(after: .milliseconds(5))])
        XCTAssertEqual(call.hedgeTimerFired(at: at(5), budgetAllows: { true }, pick: pick),
                       [.send(attempt: 1, replica: 1, hedge: true), .hedgeSent])
        XCTAssertEqual(call.answered(1, .success([9]), at: at(7), timeLeft: .seconds(1), pick: pick),
                       [.released(attempt: 1), .succeeded(replica: 1, elapsed: .milliseconds(2), hedge: true),
                        .reset(attempt: 0, replica: 0, reason: .hedge, elapsed: .milliseconds(7)), .finish(.success([9]))])
        // The reset attempt's late answer changes nothing.
        XCTAssertEqual(call.answered(0, .success([1]), at: at(8), timeLeft: .seconds(1), pick: pick), [])
    }

    /// No budget, or an answer before the delay: no hedge.
    func testNoHedgeWithoutBudgetOrAfterTheAnswer() {
        var broke = machine()
        _ = broke.start(at: at(0), hedgeDelay: .milliseconds(5), pick: pick)
        XCTAssertEqual(broke.hedgeTimerFired(at: at(5), budgetAllows: { false }, pick: pick), [])

        var quick = machine()
        _ = quick.start(at: at(0), hedgeDelay: .milliseconds(5), pick: pick)
        XCTAssertEqual(quick.answered(0, .success([]), at: at(1), timeLeft: .seconds(1), pick: pick),
                       [.released(attempt: 0), .succeeded(replica: 0, elapsed: .milliseconds(1), hedge: false),
                        .disarmHedgeTimer, .finish(.success([]))])
        var asked = false
        XCTAssertEqual(quick.hedgeTimerFired(at: at(5), budgetAllows: { asked = true; return true }, pick: pick), [])
        XCTAssertFalse(asked, "a finished call spends no budget")
    }

    /// An unavailable replica: the next one is asked (failover), the first is marked down.
    func testAFailureFailsOverToTheNextReplica() {
        var call = machine()
        _ = call.start(at: at(0), hedgeDelay: nil, pick: pick)
        let down = GRPCStatus(.unavailable, "connection refused")
        XCTAssertEqual(call.answered(0, .failure(down), at: at(2), timeLeft: .seconds(1), pick: pick),
                       [.released(attempt: 0), .failed(replica: 0, status: down, elapsed: .milliseconds(2), marksReplicaDown: true),
                        .send(attempt: 1, replica: 1, hedge: false), .failover])
        XCTAssertEqual(call.tried, [0, 1])
        // Overload says nothing about health; the last replica fails too: the shard fails.
        let busy = GRPCStatus(.resourceExhausted, "busy")
        XCTAssertEqual(call.answered(1, .failure(busy), at: at(4), timeLeft: .seconds(1), pick: { _ in nil }),
                       [.released(attempt: 1), .failed(replica: 1, status: busy, elapsed: .milliseconds(2), marksReplicaDown: false),
                        .finish(.failure(busy))])
    }

    /// A call failed because the coordinator closed its link (a timed-out health check): it fails
    /// over like any unavailable replica, but does not count against the replica (the check did).
    func testACallOnALinkClosedHereFailsOverWithoutMarkingTheReplicaDown() {
        var call = machine()
        _ = call.start(at: at(0), hedgeDelay: nil, pick: pick)
        let closedHere = GRPCStatus(.unavailable, "connection closed by this client before the response ended",
                                    errorInfo: Google_Rpc_ErrorInfo(reason: GRPCStatus.closedLocallyReason, domain: "typeahead"))
        XCTAssertEqual(call.answered(0, .failure(closedHere), at: at(3), timeLeft: .seconds(1), pick: pick),
                       [.released(attempt: 0), .failed(replica: 0, status: closedHere, elapsed: .milliseconds(3), marksReplicaDown: false),
                        .send(attempt: 1, replica: 1, hedge: false), .failover])
    }

    /// The request's own fault: every replica would say the same, so no failover.
    func testTheRequestsFaultIsNotRetried() {
        var call = machine()
        _ = call.start(at: at(0), hedgeDelay: .milliseconds(5), pick: pick)
        _ = call.hedgeTimerFired(at: at(5), budgetAllows: { true }, pick: pick)
        let invalid = GRPCStatus(.invalidArgument, "limits.entries must be between 0 and 100")
        XCTAssertEqual(call.answered(0, .failure(invalid), at: at(6), timeLeft: .seconds(1), pick: pick),
                       [.released(attempt: 0), .failed(replica: 0, status: invalid, elapsed: .milliseconds(6), marksReplicaDown: false),
                        .reset(attempt: 1, replica: 1, reason: .hedge, elapsed: .milliseconds(1)), .finish(.failure(invalid))])
    }

    /// A failure while a hedge is out waits for the hedge; no time left: no failover.
    func testAFailureWaitsForTheHedgeAndFailsOverOnlyWithTimeLeft() {
        var call = machine()
        _ = call.start(at: at(0), hedgeDelay: .milliseconds(5), pick: pick)
        _ = call.hedgeTimerFired(at: at(5), budgetAllows: { true }, pick: pick)
        let down = GRPCStatus(.unavailable, "reset")
        XCTAssertEqual(call.answered(0, .failure(down), at: at(6), timeLeft: .seconds(1), pick: pick),
                       [.released(attempt: 0), .failed(replica: 0, status: down, elapsed: .milliseconds(6), marksReplicaDown: true)])
        XCTAssertEqual(call.answered(1, .failure(down), at: at(9), timeLeft: .zero, pick: pick),
                       [.released(attempt: 1), .failed(replica: 1, status: down, elapsed: .milliseconds(4), marksReplicaDown: true),
                        .finish(.failure(down))])
    }

    func testNoReplicaAtAllFailsAtOnce() {
        var call = machine()
        XCTAssertEqual(call.start(at: at(0), hedgeDelay: .milliseconds(5), pick: { _ in nil }),
                       [.finish(.failure(GRPCStatus(.unavailable, "no healthy replica of shard-0 holds generation 7")))])
    }

    /// Stopping (deadline, cancel) resets what is out and disarms the timer; nothing follows.
    func testStopResetsEverythingOut() {
        var call = machine()
        _ = call.start(at: at(0), hedgeDelay: .milliseconds(5), pick: pick)
        _ = call.hedgeTimerFired(at: at(5), budgetAllows: { true }, pick: pick)
        XCTAssertEqual(call.stop(.deadline, at: at(20)),
                       [.reset(attempt: 0, replica: 0, reason: .deadline, elapsed: .milliseconds(20)),
                        .reset(attempt: 1, replica: 1, reason: .deadline, elapsed: .milliseconds(15))])
        XCTAssertEqual(call.answered(0, .success([1]), at: at(21), timeLeft: .zero, pick: pick), [])
    }
}

final class FanOutMachineTests: XCTestCase {
    func testCompletesWhenEveryShardHasAResult() {
        var fanOut = FanOutMachine(shardNames: ["a", "b", "c"])
        XCTAssertEqual(fanOut.shardFinished(1, .success([1])), [])
        XCTAssertEqual(fanOut.shardFinished(1, .success([9])), [], "a second result for a shard is ignored")
        XCTAssertEqual(fanOut.shardFinished(0, .failure(GRPCStatus(.unavailable, "down"))), [])
        XCTAssertEqual(fanOut.shardFinished(2, .success([3])),
                       [.disarmDeadlineTimer, .answered([.failure(GRPCStatus(.unavailable, "down")), .success([1]), .success([3])])])
        XCTAssertTrue(fanOut.isCompleted)
        XCTAssertEqual(fanOut.cancel(.client), [])
    }

    /// The deadline: a partial answer, the missing shards stopped and failed DEADLINE_EXCEEDED.
    func testTheDeadlineGivesAPartialAnswer() {
        var fanOut = FanOutMachine(shardNames: ["a", "b", "c"])
        _ = fanOut.shardFinished(1, .success([1]))
        let late = { (name: String) in Result<ArraySlice<UInt8>, GRPCStatus>.failure(GRPCStatus(.deadlineExceeded, "\(name) did not answer within the deadline")) }
        XCTAssertEqual(fanOut.deadlinePassed(),
                       [.stopShard(0, .deadline), .missedDeadline(0), .stopShard(2, .deadline), .missedDeadline(2),
                        .answered([late("a"), .success([1]), late("c")])])
        XCTAssertEqual(fanOut.shardFinished(0, .success([5])), [], "a result after the deadline is dropped")
    }

    /// A newer keystroke of the session (or the client leaving) cancels every shard.
    func testASupersededCallStopsEveryShard() {
        var fanOut = FanOutMachine(shardNames: ["a", "b"])
        _ = fanOut.shardFinished(0, .success([1]))
        XCTAssertEqual(fanOut.cancel(.superseded),
                       [.disarmDeadlineTimer, .stopShard(0, .superseded), .stopShard(1, .superseded), .cancelled(.superseded)])
        XCTAssertEqual(fanOut.deadlinePassed(), [])
        XCTAssertEqual(fanOut.shardFinished(1, .success([2])), [])
    }
}
