// The coordinator's supersession table: a newer keystroke of a session cancels the older one in
// flight, an overtaken one is refused, and what it remembers of finished sessions lasts one to
// two windows, so its memory follows recent sessions rather than every session ever seen.

import Coordinator
import Synchronization
import XCTest

final class SessionTableTests: XCTestCase {
    /// A clock the test moves.
    final class FakeClock: Sendable {
        let time = Mutex<Duration>(.zero)
        func advance(_ by: Duration) { time.withLock { $0 += by } }
        var now: @Sendable () -> Duration { { [self] in time.withLock { $0 } } }
    }

    func testANewerKeystrokeCancelsTheOlderAndAnOvertakenOneIsRefused() {
        let table = SessionTable()
        let cancelled = Mutex<[UInt64]>([])
        XCTAssertEqual(table.begin(session: "s", revision: 1) { cancelled.withLock { $0.append(1) } }, .admitted(supersededRevision: nil))
        XCTAssertEqual(table.begin(session: "s", revision: 3) { cancelled.withLock { $0.append(3) } }, .admitted(supersededRevision: 1))
        XCTAssertEqual(cancelled.withLock { $0 }, [1])
        XCTAssertEqual(table.begin(session: "s", revision: 2) {}, .superseded(by: 3))
        table.end(session: "s", revision: 1)  // the cancelled one ends: the newer stays in flight
        XCTAssertEqual(table.inFlightCount, 1)
        table.end(session: "s", revision: 3)
        XCTAssertEqual(table.inFlightCount, 0)
        XCTAssertEqual(table.begin(session: "s", revision: 2) {}, .superseded(by: 3), "finished, still remembered")
        XCTAssertEqual(table.begin(session: "", revision: 1) {}, .untracked)
    }

    func testFinishedRevisionsAreRememberedForOneToTwoWindows() {
        let clock = FakeClock()
        let table = SessionTable(finishedWindow: .seconds(10), now: clock.now)
        _ = table.begin(session: "old", revision: 5) {}
        table.end(session: "old", revision: 5)
        clock.advance(.seconds(9))
        XCTAssertEqual(table.begin(session: "old", revision: 4) {}, .superseded(by: 5))
        // A session ending in the next window moves its stripe's window on (each stripe keeps its
        // own): end sessions until every stripe has rotated once, then once more.
        for round in 0..<2 {
            clock.advance(.seconds(10))
            for n in 0..<2_000 {
                _ = table.begin(session: "r\(round)-\(n)", revision: 1) {}
                table.end(session: "r\(round)-\(n)", revision: 1)
            }
        }
        XCTAssertEqual(table.begin(session: "old", revision: 4) {}, .admitted(supersededRevision: nil), "forgotten after two windows")
        table.end(session: "old", revision: 4)
        // Only the last two rounds' sessions (at most) are remembered, whatever came before.
        XCTAssertLessThanOrEqual(table.finishedCount, 4_001)
        XCTAssertGreaterThanOrEqual(table.finishedCount, 2_000)
    }

    func testAFullWindowEndsEarly() {
        let clock = FakeClock()
        let table = SessionTable(finishedWindow: .seconds(3600), finishedPerStripe: 8, now: clock.now)
        for n in 0..<100_000 {
            _ = table.begin(session: "s\(n)", revision: 1) {}
            table.end(session: "s\(n)", revision: 1)
        }
        XCTAssertLessThanOrEqual(table.finishedCount, 64 * 2 * 8, "bounded by stripes × two windows × the per-window bound")
        XCTAssertEqual(table.inFlightCount, 0)
    }
}
