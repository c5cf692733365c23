import Foundation
import Synchronization
import XCTest

@testable import Observability

final class RequestIDTests: XCTestCase {
    func testFormatAndParse() {
        XCTAssertEqual(RequestID(rawValue: 0).description, "0000000000000000")
        XCTAssertEqual(RequestID(rawValue: 0xDEAD_BEEF).description, "00000000deadbeef")
        XCTAssertEqual(RequestID(rawValue: .max).description, "ffffffffffffffff")
        XCTAssertEqual(RequestID("00000000DEADBEEF"), RequestID(rawValue: 0xDEAD_BEEF))
        XCTAssertNil(RequestID("deadbeef"))
        XCTAssertNil(RequestID("000000000000000g"))
        XCTAssertNil(RequestID("+00000000000000f"))
        let id = RequestID.next()
        XCTAssertEqual(id.description.utf8.count, 16)
        XCTAssertEqual(RequestID(id.description), id)
    }

    func testGeneratorCountsFromItsBaseAndWraps() {
        let generator = RequestIDGenerator(base: .max - 1)
        XCTAssertEqual((0..<3).map { _ in generator.next().description },
                       ["fffffffffffffffe", "ffffffffffffffff", "0000000000000000"])
    }

    func testUniqueAcrossThreads() {
        let threads = 8, perThread = 20_000
        let all = Mutex<Set<RequestID>>([])
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            var mine: [RequestID] = []
            mine.reserveCapacity(perThread)
            for _ in 0..<perThread { mine.append(RequestID.next()) }
            all.withLock { $0.formUnion(mine) }
        }
        XCTAssertEqual(all.withLock { $0.count }, threads * perThread)
    }
}
