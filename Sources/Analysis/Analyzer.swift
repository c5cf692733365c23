/// Text analysis: the one definition of "the words of a text" for indexing and querying.
///
/// Implements rules 1–6 listed in the module documentation (`Analysis.swift`): per-scalar
/// NFKC case folding without nonspacing marks, word characters are letters, numbers and spacing
/// marks, apostrophes inside words join, each ideograph and kana is a word of its own, words are
/// truncated to ``maximumWordLength`` scalars and come out in NFC.
///
/// `Analyzer` has no state; creating one is free and it can be shared between threads.
///
/// ```swift
/// let analyzer = Analyzer()
/// analyzer.terms(in: "iPhone-15 Pro")   // ["iphone", "15", "pro"]
/// analyzer.terms(in: "Ｃafé O'Brien")    // ["cafe", "obrien"]
/// analyzer.terms(in: "東京タワー")          // ["東", "京", "タ", "ワ", "ー"]
/// ```
public struct Analyzer: Sendable {
    /// Words longer than this many Unicode scalars are truncated (rule 5): it bounds the depth
    /// of the trie and the size of its keys.
    public static let maximumWordLength: Int = 32

    /// Creates an analyzer. It holds no state (the rules are fixed), so this is free. O(1).
    public init() {}

    /// The analysed words of `text`, in order, with where each came from.
    ///
    /// Complexity: O(n) in the length of `text`; allocates only the result array and terms
    /// longer than 15 UTF-8 bytes.
    ///
    /// ```swift
    /// Analyzer().words(in: "👍 Zürich")  // [Word(term: "zurich", utf16Range: 3..<9)]
    /// ```
    public func words(in text: String) -> [Word] {
        var words: [Word] = []
        words.reserveCapacity(Self.expectedWordCount(text))
        _ = WordSplitter.split(text) { term, range in
            words.append(Word(term: term, utf16Range: range))
        }
        return words
    }

    /// Just the terms: the same as `words(in: text).map(\.term)`, without building the ranges.
    ///
    /// Complexity: O(n) in the length of `text`.
    ///
    /// ```swift
    /// Analyzer().terms(in: "Straße 2²")  // ["strasse", "22"]
    /// ```
    public func terms(in text: String) -> [String] {
        var terms: [String] = []
        terms.reserveCapacity(Self.expectedWordCount(text))
        _ = WordSplitter.split(text) { term, _ in terms.append(term) }
        return terms
    }

    /// Appends each term of `text` to `bytes` as its UTF-8 followed by a space (no term has one),
    /// as long as `keep` says so: `keep` is asked about each term once it is appended, with
    /// `bytes` so far, the term's place in it (without the space) and its UTF-16 range in
    /// `text`; a term it turns down is removed again. The same terms as ``words(in:)``, without a
    /// `String` per term.
    ///
    /// Complexity: O(n) in the length of `text`; allocates only as `bytes` grows.
    ///
    /// ```swift
    /// var bytes: [UInt8] = []
    /// Analyzer().appendTerms(of: "Café de Flore", to: &bytes) { _, _, _ in true }
    /// // bytes: "cafe de flore " in UTF-8
    /// ```
    public func appendTerms(of text: String, to bytes: inout [UInt8],
                            keep: (_ bytes: UnsafeRawBufferPointer, _ term: Range<Int>, _ utf16Range: Range<Int>) -> Bool) {
        _ = WordSplitter.appendTerms(text, to: &bytes, keep: keep)
    }

    /// A capacity guess that makes the result array allocate once for typical titles instead
    /// of growing 1 → 2 → 4 → 8; capped so that a long text does not reserve a huge array.
    @inline(__always)
    private static func expectedWordCount(_ text: String) -> Int {
        min(text.utf8.count / 4 + 1, 16)
    }

    /// Parses a search-field text into complete words and the partial word being typed.
    ///
    /// The text has a partial word when it ends in a word character (marks or
    /// default-ignorables after it do not change that; a trailing apostrophe or separator
    /// does). The partial word is then the last word, which for ideographs and kana is the last
    /// character. Complexity: O(n) in the length of `text`.
    ///
    /// ```swift
    /// Analyzer().parseQuery("red iph")
    /// // ParsedQuery(completeWords: ["red"], partialWord: "iph", textBeforePartial: "red ")
    /// Analyzer().parseQuery("don'")
    /// // ParsedQuery(completeWords: ["don"], partialWord: nil, textBeforePartial: "don'")
    /// ```
    public func parseQuery(_ text: String) -> ParsedQuery {
        var words: [Word] = []
        let endsInWord = WordSplitter.split(text) { term, range in
            words.append(Word(term: term, utf16Range: range))
        }
        guard endsInWord, let partial = words.popLast() else {
            return ParsedQuery(completeWords: words.map(\.term), partialWord: nil,
                               textBeforePartial: text)
        }
        // Word ranges start on scalar boundaries, so this index is valid.
        let cut = String.Index(utf16Offset: partial.utf16Range.lowerBound, in: text)
        return ParsedQuery(completeWords: words.map(\.term), partialWord: partial.term,
                           textBeforePartial: String(text[..<cut]))
    }

    /// True if the scalar is a word character under the rules: the last scalar of its rule 2
    /// mapping that is not a dropped mark is a letter, number or spacing mark (rule 2), and it
    /// is not an apostrophe (rule 3).
    ///
    /// Scalars that map to nothing (nonspacing marks, default-ignorables) return false, even
    /// though after a word character they do not end the word; ``parseQuery(_:)`` accounts for
    /// that. Complexity: O(1).
    ///
    /// ```swift
    /// let analyzer = Analyzer()
    /// analyzer.isWordCharacter("É")       // true  (maps to "e")
    /// analyzer.isWordCharacter("'")       // false
    /// analyzer.isWordCharacter("\u{301}") // false (a nonspacing mark)
    /// ```
    public func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            return ScalarMapping.asciiRole(UInt8(scalar.value)).role == .word
        }
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: ScalarMapping.capacity) {
            buffer in
            let count = ScalarMapping.map(scalar.value, into: buffer.baseAddress!,
                                          capacity: ScalarMapping.capacity)
            let mapped: [Int32] = count <= ScalarMapping.capacity
                ? Array(buffer.prefix(count))
                : [Int32](unsafeUninitializedCapacity: count) { all, initialized in
                    initialized = ScalarMapping.map(scalar.value, into: all.baseAddress!,
                                                    capacity: count)
                }
            for value in mapped.reversed() {
                let role: ScalarRole = value < 0x80
                    ? ScalarMapping.asciiRole(UInt8(value)).role
                    : ScalarMapping.classify(value).role
                switch role {
                case .transparent: continue
                case .word, .ownWord: return true
                case .apostrophe, .separator: return false
                }
            }
            return false
        }
    }
}
