/// One analysed word and the part of the original text it came from.
///
/// ```swift
/// let word = Analyzer().words(in: "👍 Zürich")[0]
/// // word.term == "zurich", word.utf16Range == 3..<9 (the emoji is a surrogate pair)
/// ```
public struct Word: Sendable, Hashable {
    /// The analysed form: NFC, case-folded, without nonspacing marks, at most
    /// ``Analyzer/maximumWordLength`` scalars. Never empty.
    public var term: String
    /// UTF-16 offsets in the *original* string, from the start of the first original scalar
    /// that contributed to this word to the end of the last one. Apostrophes joined inside the
    /// word and marks or default-ignorables that follow one of its characters are included;
    /// for a truncated word the range still covers the whole original word.
    public var utf16Range: Range<Int>

    /// Creates a word; ``Analyzer/words(in:)`` is the usual source. O(1).
    public init(term: String, utf16Range: Range<Int>) {
        self.term = term
        self.utf16Range = utf16Range
    }
}

/// A search field's text, split into the words already typed and the word being typed.
///
/// ```swift
/// let query = Analyzer().parseQuery("red iph")
/// // query.completeWords == ["red"], query.partialWord == "iph", query.textBeforePartial == "red "
/// ```
public struct ParsedQuery: Sendable, Hashable {
    /// Analysed complete words, in order.
    public var completeWords: [String]
    /// The analysed word being typed, if the text ends in a word character (a trailing
    /// apostrophe is not one; a trailing mark or default-ignorable after a word character is
    /// transparent). For ideographs and kana the last character is the partial word:
    /// "東京" → complete ["東"], partial "京".
    public var partialWord: String?
    /// The original text up to (not including) the partial word's first original scalar; the
    /// whole text when there is no partial word. A completion is
    /// `textBeforePartial + completedWord`.
    public var textBeforePartial: String

    /// Creates a parsed query; ``Analyzer/parseQuery(_:)`` is the usual source. O(1).
    public init(completeWords: [String], partialWord: String?, textBeforePartial: String) {
        self.completeWords = completeWords
        self.partialWord = partialWord
        self.textBeforePartial = textBeforePartial
    }
}
