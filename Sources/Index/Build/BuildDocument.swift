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
        func size(_ list: [String]) -> Int { list.reduce(0) { $0 + $1.utf8.count + 1 } }
        var words: [UInt8] = []
        words.reserveCapacity(size(doc.nameTerms) + size(doc.descriptionWords) + size(variants))
        Self.append(doc.nameTerms, to: &words)
        descriptionStart = Int32(words.count)
        Self.append(doc.descriptionWords, to: &words)
        variantStart = Int32(words.count)
        Self.append(variants, to: &words)
        self.words = words
    }

    /// Appends each word of `list` and a space after it.
    private static func append(_ list: [String], to words: inout [UInt8]) {
        for word in list {
            words.appendUTF8(word)
            words.append(0x20)
        }
    }

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
        switch list {
        case .names: forEachWord(in: 0..<Int(descriptionStart), body)
        case .description: forEachWord(in: Int(descriptionStart)..<Int(variantStart), body)
        case .variants: forEachWord(in: Int(variantStart)..<words.count, body)
        }
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
