import Foundation
import XCTest
import Analysis

/// Rules 1–6 of the Analysis module documentation, one table row per behaviour.
final class AnalyzerTests: XCTestCase {
    let analyzer = Analyzer()

    /// (input, expected terms, which rule or case the row pins down). Expected terms are
    /// compared scalar by scalar: `String ==` is canonical equivalence, which would hide a
    /// term that is not NFC.
    static let table: [(input: String, terms: [String], note: String)] = [
        // Rule 1/6: nothing in, nothing out; no empty words.
        ("", [], "empty"),
        ("   \t\n ", [], "whitespace only"),
        ("!?.,;:-", [], "punctuation only"),
        // Rule 2: compatibility decomposition, case folding, marks dropped, NFC out.
        ("Zürich", ["zurich"], "Latin precomposed diaeresis"),
        ("Zu\u{308}rich", ["zurich"], "Latin decomposed diaeresis"),
        ("Crème Brûlée", ["creme", "brulee"], "Latin accents"),
        ("ÅŁØ", ["ał\u{F8}"], "letters without a decomposition keep their identity (Ł, Ø)"),
        ("Ｃafé", ["cafe"], "fullwidth"),
        ("ﬁsh ﬂow", ["fish", "flow"], "ligatures"),
        ("Straße", ["strasse"], "sharp s folds to ss"),
        ("ΟΔΥΣΣΕΥΣ", ["οδυσσευσ"], "Greek capitals"),
        ("Ὀδυσσεύς", ["οδυσσευσ"], "Greek final sigma and tonos"),
        ("Київ", ["киів"], "Cyrillic: ї loses its diaeresis"),
        ("Москва", ["москва"], "Cyrillic"),
        ("x²", ["x2"], "superscript digit"),
        ("½", ["1", "2"], "vulgar fraction: the fraction slash separates"),
        ("İstanbul", ["istanbul"], "dotted capital I: i + dot, dot dropped"),
        ("سيّد", ["سيد"], "Arabic shadda dropped"),
        ("مُحَمَّد", ["محمد"], "Arabic harakat dropped"),
        ("שָׁלוֹם", ["שלום"], "Hebrew niqqud dropped"),
        ("हिन्दी", ["हिनदी"], "Devanagari: Mc vowel signs kept, Mn virama dropped"),
        ("ভাষা", ["ভাষা"], "Bengali Mc vowel sign kept"),
        ("கொ", ["கொ"], "Tamil two-part Mc vowel sign recomposed"),
        ("한국어 사전", ["한국어", "사전"], "Hangul syllables form words"),
        ("\u{1112}\u{1161}\u{11AB}", ["한"], "conjoining jamo compose to NFC"),
        ("ｶﾀｶﾅ", ["カ", "タ", "カ", "ナ"], "halfwidth katakana become fullwidth, one per word"),
        ("ⓐⓑ", ["ab"], "enclosed letters decompose"),
        ("Ⅻ", ["xii"], "roman numeral (Nl) decomposes"),
        ("co\u{00AD}operate", ["cooperate"], "soft hyphen is default-ignorable and joins"),
        ("a\u{200D}b\u{200B}c", ["abc"], "ZWJ and ZERO WIDTH SPACE are default-ignorable"),
        ("\u{00AD}x", ["x"], "an ignorable does not start a word"),
        ("\u{301}x", ["x"], "a leading mark does not start a word"),
        // Rule 2: word characters vs separators.
        ("iPhone-15 Pro", ["iphone", "15", "pro"], "mixed"),
        ("snake_case.file-name/v2", ["snake", "case", "file", "name", "v2"], "hyphen underscore dot"),
        ("3.14 1,000", ["3", "14", "1", "000"], "numbers split at punctuation"),
        ("a–b—c", ["a", "b", "c"], "dashes"),
        ("I❤️NY", ["i", "ny"], "emoji separates (its variation selector is ignorable)"),
        ("a👍🏽b", ["a", "b"], "emoji with skin tone separates"),
        ("tab\there\u{00A0}nbsp", ["tab", "here", "nbsp"], "control and no-break space"),
        ("C++ & C#", ["c", "c"], "symbols separate"),
        // Rule 3: apostrophes.
        ("O'Brien", ["obrien"], "ASCII apostrophe inside a word"),
        ("don’t", ["dont"], "right single quotation mark inside a word"),
        ("ʻaʼa", ["ʻaa"], "U+02BC inside joins; U+02BB is a letter (Lm)"),
        ("a＇b", ["ab"], "fullwidth apostrophe maps to U+0027"),
        ("'quoted'", ["quoted"], "leading and trailing apostrophes separate"),
        ("‘single’", ["single"], "curly quotes around a word separate"),
        ("a''b", ["a", "b"], "two apostrophes separate"),
        ("a' b", ["a", "b"], "apostrophe before a space"),
        ("a 'b", ["a", "b"], "apostrophe after a space"),
        ("rock'n'roll", ["rocknroll"], "several single apostrophes"),
        ("東'京", ["東", "京"], "apostrophe next to an ideograph separates"),
        ("a'東", ["a", "東"], "apostrophe before an ideograph separates"),
        // Rule 4: ideographs and kana.
        ("東京都", ["東", "京", "都"], "Han: one word per ideograph"),
        ("東京タワー", ["東", "京", "タ", "ワ", "ー"], "katakana and prolonged sound mark"),
        ("ひらがな", ["ひ", "ら", "か", "な"], "hiragana; voiced が loses its dakuten (Mn)"),
        ("iPhone東京15", ["iphone", "東", "京", "15"], "Latin and digits around ideographs"),
        ("時々", ["時", "々"], "iteration mark"),
        ("𠮷野家", ["𠮷", "野", "家"], "Extension B (astral) ideograph"),
        ("\u{F92C}", ["\u{90CE}"], "compatibility ideograph maps to the unified one"),
        ("\u{2F00}", ["一"], "Kangxi radical maps to the ideograph"),
        ("㍿", ["株", "式", "会", "社"], "square ideographs decompose to one word each"),
        ("ภาษาไทย", ["ภาษาไทย"], "Thai run stays one word (limitation)"),
        // Rule 5: truncation, after recomposition.
        (String(repeating: "a", count: 40), [String(repeating: "a", count: 32)], "ASCII truncation"),
        (String(repeating: "a", count: 32), [String(repeating: "a", count: 32)], "exactly 32"),
        (String(repeating: "\u{1112}\u{1161}\u{11AB}", count: 40),
         [String(repeating: "한", count: 32)], "truncation counts composed scalars"),
        (String(repeating: "é", count: 300) + " x", [String(repeating: "e", count: 32), "x"],
         "very long word is cut and the next word survives"),
    ]

    func testTable() {
        for row in Self.table {
            let terms = analyzer.terms(in: row.input)
            XCTAssertEqual(terms.map { Array($0.unicodeScalars) },
                           row.terms.map { Array($0.unicodeScalars) },
                           "\(row.note): \(row.input.debugDescription) → \(terms)")
            XCTAssertEqual(analyzer.words(in: row.input).map(\.term), terms, row.note)
        }
    }

    /// `appendTerms` appends exactly the words `words(in:)` finds, each with its range, after what
    /// the buffer held; a term turned down leaves no byte behind, and the next one takes its place.
    func testAppendTermsAppendsTheWordsWithTheirRangesAndDropsTheOnesNotKept() {
        for row in Self.table + [("👍 Zürich O'Brien cafe\u{301}, don' 東京", [], "ranges")] {
            let words = analyzer.words(in: row.input)
            var bytes = Array("kept ".utf8)
            var seen: [(term: String, range: Range<Int>)] = []
            analyzer.appendTerms(of: row.input, to: &bytes) { buffer, term, range in
                seen.append((String(decoding: buffer[term], as: UTF8.self), range))
                return true
            }
            XCTAssertEqual(seen.map(\.term), words.map(\.term), row.note)
            XCTAssertEqual(seen.map(\.range), words.map(\.utf16Range), row.note)
            XCTAssertEqual(Array(bytes), Array(("kept " + words.map { $0.term + " " }.joined()).utf8), row.note)

            // Every other word turned down.
            var bytesKeepingSome = Array("kept ".utf8)
            var index = 0
            analyzer.appendTerms(of: row.input, to: &bytesKeepingSome) { _, _, _ in
                defer { index += 1 }
                return index % 2 == 0
            }
            let kept = words.enumerated().filter { $0.offset % 2 == 0 }.map { $0.element.term + " " }.joined()
            XCTAssertEqual(bytesKeepingSome, Array(("kept " + kept).utf8), row.note)
        }
    }

    func testTermsAreNFCAndNonEmptyAndBounded() {
        for row in Self.table {
            for term in analyzer.terms(in: row.input) {
                XCTAssertFalse(term.isEmpty, row.note)
                XCTAssertLessThanOrEqual(term.unicodeScalars.count, Analyzer.maximumWordLength)
                XCTAssertEqual(Array(term.unicodeScalars),
                               Array(term.precomposedStringWithCanonicalMapping.unicodeScalars),
                               "\(row.note): \(term.debugDescription) is not NFC")
            }
        }
    }

    /// Analysing a term again changes nothing: the index may store terms and compare them with
    /// analysed query words.
    func testAnalysisIsIdempotent() {
        for row in Self.table {
            for term in analyzer.terms(in: row.input) {
                XCTAssertEqual(analyzer.terms(in: term).map { Array($0.unicodeScalars) },
                               [Array(term.unicodeScalars)], row.note)
            }
        }
    }

    func testUTF16Ranges() {
        // 👍 is a surrogate pair: "Zürich" starts at UTF-16 offset 3, not 2.
        let text = "👍 Zürich O'Brien cafe\u{301}, don' 東京"
        let words = analyzer.words(in: text)
        XCTAssertEqual(words.map(\.term), ["zurich", "obrien", "cafe", "don", "東", "京"])
        let utf16 = Array(text.utf16)
        let slices = words.map { String(decoding: utf16[$0.utf16Range], as: UTF16.self) }
        XCTAssertEqual(slices.map { Array($0.unicodeScalars) },
                       ["Zürich", "O'Brien", "cafe\u{301}", "don", "東", "京"]
                           .map { Array($0.unicodeScalars) })
        XCTAssertEqual(words[0].utf16Range, 3..<9)
        XCTAssertEqual(words[1].utf16Range, 10..<17)
    }

    func testUTF16RangesOfAstralAndExpandingScalars() {
        // An astral ideograph is one word spanning two UTF-16 units; ½ yields two words
        // that both come from the same original scalar; truncation keeps the whole range.
        XCTAssertEqual(analyzer.words(in: "x𠮷"),
                       [Word(term: "x", utf16Range: 0..<1), Word(term: "𠮷", utf16Range: 1..<3)])
        XCTAssertEqual(analyzer.words(in: "½"),
                       [Word(term: "1", utf16Range: 0..<1), Word(term: "2", utf16Range: 0..<1)])
        let long = String(repeating: "b", count: 40)
        XCTAssertEqual(analyzer.words(in: " " + long).first?.utf16Range, 1..<41)
        // A mark after a kana belongs to the kana's word.
        XCTAssertEqual(analyzer.words(in: "カ\u{3099}"), [Word(term: "カ", utf16Range: 0..<2)])
    }

    func testIsWordCharacter() {
        let yes: [Unicode.Scalar] = ["a", "Z", "7", "é", "ß", "\u{FB01}", "²", "東", "ー", "ｶ",
                                     "\u{093F}", "한", "\u{2167}"]
        let no: [Unicode.Scalar] = [" ", "-", "_", ".", "'", "\u{2019}", "\u{02BC}", "\u{301}",
                                    "\u{00AD}", "\u{200D}", "👍", "・", "\u{0}"]
        for scalar in yes {
            XCTAssertTrue(analyzer.isWordCharacter(scalar), "U+\(String(scalar.value, radix: 16))")
        }
        for scalar in no {
            XCTAssertFalse(analyzer.isWordCharacter(scalar), "U+\(String(scalar.value, radix: 16))")
        }
    }

    /// Not a timed assertion: prints throughput when TYPEAHEAD_BENCH=1, meant for release
    /// builds (`TYPEAHEAD_BENCH=1 swift test -c release --filter AnalyzerTests/testBenchmark`).
    func testBenchmark() throws {
        try XCTSkipUnless(ProcessInfo.processInfo.environment["TYPEAHEAD_BENCH"] == "1",
                          "set TYPEAHEAD_BENCH=1 to run")
        let ascii = [
            "Apple iPhone 15 Pro 256GB", "Samsung Galaxy S24 Ultra", "Sony WH-1000XM5 Headphones",
            "Dell XPS 13 Laptop", "Logitech MX Master 3S", "Nintendo Switch OLED",
        ]
        let nonASCII = ["Crème Brûlée Set", "Zürich City Guide", "東京タワー 観光ガイド",
                        "Москва: путеводитель", "한국어 사전 2판"]
        let rounds = 200_000
        for (name, inputs) in [("ascii", ascii), ("non-ascii", nonASCII)] {
            var words = 0
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<rounds {
                for title in inputs {
                    words += analyzer.words(in: title).count
                }
            }
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
            let titles = Double(rounds * inputs.count)
            print("Analyzer.words(in:) \(name): "
                  + String(format: "%.1f ns/word, %.1f ns/title", elapsed / Double(words),
                           elapsed / titles))
        }
    }
}
