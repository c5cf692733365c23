import Analysis
@testable import Index
import Storage
import TestSupport
import XCTest

/// `QueryWord.occurs`, the typo-free scan of a " "-joined word list, against splitting the list.
final class QueryWordTests: XCTestCase {
    func testOccursEqualsSplittingTheList() {
        var rng = SystemRandomNumberGenerator()
        let alphabet: [String] = ["a", "b", "ab", "ba", "é", "日", "aé"]
        var checked = 0
        for _ in 0..<3000 {
            let words = (0..<Int.random(in: 0...6, using: &rng)).map { _ in
                (0..<Int.random(in: 1...4, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }.joined()
            }
            let list = Array(words.joined(separator: " ").utf8)
            let query = Array((0..<Int.random(in: 1...3, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }.joined().utf8)
            for asPrefix in [false, true] {
                let expected = words.contains { asPrefix ? Array($0.utf8).starts(with: query) : Array($0.utf8) == query }
                let found = Bytes.withView(of: list) { QueryWord.occurs(query, in: $0, asPrefix: asPrefix) }
                XCTAssertEqual(found, expected, "\(words) \(String(decoding: query, as: UTF8.self)) prefix \(asPrefix)")
                checked += 1
            }
        }
        XCTAssertEqual(checked, 6000)
    }

    /// `distance(to:)` against the brute-force edit distance (whole words) and prefix distance
    /// (partial words), with budgets of one and two: the one-edit test of the first two scalars
    /// rejects only what is too far. Words are drawn from few letters so that most are near.
    func testDistanceEqualsTheReference() {
        var rng = SystemRandomNumberGenerator()
        // Multi-byte scalars too: the start test decodes the word's first two.
        let alphabet: [String] = ["a", "b", "c", "l", "i", "é", "ж", "字"]
        var rejectedWithinReach = 0
        for _ in 0..<20_000 {
            let query = (0..<Int.random(in: 2...9, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }.joined()
            var word = (0..<Int.random(in: 0...9, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }.joined()
            if Bool.random(using: &rng) {
                // The query with an edit or two (often at its start) and perhaps more letters.
                var letters = query.map(String.init)
                for _ in 0..<Int.random(in: 1...2, using: &rng) {
                    let at = Int.random(in: 0..<min(3, letters.count), using: &rng)
                    switch Int.random(in: 0..<4, using: &rng) {
                    case 0: letters[at] = alphabet.randomElement(using: &rng)!
                    case 1: letters.insert(alphabet.randomElement(using: &rng)!, at: at)
                    case 2 where letters.count > 1: letters.remove(at: at)
                    default: if at + 1 < letters.count { letters.swapAt(at, at + 1) }
                    }
                }
                word = letters.joined() + (Bool.random(using: &rng) ? "" : word)
            }
            for isPartial in [false, true] {
                for budget in [1, 2] {
                    var queryWord = QueryWord(query, isPartial: isPartial, typos: .auto).withBudget(budget)
                    guard queryWord.budget == budget else { continue }
                    let d = isPartial ? EditDistance.prefixDistance(query, word) : EditDistance.distance(query, word)
                    let expected = EditDistance.admits(d, budget: budget, query: query, word: word) ? d : nil
                    let found = queryWord.distance(to: Array(word.utf8))
                    XCTAssertEqual(found, expected, "\(query) → \(word), partial \(isPartial), budget \(budget)")
                    if expected != nil { rejectedWithinReach += found == nil ? 1 : 0 }
                }
            }
        }
        XCTAssertEqual(rejectedWithinReach, 0)
    }

    /// One query word compared with thousands of words, many of them again: past
    /// ``DistanceMemo/runsBefore`` its distances come from its ``DistanceMemo``, whose slots
    /// are overwritten (more distinct words than slots) and which keeps no word past its width.
    /// Every answer equals the brute-force reference.
    func testRememberedDistancesEqualTheReference() {
        var rng = SeededGenerator(seed: 0xD157_0001)
        let alphabet: [String] = ["a", "b", "c", "l", "i", "t", "é", "ж", "字"]
        for (query, isPartial, budget) in [("libt", true, 1), ("stauner", false, 1), ("camakeero", true, 2), ("字典lé", true, 1)] {
            var word = QueryWord(query, isPartial: isPartial, typos: .auto).withBudget(budget)
            XCTAssertEqual(word.budget, budget)
            let letters = query.map(String.init)
            let pool: [String] = (0..<600).map { n in
                switch n % 4 {
                case 0: return query + (0..<rng.int(0...3)).map { _ in rng.pick(alphabet) }.joined()
                case 1:
                    var near = letters
                    near[rng.int(0...(near.count - 1))] = rng.pick(alphabet)
                    return near.joined()
                case 2: return String(query.prefix(2)) + (0..<rng.int(0...12)).map { _ in rng.pick(alphabet) }.joined()
                default: return (0..<rng.int(1...40)).map { _ in rng.pick(alphabet) }.joined()  // some past the memo's width
                }
            }
            var remembered = 0
            for n in 0..<4000 {
                let other = rng.pick(pool)
                let d = isPartial ? EditDistance.prefixDistance(query, other) : EditDistance.distance(query, other)
                let expected = EditDistance.admits(d, budget: budget, query: query, word: other) ? d : nil
                XCTAssertEqual(word.distance(to: Array(other.utf8)), expected, "\(query) → \(other), comparison \(n)")
                if n >= DistanceMemo.runsBefore { remembered += 1 }
            }
            XCTAssertGreaterThan(remembered, 3000)
        }
    }
}
