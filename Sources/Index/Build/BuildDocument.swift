import Analysis

/// What the builder keeps of one analysed entry: its encoded record and the words and tokens it
/// is indexed under, nothing else.
///
/// Holding the whole ``AnalysedEntry`` (the catalog entry and its arrays) cost ~18 retains and
/// releases each time the builder read an entry, and copying it out of the array was ~7% of a
/// cities build (235k entries); the tokens are found here too, on the analysing cores.
///
/// The words are one byte buffer, each word followed by a space (no analysed word has one), not
/// arrays of `String`: a `String` of more than 15 bytes is an allocation of its own, and a build
/// holds every entry's words at once. Kept as arrays, the words were most of the ~1.2 KB an entry
/// of the synthetic 1M catalog took between analysis and the end of the build (2.65 GB peak).
struct BuildDocument: Sendable {
    /// The ``DocumentRecord`` value.
    let record: [UInt8]
    /// ``AnalysedEntry/tokens(filterable:)``.
    let tokens: [SearchToken]
    /// ``AnalysedEntry/words`` (the title's words, the name terms, the description's words), then
    /// the variant words, each followed by a space: the analysis's own buffer, shared, not copied
    /// (copied once when an entry has variant words to add).
    private let words: [UInt8]
    /// Where the name terms, the description words and the variant words start in `words`.
    private let namesStart: Int32
    private let descriptionStart: Int32
    private let variantStart: Int32

    init(_ doc: AnalysedEntry, record: [UInt8], filterable: [String]) {
        self.record = record
        tokens = doc.tokens(filterable: filterable)
        var words = doc.words
        namesStart = Int32(doc.nameTermsStart)
        descriptionStart = Int32(doc.descriptionWordsStart)
        variantStart = Int32(words.count)
        for word in Self.variants(among: doc.aliasWords, of: doc.titleWords) {
            words.append(contentsOf: word)
            words.append(0x20)
        }
        self.words = words
    }

    /// ``AnalysedEntry/sortTitle``.
    var sortTitle: ArraySlice<UInt8> { words[0..<max(0, Int(namesStart) - 1)] }

    /// The first analysed title word (empty if none), for the trie's startsWith lists.
    var firstWord: ArraySlice<UInt8> { words[0..<(words[0..<Int(namesStart)].firstIndex(of: 0x20) ?? 0)] }

    /// The document's lists of words.
    enum WordList {
        /// Its name terms (``AnalysedEntry/nameTerms``), in order.
        case names
        /// Its description words (``AnalysedEntry/descriptionWords``), in order.
        case description
        /// Its alias words that spell a title word another way: name terms of the document that
        /// it does not offer as completions (``CompletionSource``). Usually none.
        case variants
    }

    /// Calls `body` with each word of `list`, in order.
    func forEachWord(of list: WordList, _ body: (UnsafeRawBufferPointer) -> Void) {
        let range = switch list {
        case .names: Int(namesStart)..<Int(descriptionStart)
        case .description: Int(descriptionStart)..<Int(variantStart)
        case .variants: Int(variantStart)..<words.count
        }
        WordRun(words: words, range: range).forEachWord(body)
    }

    /// The words of `aliasWords` that spell a word of `titleWords` another way.
    static func variants(among aliasWords: WordRun, of titleWords: WordRun) -> [ArraySlice<UInt8>] {
        // Most entries have no alias: then no title word is made a String.
        guard !aliasWords.isEmpty else { return [] }
        let titles = titleWords.map { String(decoding: $0, as: UTF8.self) }
        return aliasWords.filter { word in
            let alias = String(decoding: word, as: UTF8.self)
            return titles.contains { EditDistance.isSpellingVariant(alias, of: $0) }
        }
    }
}
