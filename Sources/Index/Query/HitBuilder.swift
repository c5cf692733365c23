import Analysis
import Storage

/// Turns ranked documents into response hits (views in the map, with their highlights) and
/// finds how completed words are written.
enum HitBuilder {
    /// - Parameters:
    ///   - words: the query words; `inout` only because matching reuses their automata.
    ///   - form: a ``ResponseForm/shardPart`` hit carries no `completion` and no `highlights`.
    static func hit(_ doc: DocumentView, key: CandidateKey, words: inout [QueryWord], form: ResponseForm) throws -> HitView {
        let presented = form == .presented
        return HitView(doc: doc, key: key, highlights: presented ? try highlights(of: doc, for: &words) : [], completesToTitle: presented)
    }

    /// ``Presenter``'s highlights, from the word ranges stored with the document, so the title is
    /// not analysed again.
    static func highlights(of doc: DocumentView, for queryWords: inout [QueryWord]) throws -> [Highlight] {
        guard !queryWords.isEmpty else { return [] }
        var result: [Highlight] = []
        var titleWords = WordList(bytes: doc.sortTitle).makeIterator()
        try doc.forEachTitleWordRange { range in
            guard let term = titleWords.next() else { return false }
            if Presenter.matchesAny(term, &queryWords) { result.append(Highlight(start: range.lowerBound, end: range.upperBound)) }
            return true
        }
        return result
    }

    /// How `term` is written in an entry: the first title word, then alias word, that analyses to
    /// it — found through the title word ranges and alias sources stored with the document, so at
    /// most one alias is analysed again.
    static func spelling(of term: [UInt8], in doc: DocumentView, analyzer: Analyzer) throws -> String? {
        for (index, word) in WordList(bytes: doc.sortTitle).enumerated() where word.elementsEqual(term) {
            guard let range = try doc.titleWordRange(at: index) else { break }
            return substring(utf8: doc.title, range)
        }
        for (index, word) in WordList(bytes: doc.aliasWords).enumerated() where word.elementsEqual(term) {
            // Only the one alias it came from is analysed again.
            guard let source = try doc.aliasSource(index), let alias = try doc.alias(source) else { return nil }
            for written in analyzer.words(in: alias) where written.term.utf8.elementsEqual(term) {
                return substring(alias, written.utf16Range)
            }
            return nil
        }
        return nil
    }

    /// The UTF-16 range `range` of UTF-8 `text` (valid, as stored) as a string, found by counting
    /// code units over the bytes: no `String` of the whole text is made.
    static func substring(utf8 text: Bytes, _ range: Range<Int>) -> String? {
        guard range.lowerBound >= 0 else { return nil }
        var units = 0
        var start: Int?
        var index = 0
        while index < text.count {
            if units == range.lowerBound, start == nil { start = index }
            if units == range.upperBound { break }
            let length = UTF8Scalars.sequenceLength(text[index])
            units += length == 4 ? 2 : 1
            index += length
        }
        if units == range.lowerBound, start == nil { start = index }
        guard let start, units == range.upperBound, index <= text.count else { return nil }
        return text[range: start..<index].string
    }

    private static func substring(_ text: String, _ range: Range<Int>) -> String? {
        let utf16 = text.utf16
        guard range.lowerBound >= 0, range.upperBound <= utf16.count else { return nil }
        let start = utf16.index(utf16.startIndex, offsetBy: range.lowerBound)
        let end = utf16.index(utf16.startIndex, offsetBy: range.upperBound)
        return String(text[start..<end])
    }
}
