import Storage

/// The words of a snapshot's chips in memory: every (word, value) pair of `category_words` and,
/// when the generation has them, `attribute_words`, in key order, for the typo-tolerant match of
/// a partial word against them (``Generation/categories(matching:in:)``).
///
/// Why: that match walked the databases with a cursor and an automaton, a cursor step and a row
/// per key, on the first keystroke of every word (a word's matches are kept per snapshot after):
/// on cities (354 words of 246 countries) 13% of a replayed typing session. Held in memory, a word
/// is rejected by the first-two-scalars test or measured by the query word's automaton (its
/// distances remembered), with no cursor.
///
/// Small sets only (``inlineBuildLimit`` pairs, built by the query that first needs them, per
/// snapshot: upserts add categories): a big one is walked as before, whose cost grows with the
/// words within reach rather than with all of them.
struct ChipWordList: Sendable {
    /// A pair: the word and its value (a category name, or an attribute's key), as ranges of ``bytes``.
    private struct Pair {
        var word: Range<Int>
        var value: Range<Int>
    }

    private var bytes: [UInt8] = []
    private var categories: [Pair] = []
    private var attributes: [Pair] = []

    /// Pairs up to which a query builds the list for its snapshot.
    static let inlineBuildLimit = 4096

    init(categoryWords: Database, attributeWords: Database?, in txn: borrowing ReadTransaction) throws {
        categories = try Self.read(categoryWords, into: &bytes, in: txn)
        if let attributeWords { attributes = try Self.read(attributeWords, into: &bytes, in: txn) }
    }

    private static func read(_ database: Database, into bytes: inout [UInt8], in txn: borrowing ReadTransaction) throws -> [Pair] {
        var pairs: [Pair] = []
        try txn.withCursor(database) { cursor in
            var entry = try cursor.first()
            var previous: Range<Int>?
            while let (key, value) = entry {
                // A word's values follow one another (a sorted duplicate list): its bytes once.
                let word: Range<Int>
                if let previous, bytes[previous].elementsEqual(key) {
                    word = previous
                } else {
                    word = bytes.count..<(bytes.count + key.count)
                    bytes.append(contentsOf: key)
                }
                previous = word
                pairs.append(Pair(word: word, value: bytes.count..<(bytes.count + value.count)))
                bytes.append(contentsOf: value)
                entry = try cursor.next()
            }
        }
        return pairs
    }

    /// The memory the list holds.
    var memoryBytes: Int { 64 + bytes.count + 32 * (categories.count + attributes.count) }

    /// Calls `body` with the value of every pair whose word `word` matches (with typos, by its
    /// distance), categories first, each list in key order, as the databases' walk does
    /// (attribute pairs only when the list was built with them).
    func forEachMatch(of word: QueryWord, _ body: (_ value: ArraySlice<UInt8>, _ distance: Int, _ isCategory: Bool) throws -> Void) rethrows {
        var word = word
        func scan(_ pairs: [Pair], isCategory: Bool) throws {
            var last: (word: Range<Int>, distance: Int?)?
            for pair in pairs {
                let distance: Int?
                if let last, last.word == pair.word {
                    distance = last.distance
                } else {
                    distance = word.distance(to: bytes[pair.word])
                    last = (pair.word, distance)
                }
                if let distance { try body(bytes[pair.value], distance, isCategory) }
            }
        }
        try scan(categories, isCategory: true)
        try scan(attributes, isCategory: false)
    }
}
