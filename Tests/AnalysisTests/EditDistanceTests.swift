import XCTest
import Analysis

final class EditDistanceTests: XCTestCase {
    func testDistance() {
        let pairs: [(String, String, Int)] = [
            ("", "", 0),
            ("", "abc", 3),
            ("abc", "abc", 0),
            ("ab", "ba", 1),             // one transposition
            ("abc", "acb", 1),
            ("kitten", "sitting", 3),
            ("iphone", "iphnoe", 1),
            ("iphone", "ipone", 1),      // deletion
            ("iphone", "iphonne", 1),    // insertion
            ("iphone", "iphome", 1),     // substitution
            ("ca", "abc", 3),            // OSA: the transposed pair is not edited again
            ("киев", "кеив", 1),         // Cyrillic, counted in scalars
            ("東京", "京東", 1),
            ("𠮷野", "吉野", 1),          // an astral scalar is one unit, not two
        ]
        for (a, b, expected) in pairs {
            XCTAssertEqual(EditDistance.distance(a, b), expected, "\(a) → \(b)")
            XCTAssertEqual(EditDistance.distance(b, a), expected, "\(b) → \(a)")
        }
    }

    func testPrefixDistance() {
        let pairs: [(String, String, Int)] = [
            ("iphn", "iphone", 1),
            ("xyz", "", 3),
            ("", "anything", 0),
            ("", "", 0),
            ("iph", "iphone", 0),
            ("iphone", "iphone", 0),
            ("ipho", "ihpone", 1),       // transposition inside the prefix
            ("iphonex", "iphone", 1),
            ("samsnug", "samsung galaxy", 1),
            ("zzz", "iphone", 3),
        ]
        for (query, word, expected) in pairs {
            XCTAssertEqual(EditDistance.prefixDistance(query, word), expected, "\(query) ~ \(word)")
        }
    }

    /// prefixDistance is by definition the minimum of distance over the word's prefixes.
    func testPrefixDistanceMatchesDefinition() {
        let words = ["iphone", "кеив", "", "abcabc", "東京都"]
        let queries = ["iphn", "ab", "", "киев", "cba", "京都"]
        for word in words {
            let scalars = Array(word.unicodeScalars)
            for query in queries {
                let expected = (0...scalars.count).map { length in
                    var prefix = String.UnicodeScalarView()
                    prefix.append(contentsOf: scalars[..<length])
                    return EditDistance.distance(query, String(prefix))
                }.min()!
                XCTAssertEqual(EditDistance.prefixDistance(query, word), expected, "\(query) ~ \(word)")
            }
        }
    }

    func testBudget() {
        let table: [(Int, Int)] = [(0, 0), (1, 0), (3, 0), (4, 1), (5, 1), (7, 1), (8, 2), (20, 2)]
        for (length, budget) in table {
            XCTAssertEqual(EditDistance.budget(forLength: length), budget, "length \(length)")
        }
    }

    /// A second edit needs the query's first letter; one edit is allowed anywhere.
    func testASecondEditNeedsTheFirstLetter() {
        XCTAssertTrue(EditDistance.admits(2, budget: 2, query: "cambridge", word: "cambirdgr"))
        XCTAssertFalse(EditDistance.admits(2, budget: 2, query: "cambridge", word: "xambirdge"))
        XCTAssertTrue(EditDistance.admits(1, budget: 2, query: "cambridge", word: "xambridge"))
        XCTAssertTrue(EditDistance.admits(1, budget: 1, query: "pyhton", word: "bython"))
        XCTAssertFalse(EditDistance.admits(2, budget: 1, query: "pyhton", word: "pytho"))
        XCTAssertTrue(EditDistance.admits(0, budget: 0, query: "ab", word: "ab"))
        XCTAssertFalse(EditDistance.admits(2, budget: 2, query: "\u{1D11E}bcdefgh", word: "abcdefgh"))
        XCTAssertTrue(EditDistance.admits(3, budget: 3, query: "\u{1D11E}bcdefgh", word: "\u{1D11E}xyzdefgh"))
        // Distances stay as defined; only what counts as a match changes.
        XCTAssertEqual(EditDistance.prefixDistance("xambirdge", "cambridge"), 2)
    }
}
