@testable import Index
import TestSupport
import XCTest

/// ``DocumentSet`` against `Set<UInt32>`: inserts (new or not) and membership, through growth, for
/// random numbers, runs of consecutive ones (which cluster under linear probing), 0 and
/// `UInt32.max`.
final class DocumentSetTests: XCTestCase {
    func testAgreesWithSet() {
        var rng = SeededGenerator(seed: 0xD0C5_0001)
        for round in 0..<40 {
            var set = DocumentSet(capacity: [1, 8, 100][round % 3]), reference = Set<UInt32>()
            let universe = [UInt32(64), 5_000, .max][round % 3]
            for n in 0..<3_000 {
                let doc: UInt32
                switch rng.int(0...9) {
                case 0: doc = [0, .max, .max - 1][rng.int(0...2)]
                case 1...3: doc = UInt32(n)  // consecutive
                default: doc = UInt32.random(in: 0...universe, using: &rng)
                }
                XCTAssertEqual(set.insert(doc), reference.insert(doc).inserted, "round \(round), insert \(doc)")
                let probe = UInt32.random(in: 0...universe, using: &rng)
                XCTAssertEqual(set.contains(probe), reference.contains(probe), "round \(round), contains \(probe)")
            }
            XCTAssertEqual(set.count, reference.count, "round \(round)")
            for doc in reference { XCTAssertTrue(set.contains(doc), "round \(round), kept \(doc)") }
        }
    }
}
