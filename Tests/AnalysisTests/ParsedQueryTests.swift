import XCTest
import Analysis

final class ParsedQueryTests: XCTestCase {
    let analyzer = Analyzer()

    static let table: [(text: String, complete: [String], partial: String?, before: String)] = [
        ("red iph", ["red"], "iph", "red "),
        ("red ", ["red"], nil, "red "),
        ("", [], nil, ""),
        ("Zür", [], "zur", ""),
        ("東京", ["東"], "京", "東"),
        ("a-b", ["a"], "b", "a-"),
        ("don'", ["don"], nil, "don'"),
        ("don't", [], "dont", ""),
        ("  x", [], "x", "  "),
        ("Zu\u{308}", [], "zu", ""),          // a trailing mark does not end the word
        ("co\u{AD}", [], "co", ""),            // nor does a trailing default-ignorable
        ("red.", ["red"], nil, "red."),
        ("👍 Ｐｈ", [], "ph", "👍 "),          // textBeforePartial keeps the original text
        ("Москва Ки", ["москва"], "ки", "Москва "),
        ("iPhone 東", ["iphone"], "東", "iPhone "),
        (String(repeating: "x", count: 40), [], String(repeating: "x", count: 32), ""),
    ]

    func testTable() {
        for row in Self.table {
            let parsed = analyzer.parseQuery(row.text)
            XCTAssertEqual(parsed, ParsedQuery(completeWords: row.complete, partialWord: row.partial,
                                               textBeforePartial: row.before),
                           row.text.debugDescription)
        }
    }

    /// Complete words plus the partial word are exactly the analysed terms of the text, so a
    /// query matches what indexing the same text would produce.
    func testAgreesWithTerms() {
        let texts = Self.table.map(\.text) + AnalyzerTests.table.map(\.input)
        for text in texts {
            let parsed = analyzer.parseQuery(text)
            XCTAssertEqual(parsed.completeWords + (parsed.partialWord.map { [$0] } ?? []),
                           analyzer.terms(in: text), text.debugDescription)
            XCTAssertTrue(text.hasPrefix(parsed.textBeforePartial), text.debugDescription)
            if parsed.partialWord == nil {
                XCTAssertEqual(parsed.textBeforePartial, text)
            }
        }
    }
}
