@testable import Index
import TestSupport
import XCTest

/// ``BuildTerms``: the vocabulary in byte order, and where each term's run of extensions ends.
final class BuildTermsTests: XCTestCase {
    /// Random words over three letters (many prefixes of one another), interned in random order:
    /// the term at `p` starts with the term at `q` exactly when `q <= p < prefixEnds[q]`.
    func testPrefixEndsMarkTheTermsThatStartWithEachTerm() {
        var rng = SeededGenerator(seed: 0xB7_0001)
        var vocabulary = BuildVocabulary()
        for _ in 0..<400 {
            let word = (0..<Int.random(in: 1...5, using: &rng)).map { _ in UInt8(ascii: "a") + UInt8.random(in: 0...2, using: &rng) }
            _ = word.withUnsafeBytes { vocabulary.intern($0, .name) }
        }
        let terms = BuildTerms(vocabulary: vocabulary, forwardIndex: false)
        let ends = terms.prefixEnds()
        XCTAssertGreaterThan(terms.count, 100)
        let all = (0..<terms.count).map(terms.term)
        var mismatches: [String] = []
        for q in all.indices {
            for p in all.indices where all[p].starts(with: all[q]) != (q <= p && p < Int(ends[q])) {
                mismatches.append("\(String(decoding: all[p], as: UTF8.self)) / \(String(decoding: all[q], as: UTF8.self))")
            }
        }
        XCTAssertEqual(mismatches, [])
    }
}
