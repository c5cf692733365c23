import Analysis
import Storage

/// Turns ranked documents into response hits (views in the map, with their highlights) and
/// finds how completed words are written.
enum HitBuilder {
    /// - Parameters:
    ///   - words: the query words; `inout` only because matching reuses their automata.
    ///   - form: a ``ResponseForm/shardPart`` hit carries no `completion` and no `highlights`.
    /// Highlights in both forms: a shard's part carries them for its coordinator, which would
    /// otherwise analyse every winning title again (`hits_highlighted` in the Shard API).
    static func hit(_ doc: DocumentView, key: CandidateKey, words: inout [QueryWord], form: ResponseForm) throws -> HitView {
        HitView(doc: doc, key: key, highlighted: try highlighted(in: doc, for: &words), completesToTitle: form == .presented)
    }

    /// ``Presenter``'s highlights, as positions of title words, from the words stored with the
    /// document (the title is not analysed again, and nothing is allocated).
    static func highlighted(in doc: DocumentView, for queryWords: inout [QueryWord]) throws -> WordSet {
        var set = WordSet()
        guard !queryWords.isEmpty else { return set }
        for (index, term) in WordList(bytes: doc.sortTitle).enumerated() where Presenter.matchesAny(term, &queryWords) {
            set.insert(index)
        }
        return set
    }

    /// How `term` is written in an entry: the first title word, then alias word, that analyses to
    /// it — found through the word ranges stored with the document (in a version 1 record, the
    /// one alias it came from is analysed again). Both the spelling and the term are views of the record
    /// (the title or the alias, and the stored word), valid as long as `doc` is.
    static func spelling(of term: UnsafeRawBufferPointer, in doc: DocumentView, analyzer: Analyzer) throws -> (term: Bytes, spelling: Bytes)? {
        for (index, word) in WordList(bytes: doc.sortTitle).enumerated() where word.elementsEqual(term) {
            guard let range = try doc.titleWordRange(at: index) else { break }
            return slice(utf8: doc.title, utf16: range).map { (word, $0) }
        }
        for (index, word) in WordList(bytes: doc.aliasWords).enumerated() where word.elementsEqual(term) {
            guard let source = try doc.aliasSource(index), let alias = try doc.alias(source.alias) else { return nil }
            if let range = source.range { return slice(utf8: alias, utf16: range).map { (word, $0) } }
            for written in analyzer.words(in: alias.string) where written.term.utf8.elementsEqual(term) {
                return slice(utf8: alias, utf16: written.utf16Range).map { (word, $0) }
            }
            return nil
        }
        return nil
    }

    /// The bytes of UTF-16 range `range` of UTF-8 `text` (valid, as stored), found by counting
    /// code units over the bytes; nil if the range does not fall on scalar boundaries inside it.
    static func slice(utf8 text: Bytes, utf16 range: Range<Int>) -> Bytes? {
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
        return text[range: start..<index]
    }
}
