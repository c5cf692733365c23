import Analysis

/// Turns ranked documents into response hits: strings, attributes and highlights.
enum HitBuilder {
    static func hit(_ doc: DocumentView, key: CandidateKey, words: [QueryWord], analyzer: Analyzer) throws -> EntryHit {
        let title = doc.title.string
        return EntryHit(id: doc.id.string, title: title, categories: try doc.categories, weight: doc.weight,
                        attributes: try doc.attributes(), completion: title,
                        highlights: highlights(in: title, for: words, analyzer: analyzer), rank: key.rankKey())
    }

    /// One range per title word that some query word matches within its budget.
    static func highlights(in title: String, for words: [QueryWord], analyzer: Analyzer) -> [Highlight] {
        guard !words.isEmpty else { return [] }
        var queryWords = words
        var result: [Highlight] = []
        for word in analyzer.words(in: title) {
            let bytes = Array(word.term.utf8)
            for i in queryWords.indices where queryWords[i].distance(to: bytes) != nil {
                result.append(Highlight(start: word.utf16Range.lowerBound, end: word.utf16Range.upperBound))
                break
            }
        }
        return result
    }

    /// How `term` is written in an entry: the first title word, then alias word, that analyses to
    /// it. Aliases are analysed only if the title does not have it.
    static func spelling(of term: String, in doc: DocumentView, analyzer: Analyzer) throws -> String? {
        if let found = spelling(of: term, in: doc.title.string, analyzer: analyzer) { return found }
        var found: String?
        try doc.forEachAlias { alias in
            found = spelling(of: term, in: alias.string, analyzer: analyzer)
            return found == nil
        }
        return found
    }

    private static func spelling(of term: String, in text: String, analyzer: Analyzer) -> String? {
        for word in analyzer.words(in: text) where word.term.utf8.elementsEqual(term.utf8) {
            let utf16 = text.utf16
            let start = utf16.index(utf16.startIndex, offsetBy: word.utf16Range.lowerBound)
            let end = utf16.index(utf16.startIndex, offsetBy: word.utf16Range.upperBound)
            return String(text[start..<end])
        }
        return nil
    }
}
