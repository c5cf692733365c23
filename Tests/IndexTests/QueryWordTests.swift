@testable import Index
import Storage
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
}
