@testable import Index
import TestSupport
import XCTest

/// ``TermList`` against the array of arrays it replaced: the same terms, distances and order
/// read back, filtered and merged.
final class TermListTests: XCTestCase {
    private static func randomTerms(_ rng: inout SeededGenerator, count: Int) -> [(term: [UInt8], distance: Int)] {
        (0..<count).map { _ in
            // Empty terms too: a walk lists the root ("") when it matches.
            let length = rng.int(0...9)
            return ((0..<length).map { _ in UInt8(rng.int(0x61...0x7A)) }, rng.int(0...2))
        }
    }

    func testReadsBackWhatWasAppended() {
        var rng = SeededGenerator(seed: 20261206)
        for round in 0..<50 {
            let model = Self.randomTerms(&rng, count: rng.int(0...300))
            let list = TermList(model.lazy.map { ($0.term, $0.distance) })
            XCTAssertEqual(list.count, model.count, "round \(round)")
            XCTAssertEqual(list.isEmpty, model.isEmpty, "round \(round)")
            for (index, expected) in model.enumerated() {
                XCTAssertEqual(Array(list[index].term), expected.term, "round \(round) term \(index)")
                XCTAssertEqual(list.term(at: index), expected.term[...], "round \(round) term \(index)")
                XCTAssertEqual(list.distance(at: index), expected.distance, "round \(round) term \(index)")
            }
            XCTAssertEqual(list.terms.map { Array($0) }, model.map(\.term), "round \(round)")
            let kept = list.filter { $0.distance > 0 }
            let keptModel = model.filter { $0.distance > 0 }
            XCTAssertEqual(kept.map { Array($0.term) }, keptModel.map(\.term), "round \(round)")
            XCTAssertEqual(kept.map(\.distance), keptModel.map(\.distance), "round \(round)")
        }
    }

    /// The merge of base and delta terms keeps byte order and each term's smallest distance, as a
    /// dictionary of the two would.
    func testMergeKeepsOrderAndTheSmallestDistance() {
        var rng = SeededGenerator(seed: 7)
        func sortedDistinct(_ terms: [(term: [UInt8], distance: Int)]) -> [(term: [UInt8], distance: Int)] {
            var seen = Set<[UInt8]>()
            return terms.filter { seen.insert($0.term).inserted }.sorted { $0.term.lexicographicallyPrecedes($1.term) }
        }
        for round in 0..<100 {
            let base = sortedDistinct(Self.randomTerms(&rng, count: rng.int(0...80)))
            let delta = sortedDistinct(Self.randomTerms(&rng, count: rng.int(0...80)))
            var expected: [[UInt8]: Int] = [:]
            for (term, distance) in base + delta { expected[term] = min(distance, expected[term] ?? distance) }
            let merged = TermList.merged(TermList(base.lazy.map { ($0.term, $0.distance) }),
                                           TermList(delta.lazy.map { ($0.term, $0.distance) }))
            XCTAssertEqual(merged.map { Array($0.term) }, expected.keys.sorted { $0.lexicographicallyPrecedes($1) }, "round \(round)")
            for (term, distance) in merged {
                XCTAssertEqual(distance, expected[Array(term)], "round \(round)")
            }
        }
    }

    /// The cache charges what the list holds: its bytes and five a term, not an array a term.
    func testMemoryGrowsWithTheBytesNotAnAllocationATerm() {
        var list = TermList()
        let empty = list.memoryBytes
        for n in 0..<1_000 { list.append(Array("word\(n)".utf8), distance: 1) }
        let bytes = (0..<1_000).reduce(0) { $0 + "word\($1)".utf8.count }
        XCTAssertEqual(list.memoryBytes - empty, bytes + 5 * 1_000)
    }
}
