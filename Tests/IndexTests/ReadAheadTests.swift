import Foundation
@testable import Index
import Synchronization
import XCTest

/// ``ReadAhead``: batches in the source's order, the source's error after the batches before it,
/// nothing read past the end, an error or ``ReadAhead/stop()``, and at most its depth read ahead.
final class ReadAheadTests: XCTestCase {
    private struct SourceError: Error, Equatable { let at: Int }

    /// A source of the numbers 0..<count that throws at `failing`, counting its calls.
    private final class Numbers: @unchecked Sendable {
        let calls = Atomic<Int>(0)
        let count: Int
        let failing: Int?

        init(count: Int, failing: Int? = nil) {
            self.count = count
            self.failing = failing
        }

        func next() throws -> Int? {
            let call = calls.wrappingAdd(1, ordering: .relaxed).oldValue
            if call == failing { throw SourceError(at: call) }
            return call < count ? call : nil
        }
    }

    private func take(_ reader: ReadAhead<Int>) throws -> [Int] {
        var taken: [Int] = []
        while let batch = try reader.next() { taken.append(batch) }
        return taken
    }

    func testBatchesComeInOrderAndTheSourceIsNotCalledAfterItsEnd() throws {
        for depth in [1, 2, 5] {
            let numbers = Numbers(count: 100)
            let reader = ReadAhead(depth: depth, source: numbers.next)
            XCTAssertEqual(try take(reader), Array(0..<100))
            XCTAssertNil(try reader.next(), "after the end, nil again")
            reader.stop()
            XCTAssertEqual(numbers.calls.load(ordering: .relaxed), 101, "100 batches and the nil")
        }
    }

    func testTheSourcesErrorComesAfterTheBatchesBeforeIt() {
        let numbers = Numbers(count: 100, failing: 7)
        let reader = ReadAhead(source: numbers.next)
        defer { reader.stop() }
        var taken: [Int] = []
        XCTAssertThrowsError(try { while let batch = try reader.next() { taken.append(batch) } }()) { error in
            XCTAssertEqual(error as? SourceError, SourceError(at: 7))
        }
        XCTAssertEqual(taken, Array(0..<7))
        XCTAssertNil(try reader.next(), "after the error, nil")
        reader.stop()
        XCTAssertEqual(numbers.calls.load(ordering: .relaxed), 8, "not called after it threw")
    }

    /// Nothing taken: the reader reads `depth` batches and waits; stopped, it reads no more.
    func testItReadsAtMostItsDepthAheadAndNothingAfterStop() throws {
        let numbers = Numbers(count: 1_000)
        let reader = ReadAhead(depth: 3, source: numbers.next)
        let deadline = Date().addingTimeInterval(10)
        while numbers.calls.load(ordering: .relaxed) < 3, Date() < deadline { usleep(1_000) }
        usleep(50_000)
        XCTAssertEqual(numbers.calls.load(ordering: .relaxed), 3, "the depth, no more")
        XCTAssertEqual(try reader.next(), 0)
        reader.stop()
        let calls = numbers.calls.load(ordering: .relaxed)
        XCTAssertLessThanOrEqual(calls, 4, "one more place freed by the batch taken")
        XCTAssertNil(try reader.next(), "stopped")
        usleep(20_000)
        XCTAssertEqual(numbers.calls.load(ordering: .relaxed), calls)
        reader.stop()   // idempotent
    }
}
