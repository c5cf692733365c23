// TermTable (the completion candidates and open words of one query) against a Dictionary doing
// the same operations: same look-ups, same values, same live count, and live entries in the
// order their terms were first noted, below and above the size where it starts hashing.

import Catalog
import XCTest
@testable import Index

final class TermTableTests: XCTestCase {
    func testMatchesADictionaryUnderRandomNotesAndRemovals() {
        var random = SplitMix64(seed: 7)
        for round in 0..<40 {
            // Few distinct terms in some rounds (collisions of notes), many in others (hashing, growth).
            let vocabulary = round % 2 == 0 ? 6 : 3_000
            var table = TermTable<Int>()
            var reference: [[UInt8]: Int] = [:]
            var firstNoted: [[UInt8]] = []
            for _ in 0..<4_000 {
                let term = Self.term(Int(random.next() % UInt64(vocabulary)))
                switch random.next() % 4 {
                case 0:
                    XCTAssertEqual(term.withUnsafeBytes { table.remove($0) }, reference.removeValue(forKey: term))
                case 1:
                    XCTAssertEqual(table.index(of: term).map { table.entries[$0].value }, reference[term])
                default:
                    // Keep the smaller value, as a plan keeps a word's best entry.
                    let value = Int(random.next() % 1_000)
                    let index = table.update(term) { existing in
                        if existing == nil || value < existing! { existing = value }
                    }
                    reference[term] = min(reference[term] ?? .max, value)
                    if !firstNoted.contains(term) { firstNoted.append(term) }
                    XCTAssertEqual(index.map { table.term(at: $0) }, term)
                }
                XCTAssertEqual(table.count, reference.count)
            }
            let live = table.liveIndices.map { table.term(at: $0) }
            XCTAssertEqual(live, firstNoted.filter { reference[$0] != nil }, "round \(round)")
            for (term, value) in reference {
                XCTAssertEqual(table.index(of: term).map { table.entries[$0].value }, value)
            }
        }
    }

    func testEmptyAndPrefixTermsAreDistinct() {
        var table = TermTable<Int>()
        let terms: [[UInt8]] = [[], Array("a".utf8), Array("ab".utf8), Array("abc".utf8), Array("b".utf8)]
        for _ in 0..<3 {  // past the linear limit too
            for (value, term) in terms.enumerated() { table.update(term) { $0 = value } }
            for i in 0..<20 { table.update([0xFF] + Self.term(i)) { $0 = -1 } }
        }
        for (value, term) in terms.enumerated() {
            XCTAssertEqual(table.index(of: term).map { table.entries[$0].value }, value)
        }
        XCTAssertEqual(table.count, terms.count + 20)
        XCTAssertTrue(table.termPrecedes(table.index(of: Array("ab".utf8))!, table.index(of: Array("abc".utf8))!))
        XCTAssertFalse(table.termPrecedes(table.index(of: Array("b".utf8))!, table.index(of: Array("abc".utf8))!))
    }

    /// Short byte strings, many sharing prefixes (some bytes are halves of two-byte scalars).
    private static func term(_ n: Int) -> [UInt8] {
        let letters = Array("abcdéfghijklmnopqrstuvwxyzü".utf8)
        var bytes: [UInt8] = []
        var n = n + 1
        while n > 0 {
            bytes.append(letters[n % letters.count])
            n /= letters.count
        }
        return bytes
    }
}
