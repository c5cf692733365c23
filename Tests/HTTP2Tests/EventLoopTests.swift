import Foundation
@testable import HTTP2
import Synchronization
import XCTest

/// The public loop surface: groups, `execute`, timers, `HTTP2LoopBound`. Timer tests never assert
/// on elapsed time: where timers must be due together, the loop is kept busy past their deadlines,
/// and "never fires" is shown by a later timer firing while it did not.
final class EventLoopTests: ResourceCheckingTestCase {
    func testGroupHandsOutLoopsRoundRobinAndRunsTasksOnThem() throws {
        let group = try HTTP2EventLoopGroup(threadCount: 2)
        defer { group.shutdown() }
        XCTAssertEqual(group.loops.map(\.index), [0, 1])
        XCTAssertNotEqual(group.loops[0], group.loops[1])
        let picked = (0..<4).map { _ in group.next() }
        XCTAssertEqual(Set(picked), Set(group.loops))
        XCTAssertEqual(picked[0], picked[2])
        XCTAssertEqual(picked[1], picked[3])

        for loop in group.loops {
            XCTAssertFalse(loop.inEventLoop)
            let other = group.loops[1 - loop.index]
            let ran = expectation(description: "task on loop \(loop.index)")
            XCTAssertTrue(loop.execute {
                XCTAssertTrue(loop.inEventLoop)
                XCTAssertFalse(other.inEventLoop)
                ran.fulfill()
            })
            wait(for: [ran], timeout: 10)
        }
    }

    func testShutdownRunsWhatWasQueuedRefusesLaterTasksAndIsIdempotent() throws {
        let group = try HTTP2EventLoopGroup(threadCount: 2)
        let queued = Mutex(false)
        group.loops[1].execute { queued.withLock { $0 = true } }
        group.shutdown()
        XCTAssertTrue(queued.withLock { $0 }, "tasks queued before shutdown still run")
        group.shutdown()
        XCTAssertFalse(group.loops[0].execute { XCTFail("ran after shutdown") })
        XCTAssertFalse(group.loops[0].inEventLoop)
    }

    func testTimersRunOnTheirLoopInDeadlineOrder() throws {
        let log = try timerLog { loop, log in
            // Delays grow in scheduling order, so the deadlines are ordered whatever scheduling
            // costs; equal delays fire in the order scheduled.
            for (name, milliseconds) in [("a", 1), ("b", 2), ("c", 2), ("d", 3)] {
                _ = loop.scheduleTimer(after: .milliseconds(milliseconds)) {
                    log.append(loop.inEventLoop ? name : "\(name) off the loop")
                    if name == "d" { log.finish() }
                }
            }
            usleep(20_000)  // busy past every deadline: all four are due in one pass
        }
        XCTAssertEqual(log, ["a", "b", "c", "d"])
    }

    func testZeroAndNegativeDelaysFireLaterNeverInline() throws {
        let log = try timerLog { loop, log in
            _ = loop.scheduleTimer(after: .zero) { log.append("zero") }
            _ = loop.scheduleTimer(after: .milliseconds(-5)) {
                log.append("negative")
                log.finish()
            }
            log.append("scheduled")
        }
        XCTAssertEqual(log, ["scheduled", "zero", "negative"])
    }

    func testCancelledTimerNeverFires() throws {
        let log = try timerLog { loop, log in
            let cancelled = loop.scheduleTimer(after: .milliseconds(5)) { log.append("cancelled") }
            let kept = loop.scheduleTimer(after: .milliseconds(5)) { log.append("kept") }
            // Scheduled after both with a longer delay: when it fires, both deadlines have passed.
            _ = loop.scheduleTimer(after: .milliseconds(30)) { log.finish() }
            XCTAssertNotEqual(cancelled, kept)
            loop.cancelTimer(cancelled)
            loop.cancelTimer(cancelled)  // again: a no-op
        }
        XCTAssertEqual(log, ["kept"])
    }

    func testACallbackCancelsATimerDueAtTheSameMoment() throws {
        let log = try timerLog { loop, log in
            // A hedge timer that cancels the deadline timer behind it, both due in the same pass
            // (the loop is kept busy past both): a batch of due callbacks collected up front would
            // still run the cancelled one.
            let deadline = HTTP2LoopBound(Cell<HTTP2Timer>(), eventLoop: loop)
            _ = loop.scheduleTimer(after: .milliseconds(1)) {
                log.append("hedge")
                loop.cancelTimer(deadline.value.content!)
                _ = loop.scheduleTimer(after: .milliseconds(20)) { log.finish() }
            }
            deadline.value.content = loop.scheduleTimer(after: .milliseconds(1)) { log.append("deadline") }
            usleep(10_000)
        }
        XCTAssertEqual(log, ["hedge"])
    }

    func testCancellingFromItsOwnCallbackIsANoOpAndPendingTimersDieWithTheGroup() throws {
        let group = try HTTP2EventLoopGroup(threadCount: 1)
        let loop = group.loops[0]
        let fired = Mutex(0)
        let late = Mutex(false)
        let done = expectation(description: "fired")
        loop.execute {
            let own = HTTP2LoopBound(Cell<HTTP2Timer>(), eventLoop: loop)
            own.value.content = loop.scheduleTimer(after: .milliseconds(1)) {
                loop.cancelTimer(own.value.content!)
                fired.withLock { $0 += 1 }
                done.fulfill()
            }
            _ = loop.scheduleTimer(after: .seconds(3600)) { late.withLock { $0 = true } }
        }
        wait(for: [done], timeout: 10)
        group.shutdown()  // the hour-long timer is dropped, not run
        XCTAssertEqual(fired.withLock { $0 }, 1)
        XCTAssertFalse(late.withLock { $0 })
    }

    func testLoopBoundStateBuiltOffTheLoopIsUsedOnIt() throws {
        let group = try HTTP2EventLoopGroup(threadCount: 2)
        defer { group.shutdown() }
        let loop = group.loops[1]
        // Handed over at construction (`sending`), then only touched on the loop.
        let counter = HTTP2LoopBound(sending: Cell(0), eventLoop: loop)
        XCTAssertEqual(counter.eventLoop, loop)
        for _ in 0..<100 { loop.execute { counter.value.content! += 1 } }
        let done = expectation(description: "counted")
        loop.execute {
            XCTAssertEqual(counter.value.content, 100)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
    }

    // MARK: TimerQueue (internal), on a fake clock

    func testTimerQueueFiresByDeadlineThenSchedulingOrderAndSkipsCancelled() {
        var queue = TimerQueue()
        let fired = Cell<[Int]>([])
        var deadlines: [UInt64] = []
        var ids: [UInt64] = []
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for n in 0..<500 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let deadline = 1 + (seed >> 33) % 50  // many ties
            deadlines.append(deadline)
            ids.append(queue.schedule(at: deadline) { fired.content!.append(n) })
        }
        let cancelled = Set(stride(from: 0, to: 500, by: 7))
        for n in cancelled { queue.cancel(ids[n]) }
        XCTAssertNil(queue.popDue(at: 0), "nothing is due before the earliest deadline")
        let earliestKept = (0..<500).filter { !cancelled.contains($0) }.map { deadlines[$0] }.min()
        XCTAssertEqual(queue.nextDeadline, earliestKept, "cancelled timers do not count")
        for now in UInt64(1)...50 {
            while let callback = queue.popDue(at: now) { callback() }
        }
        let expected = (0..<500).filter { !cancelled.contains($0) }
            .sorted { (deadlines[$0], $0) < (deadlines[$1], $1) }
        XCTAssertEqual(fired.content, expected)
        XCTAssertNil(queue.nextDeadline)
        queue.cancel(ids[1])  // fired already: a no-op
    }
}

extension EventLoopTests {
    /// Runs `schedule` on the one loop of a new group and returns what the timers it scheduled
    /// logged, once one of them has called `finish()`.
    fileprivate func timerLog(_ schedule: @escaping @Sendable (HTTP2EventLoop, TimerLog) -> Void) throws -> [String] {
        let group = try HTTP2EventLoopGroup(threadCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let log = TimerLog(finished: expectation(description: "the timers under test fired"))
        loop.execute { schedule(loop, log) }
        wait(for: [log.finished], timeout: 10)
        return log.entries
    }
}

fileprivate final class TimerLog: Sendable {
    let finished: XCTestExpectation
    private let lines = Mutex<[String]>([])

    init(finished: XCTestExpectation) { self.finished = finished }

    func append(_ line: String) { lines.withLock { $0.append(line) } }
    func finish() { finished.fulfill() }
    var entries: [String] { lines.withLock { $0 } }
}

/// A mutable cell, for state kept in an `HTTP2LoopBound` (which holds class instances).
final class Cell<Content> {
    var content: Content?
    init(_ content: Content? = nil) { self.content = content }
}
