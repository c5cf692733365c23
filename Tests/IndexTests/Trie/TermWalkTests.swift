// The edit automaton and the term-trie walks against brute force: Analysis's EditDistance
// (written straight from its definition) over random words of a small alphabet, so that shared
// prefixes, transpositions and long runs of one letter are common.

import Analysis
@testable import Index
import Storage
import TestSupport
import XCTest

final class TermWalkTests: XCTestCase {
    static let alphabet: [Character] = ["a", "b", "c", "é", "ж", "字", "𠀋"]

    static func randomWord(_ rng: inout SeededGenerator, length: ClosedRange<Int>) -> String {
        String((0..<rng.int(length)).map { _ in rng.pick(alphabet) })
    }

    /// `distance(to:)` equals EditDistance (prefix or whole word) within the budget, nil beyond it,
    /// for every budget the query lengths give and beyond; and `isFinal` never lies: when it holds
    /// after a prefix, every extension has the same prefix distance.
    func testAutomatonAgreesWithEditDistance() {
        var rng = SeededGenerator(seed: 0xA17_0E1A)
        for _ in 0..<3000 {
            let query = Self.randomWord(&rng, length: 1...9)
            let word = Self.randomWord(&rng, length: 0...12)
            let budget = rng.int(0...3)
            for prefixMode in [false, true] {
                var automaton = EditAutomaton(query: query.unicodeScalars.map(\.value), budget: budget, prefixMode: prefixMode)
                let exact = prefixMode ? EditDistance.prefixDistance(query, word) : EditDistance.distance(query, word)
                let expected = exact <= budget ? exact : nil
                XCTAssertEqual(automaton.distance(to: Array(word.utf8)), expected,
                               "query \(query) word \(word) budget \(budget) prefix \(prefixMode)")
                guard prefixMode else { continue }
                // Push scalar by scalar; where the row is final, every extension keeps the distance.
                automaton.truncate(to: 0)
                var typed = ""
                for scalar in word.unicodeScalars {
                    guard automaton.push(scalar.value) else { break }
                    typed.unicodeScalars.append(scalar)
                    if automaton.isFinal {
                        let d = automaton.distance
                        XCTAssertEqual(d, EditDistance.prefixDistance(query, typed))
                        for _ in 0..<3 {
                            let longer = typed + Self.randomWord(&rng, length: 1...5)
                            XCTAssertEqual(EditDistance.prefixDistance(query, longer), d,
                                           "final after \(typed) for \(query), but \(longer) differs")
                        }
                    }
                }
            }
        }
    }

    /// The packed trie's matches, and its regions expanded into terms, are exactly the terms
    /// within the budget, with their distances.
    func testPackedTrieMatchesAndRegionsAgreeWithBruteForce() throws {
        var rng = SeededGenerator(seed: 0x7E_A1)
        for round in 0..<40 {
            let terms = Array(Set((0..<rng.int(1...300)).map { _ in Self.randomWord(&rng, length: 1...8) }))
                .map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
            let trie = PackedTrie.build(terms)
            try Bytes.withView(of: trie) { bytes in
                for _ in 0..<30 {
                    let query = Self.randomWord(&rng, length: 1...7)
                    let budget = rng.int(0...2)
                    let prefixMode = rng.chance(0.7)
                    var expected: [[UInt8]: Int] = [:]
                    for term in terms {
                        let word = String(decoding: term, as: UTF8.self)
                        let d = prefixMode ? EditDistance.prefixDistance(query, word) : EditDistance.distance(query, word)
                        if d <= budget { expected[term] = d }
                    }
                    let scalars = query.unicodeScalars.map(\.value)
                    var automaton = EditAutomaton(query: scalars, budget: budget, prefixMode: prefixMode)
                    let found = try PackedTrie.matches(bytes, automaton: &automaton)
                    let context = "round \(round) query \(query) budget \(budget) prefix \(prefixMode)"
                    XCTAssertEqual(Dictionary(uniqueKeysWithValues: found.map { ($0.term, $0.distance) }), expected, context)
                    XCTAssertEqual(found.map(\.term), found.map(\.term).sorted { $0.lexicographicallyPrecedes($1) }, context)

                    var listed: [(term: [UInt8], distance: Int)]? = []
                    let regions = try PackedTrie.regions(bytes, automaton: &automaton, terms: &listed)
                    XCTAssertEqual(listed!.map(\.term), found.map(\.term), context)
                    // Regions cover the same terms: each term once, at its region's distance.
                    var covered: [[UInt8]: Int] = [:]
                    for region in regions {
                        let members = region.isSubtree ? terms.filter { $0.starts(with: region.prefix) } : [region.prefix]
                        XCTAssertFalse(members.isEmpty, context)
                        for term in members {
                            XCTAssertNil(covered.updateValue(region.distance, forKey: term), "\(context): covered twice")
                        }
                    }
                    XCTAssertEqual(covered, expected, context)
                }
            }
        }
    }
}
