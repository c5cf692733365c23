import Analysis

/// What the builder keeps of one analysed entry: its encoded record and the words and tokens it
/// is indexed under, nothing else.
///
/// Holding the whole ``AnalysedEntry`` (the catalog entry and nine arrays) cost ~18 retains and
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
    /// ``AnalysedEntry/sortTitle``.
    let sortTitle: String
    /// The first analysed title word ("" if none), for the trie's startsWith lists.
    let firstWord: String
    /// ``AnalysedEntry/tokens(filterable:)``.
    let tokens: [SearchToken]
    /// Name terms, then description words, then variant words, each followed by a space.
    private let words: [UInt8]
    /// Where the description words start in `words`, and where the variant words start.
    private let descriptionStart: Int32
    private let variantStart: Int32

    init(_ doc: AnalysedEntry, record: [UInt8], filterable: [String]) {
        self.record = record
        sortTitle = doc.sortTitle
        firstWord = doc.titleWords.first ?? ""
        tokens = doc.tokens(filterable: filterable)
        let variants = Self.variants(among: doc.aliasWords, of: doc.titleWords)
        var words: [UInt8] = []
        words.reserveCapacity((doc.nameTerms + doc.descriptionWords + variants).reduce(0) { $0 + $1.utf8.count + 1 })
        for word in doc.nameTerms { words += word.utf8; words.append(0x20) }
        descriptionStart = Int32(words.count)
        for word in doc.descriptionWords { words += word.utf8; words.append(0x20) }
        variantStart = Int32(words.count)
        for word in variants { words += word.utf8; words.append(0x20) }
        self.words = words
    }

    /// Calls `body` with each name term (``AnalysedEntry/nameTerms``), in order.
    func forEachNameTerm(_ body: (UnsafeRawBufferPointer) -> Void) {
        forEachWord(in: 0..<Int(descriptionStart), body)
    }

    /// Calls `body` with each description word (``AnalysedEntry/descriptionWords``), in order.
    func forEachDescriptionWord(_ body: (UnsafeRawBufferPointer) -> Void) {
        forEachWord(in: Int(descriptionStart)..<Int(variantStart), body)
    }

    /// Calls `body` with each alias word that spells a title word another way: name terms of the
    /// document that it does not offer as completions (``CompletionSource``). Usually none.
    func forEachVariantWord(_ body: (UnsafeRawBufferPointer) -> Void) {
        forEachWord(in: Int(variantStart)..<words.count, body)
    }

    private func forEachWord(in range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> Void) {
        guard !range.isEmpty else { return }
        words.withUnsafeBytes { all in
            var start = range.lowerBound
            for index in range where all[index] == 0x20 {
                body(UnsafeRawBufferPointer(rebasing: all[start..<index]))
                start = index + 1
            }
        }
    }

    /// The words of `aliasWords` that spell a word of `titleWords` another way.
    static func variants(among aliasWords: [String], of titleWords: [String]) -> [String] {
        aliasWords.filter { word in titleWords.contains { EditDistance.isSpellingVariant(word, of: $0) } }
    }
}
