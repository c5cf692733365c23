import Analysis
import Catalog

/// A catalog entry together with its analysed words: the unit the builder and the updater index.
///
/// Word lists are deduplicated across fields in field order (title, aliases, description), so a
/// word is listed once, in the best field it occurs in. That loses nothing: a query word's best
/// (distance, field) pair for an exact duplicate is always the earlier field.
///
/// The words are one buffer (``words``), not a `String` per word: a build analyses every entry of
/// the catalog, and the strings, their arrays and their retains and releases were most of that
/// work (a synthetic 1M build spent 5.7 of its 14 CPU seconds analysing). Each word is its UTF-8
/// followed by a space (no analysed word has one), in three runs: the title's words in order
/// (duplicates kept, so the run is the ``sortTitle`` and a space), the distinct name terms (the
/// title's words, then the new alias words), and the new description words. A run without its
/// last space is its words joined by single spaces, the form records store.
struct AnalysedEntry: Sendable {
    let entry: CatalogEntry
    /// The three runs of words, each word followed by a space.
    let words: [UInt8]
    /// Where the runs start in ``words``: the name terms (the title's words end there), their
    /// alias words, and the description's words (which run to the end).
    let nameTermsStart: Int
    private let aliasStart: Int
    let descriptionWordsStart: Int
    /// Where each title word stands in the title, in UTF-16 code units (for highlights).
    let titleRanges: [Range<Int>]
    /// For each alias word, the index of the alias it was first seen in and its place there.
    let aliasSources: [(alias: Int, range: Range<Int>)]
    /// Categories without duplicates, in catalog order.
    let categories: [String]

    /// Analysed title words in title order (duplicates kept: they define `sortTitle`).
    var titleWords: WordRun { WordRun(words: words, range: 0..<nameTermsStart) }
    /// The title's words joined by single spaces: the suggest tiebreak and the startsWith test.
    var sortTitle: ArraySlice<UInt8> { titleWords.joined }
    /// Distinct words that suggest matches against (title and alias words).
    var nameTerms: WordRun { WordRun(words: words, range: nameTermsStart..<descriptionWordsStart) }
    /// Distinct analysed alias words that are not title words.
    var aliasWords: WordRun { WordRun(words: words, range: aliasStart..<descriptionWordsStart) }
    /// Distinct analysed description words that are not title or alias words.
    var descriptionWords: WordRun { WordRun(words: words, range: descriptionWordsStart..<words.count) }

    init(_ entry: CatalogEntry, analyzer: Analyzer) {
        self.entry = entry
        var words: [UInt8] = []
        words.reserveCapacity(2 * entry.title.utf8.count + entry.aliases.reduce(0) { $0 + $1.utf8.count }
                              + (entry.description?.utf8.count ?? 0) + 16)
        var ranges: [Range<Int>] = []
        analyzer.appendTerms(of: entry.title, to: &words) { _, _, range in
            ranges.append(range)
            return true
        }
        titleRanges = ranges
        let titleEnd = words.count
        nameTermsStart = titleEnd
        var seen = SeenWords()
        // The distinct title words, copied after the title a byte at a time (the buffer cannot lend
        // a slice of itself to its own append without copying itself whole).
        var start = 0
        for end in 0..<titleEnd where words[end] == 0x20 {
            if words.withUnsafeBytes({ seen.insert($0, start..<end) }) {
                for index in start...end { words.append(words[index]) }
            }
            start = end + 1
        }
        aliasStart = words.count
        var sources: [(alias: Int, range: Range<Int>)] = []
        for (index, alias) in entry.aliases.enumerated() {
            analyzer.appendTerms(of: alias, to: &words) { bytes, term, range in
                guard seen.insert(bytes, term) else { return false }
                sources.append((index, range))
                return true
            }
        }
        aliasSources = sources
        descriptionWordsStart = words.count
        if let text = entry.description {
            analyzer.appendTerms(of: text, to: &words) { bytes, term, _ in seen.insert(bytes, term) }
        }
        self.words = words
        // Byte-exact: "Café" and "Cafe\u{301}" are different categories (Swift's String equality
        // would merge them).
        var kept: [String] = []
        for category in entry.categories where !kept.contains(where: { $0.utf8.elementsEqual(category.utf8) }) { kept.append(category) }
        categories = kept
    }

    /// The tokens the entry is listed and counted under (see ``EntryTokens``).
    func tokens(filterable: [String]) -> [SearchToken] {
        EntryTokens.of(categories: categories, attributes: entry.attributes.lazy.map { ($0.key, $0.value) }, filterable: filterable)
    }

}

/// A run of words in a buffer, each word followed by a space (``AnalysedEntry/words``).
struct WordRun: Sequence {
    let words: [UInt8]
    let range: Range<Int>

    /// The words joined by single spaces: the run without its last space.
    var joined: ArraySlice<UInt8> { words[range.lowerBound..<Swift.max(range.lowerBound, range.upperBound - 1)] }

    var isEmpty: Bool { range.isEmpty }

    struct Iterator: IteratorProtocol {
        let words: [UInt8]
        var position: Int
        let end: Int

        mutating func next() -> ArraySlice<UInt8>? {
            guard position < end else { return nil }
            var stop = position
            while words[stop] != 0x20 { stop += 1 }
            defer { position = stop + 1 }
            return words[position..<stop]
        }
    }

    func makeIterator() -> Iterator { Iterator(words: words, position: range.lowerBound, end: range.upperBound) }

    /// Calls `body` with each word's bytes, in order: the iteration without a slice (and its
    /// retain) per word, for the builder's hot loops.
    func forEachWord(_ body: (UnsafeRawBufferPointer) -> Void) {
        guard !range.isEmpty else { return }
        words.withUnsafeBytes { all in
            var start = range.lowerBound
            for index in range where all[index] == 0x20 {
                body(UnsafeRawBufferPointer(rebasing: all[start..<index]))
                start = index + 1
            }
        }
    }
}

/// The words an entry's analysis has met, as places in its word buffer: compared one by one while
/// few (most entries have a dozen words or fewer, and hashing each word into a set cost more than
/// comparing a few: a tenth of a synthetic 1M build), hashed past ``linearLimit``. Analysed words
/// are NFC, so equal bytes are equal words.
private struct SeenWords {
    static let linearLimit = 16
    /// The words met while they are few: each one's ``key(_:)`` and place in the buffer.
    private var few: [(key: UInt64, start: Int32, end: Int32)] = []
    private var many: Set<[UInt8]>?

    /// Whether the word at `term` of `bytes` was not met before (and is now). The places of the
    /// words met before must still hold them.
    mutating func insert(_ bytes: UnsafeRawBufferPointer, _ term: Range<Int>) -> Bool {
        let word = UnsafeRawBufferPointer(rebasing: bytes[term])
        if many != nil { return many!.insert(Array(word)).inserted }
        let key = Self.key(word)
        if few.contains(where: { $0.key == key && word.elementsEqual(bytes[Int($0.start)..<Int($0.end)]) }) { return false }
        // Room for all at once: grown by doubling, `few` was 2% of a synthetic 1M build.
        if few.isEmpty { few.reserveCapacity(Self.linearLimit + 1) }
        few.append((key, Int32(term.lowerBound), Int32(term.upperBound)))
        if few.count > Self.linearLimit {
            many = Set(few.map { Array(bytes[Int($0.start)..<Int($0.end)]) })
            few = []
        }
        return true
    }

    /// A word's byte count and first seven bytes as one number: most words that differ, differ
    /// there, and comparing two numbers is cheaper than comparing two words.
    private static func key(_ word: UnsafeRawBufferPointer) -> UInt64 {
        var key = UInt64(truncatingIfNeeded: word.count) << 56
        for index in 0..<min(7, word.count) { key |= UInt64(word[index]) << (8 * index) }
        return key
    }
}
