import Analysis
import Catalog

/// A catalog entry together with its analysed words: the unit the builder and the updater index.
///
/// Word lists are deduplicated across fields in field order (title, aliases, description), so a
/// word is listed once, in the best field it occurs in. That loses nothing: a query word's best
/// (distance, field) pair for an exact duplicate is always the earlier field.
struct AnalysedEntry: Sendable {
    let entry: CatalogEntry
    /// Analysed title words in title order (duplicates kept: they define `sortTitle`).
    let titleWords: [String]
    /// Where each title word stands in the title, in UTF-16 code units (for highlights).
    let titleRanges: [Range<Int>]
    /// `titleWords` joined by single spaces: the suggest tiebreak and the startsWith test.
    let sortTitle: String
    /// Distinct analysed alias words that are not title words.
    let aliasWords: [String]
    /// For each alias word, the index of the alias it was first seen in.
    let aliasSources: [(alias: Int, range: Range<Int>)]
    /// Distinct analysed description words that are not title or alias words.
    let descriptionWords: [String]
    /// Categories without duplicates, in catalog order.
    let categories: [String]
    /// Distinct words that suggest matches against (title and alias words).
    let nameTerms: [String]

    init(_ entry: CatalogEntry, analyzer: Analyzer) {
        self.entry = entry
        let words = analyzer.words(in: entry.title)
        titleWords = words.map(\.term)
        titleRanges = words.map(\.utf16Range)
        sortTitle = Self.joined(titleWords)
        var seen = SeenWords()
        var names: [String] = []
        names.reserveCapacity(titleWords.count + 2 * entry.aliases.count)
        for word in titleWords where seen.insert(word) { names.append(word) }
        var aliases: [String] = []
        var sources: [(alias: Int, range: Range<Int>)] = []
        for (index, alias) in entry.aliases.enumerated() {
            for word in analyzer.words(in: alias) where seen.insert(word.term) {
                aliases.append(word.term)
                sources.append((index, word.utf16Range))
            }
        }
        aliasWords = aliases
        aliasSources = sources
        names.append(contentsOf: aliases)
        nameTerms = names
        var description: [String] = []
        if let text = entry.description {
            for term in analyzer.terms(in: text) where seen.insert(term) {
                description.append(term)
            }
        }
        descriptionWords = description
        // Byte-exact: "Café" and "Cafe\u{301}" are different categories (Swift's String equality
        // would merge them).
        var kept: [String] = []
        for category in entry.categories where !kept.contains(where: { $0.utf8.elementsEqual(category.utf8) }) { kept.append(category) }
        categories = kept
    }

    /// `words` joined by single spaces, written once into a string of the exact size
    /// (`joined(separator:)` grew its result word by word: 1.4% of a synthetic 1M build).
    static func joined(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return String(unsafeUninitializedCapacity: words.reduce(words.count - 1) { $0 + $1.utf8.count }) { out in
            var at = 0
            for (index, word) in words.enumerated() {
                if index > 0 {
                    out[at] = 0x20
                    at += 1
                }
                var word = word
                at += word.withUTF8 { UnsafeMutableBufferPointer(rebasing: out[at...]).initialize(fromContentsOf: $0) }
            }
            return at
        }
    }

    /// The tokens the entry is listed and counted under (see ``EntryTokens``).
    func tokens(filterable: [String]) -> [SearchToken] {
        EntryTokens.of(categories: categories, attributes: entry.attributes.lazy.map { ($0.key, $0.value) }, filterable: filterable)
    }

}

/// The words an entry's analysis has met: compared one by one while few (most entries have a
/// dozen words or fewer, and hashing a String into a new Set cost more than comparing a few: a
/// tenth of a synthetic 1M build), hashed past ``linearLimit``.
private struct SeenWords {
    static let linearLimit = 16
    /// The words met while they are few, each with its ``key(_:)``.
    private var few: [(key: UInt64, word: String)] = []
    private var many: Set<String>?

    /// Whether `word` was not met before (and is now).
    mutating func insert(_ word: String) -> Bool {
        if many != nil { return many!.insert(word).inserted }
        // Keys first, then bytes, not `==`: analysed words are NFC, so equal bytes are equal
        // strings, and the String comparison's slow path (it checks normalisation) was 1% of a
        // build.
        let key = Self.key(word)
        if few.contains(where: { $0.key == key && compareUTF8($0.word, word) == 0 }) { return false }
        // Room for all at once: grown by doubling, `few` was 2% of a synthetic 1M build.
        if few.isEmpty { few.reserveCapacity(Self.linearLimit + 1) }
        few.append((key, word))
        if few.count > Self.linearLimit {
            many = Set(few.map(\.word))
            few = []
        }
        return true
    }

    /// A word's byte count and first seven bytes as one number: most words that differ, differ
    /// there, and comparing two numbers is cheaper than comparing two strings.
    private static func key(_ word: String) -> UInt64 {
        var word = word
        return word.withUTF8 { bytes in
            var key = UInt64(truncatingIfNeeded: bytes.count) << 56
            for index in 0..<min(7, bytes.count) { key |= UInt64(bytes[index]) << (8 * index) }
            return key
        }
    }
}
