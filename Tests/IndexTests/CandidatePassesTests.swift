@testable import Index
import TestSupport
import XCTest

/// The general plan's passes (``TypoPass``, ``CandidatePasses``) against a brute-force split: a
/// candidate's pass is the number of exact lists it is missing from. Both forms (split and lazy)
/// must list the same documents for every pass, and the lazy filter must answer documents asked
/// in ascending order with gaps of every size (it gallops).
final class CandidatePassesTests: XCTestCase {
    func testBothFormsListEachPassAsTheBruteForceSplit() {
        var rng = SeededGenerator(seed: 20261205)
        var compared = 0
        for round in 0..<200 {
            let universe = UInt32([50, 500, 5000][round % 3])
            func sample(_ share: Double) -> [UInt32] {
                (0..<universe).filter { _ in Double.random(in: 0..<1, using: &rng) < share }
            }
            let candidates = sample([0.9, 0.3, 0.05][round % 3])
            // Some lists are empty: no document has the complete words (or the partial word) spelled exactly.
            func list() -> [UInt32]? { rng.chance(0.25) ? nil : rng.chance(0.2) ? [] : sample(Double.random(in: 0..<1, using: &rng)) }
            let exactComplete = list()
            let exactPartial = list()
            let completeSet = exactComplete.map(Set.init), partialSet = exactPartial.map(Set.init)
            func bruteForcePass(_ doc: UInt32) -> Int {
                (completeSet.map { $0.contains(doc) ? 0 : 1 } ?? 0) + (partialSet.map { $0.contains(doc) ? 0 : 1 } ?? 0)
            }
            let count = 1 + (exactComplete == nil ? 0 : 1) + (exactPartial == nil ? 0 : 1)
            for postings in [0, Int.max] {
                let passes = CandidatePasses(candidates, exactComplete: exactComplete, exactPartial: exactPartial, postings: postings)
                XCTAssertEqual(passes.passes.upperBound, count)
                // A pass left out holds no candidate (an empty exact list puts every one later).
                for pass in 0..<passes.passes.lowerBound {
                    XCTAssertFalse(candidates.contains { bruteForcePass($0) == pass }, "round \(round) pass \(pass) left out")
                }
                for pass in passes.passes {
                    var (docs, members) = passes.walk(pass)
                    var listed: [UInt32] = []
                    // Ask about a random ascending subset, as a word's postings would.
                    for doc in docs where rng.chance(0.7) {
                        if members == nil || members!.contains(doc) { listed.append(doc) }
                    }
                    let expected = docs.filter { bruteForcePass($0) == pass }
                    if members == nil {
                        // Split (or no list: one pass of every candidate): the pass's documents exactly, ascending.
                        XCTAssertEqual(docs, candidates.filter { bruteForcePass($0) == pass }, "round \(round) pass \(pass) split")
                    }
                    XCTAssertTrue(listed.allSatisfy { bruteForcePass($0) == pass }, "round \(round) pass \(pass) postings \(postings)")
                    XCTAssertTrue(Set(listed).isSubset(of: Set(expected)))
                    // Every document asked about is classified: asked about all, the pass is whole.
                    var all = TypoPass(typos: pass, exactComplete: exactComplete, exactPartial: exactPartial)
                    let whole = candidates.filter { count == 1 || all.contains($0) }
                    XCTAssertEqual(whole, candidates.filter { bruteForcePass($0) == pass }, "round \(round) pass \(pass)")
                    compared += 1
                }
            }
        }
        print("[candidate passes] \(compared) passes compared with the brute-force split")
    }
}
