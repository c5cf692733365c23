import Analysis

/// What the builder keeps of one analysed entry: its encoded record and the words and tokens it
/// is indexed under, nothing else.
///
/// Holding the whole ``AnalysedEntry`` (the catalog entry and nine arrays) cost ~18 retains and
/// releases each time the builder read an entry, and copying it out of the array was ~7% of a
/// cities build (235k entries); the tokens are found here too, on the analysing cores.
struct BuildDocument: Sendable {
    /// The ``DocumentRecord`` value.
    let record: [UInt8]
    /// ``AnalysedEntry/sortTitle``.
    let sortTitle: String
    /// The first analysed title word ("" if none), for the trie's startsWith lists.
    let firstWord: String
    /// ``AnalysedEntry/nameTerms``.
    let nameTerms: [String]
    /// ``AnalysedEntry/descriptionWords``.
    let descriptionWords: [String]
    /// ``AnalysedEntry/tokens(filterable:)``.
    let tokens: [SearchToken]
    /// Alias words that spell a title word another way: name terms of the document that it does
    /// not offer as completions (``CompletionSource``). Usually empty.
    let variantWords: [String]

    init(_ doc: AnalysedEntry, record: [UInt8], filterable: [String]) {
        self.record = record
        sortTitle = doc.sortTitle
        firstWord = doc.titleWords.first ?? ""
        nameTerms = doc.nameTerms
        descriptionWords = doc.descriptionWords
        tokens = doc.tokens(filterable: filterable)
        variantWords = Self.variants(among: doc.aliasWords, of: doc.titleWords)
    }

    /// The words of `aliasWords` that spell a word of `titleWords` another way. Most pairs differ
    /// in their first two scalars, which is checked before any edit distance.
    static func variants(among aliasWords: [String], of titleWords: [String]) -> [String] {
        let minimum = EditDistance.variantMinimumLength
        let titles = titleWords.filter { $0.unicodeScalars.count >= minimum }
        guard !titles.isEmpty else { return [] }
        let heads = titles.map { Array($0.unicodeScalars.prefix(2)) }
        return aliasWords.filter { word in
            let head = word.unicodeScalars.prefix(2)
            return titles.indices.contains { heads[$0].elementsEqual(head) && EditDistance.isSpellingVariant(word, of: titles[$0]) }
        }
    }
}
