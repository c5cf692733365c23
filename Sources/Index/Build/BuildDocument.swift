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

    init(_ doc: AnalysedEntry, record: [UInt8], filterable: [String]) {
        self.record = record
        sortTitle = doc.sortTitle
        firstWord = doc.titleWords.first ?? ""
        nameTerms = doc.nameTerms
        descriptionWords = doc.descriptionWords
        tokens = doc.tokens(filterable: filterable)
    }
}
