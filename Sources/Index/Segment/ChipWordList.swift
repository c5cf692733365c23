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
    /// A pair: the word and its value (a category name, or an attribute's key), as ranges of
    /// ``bytes``, and the scalars the word shares with the one before it in its list (0 for the
    /// first, and for a word repeated: its distance is the one before's).
    private struct Pair {
        var word: Range<Int>
        var value: Range<Int>
        var shared: Int
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

    /// A list of the given (word, value) pairs, each list sorted by word (as the databases keep
    /// them): for tests.
    init(categoryPairs: [(word: [UInt8], value: [UInt8])], attributePairs: [(word: [UInt8], value: [UInt8])] = []) {
        for (word, value) in categoryPairs { Self.append(word, value, to: &categories, &bytes) }
        for (word, value) in attributePairs { Self.append(word, value, to: &attributes, &bytes) }
    }

    private static func read(_ database: Database, into bytes: inout [UInt8], in txn: borrowing ReadTransaction) throws -> [Pair] {
        var pairs: [Pair] = []
        try txn.withCursor(database) { cursor in
            var entry = try cursor.first()
            while let (key, value) = entry {
                append(key, value, to: &pairs, &bytes)
                entry = try cursor.next()
            }
        }
        return pairs
    }

    /// Appends a pair to `pairs` (sorted by word). A word's values follow one another (a sorted
    /// duplicate list): its bytes are kept once.
    private static func append(_ key: some Collection<UInt8>, _ value: some Collection<UInt8>, to pairs: inout [Pair], _ bytes: inout [UInt8]) {
        var shared = 0
        let word: Range<Int>
        if let previous = pairs.last?.word, bytes[previous].elementsEqual(key) {
            word = previous
        } else {
            if let previous = pairs.last?.word { shared = sharedScalars(bytes[previous], key) }
            word = bytes.count..<(bytes.count + key.count)
            bytes.append(contentsOf: key)
        }
        pairs.append(Pair(word: word, value: bytes.count..<(bytes.count + value.count), shared: shared))
        bytes.append(contentsOf: value)
    }

    /// The number of leading scalars two UTF-8 words have in common.
    private static func sharedScalars(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Int {
        var left = a.makeIterator(), right = b.makeIterator()
        var count = 0
        while let x = UTF8Scalars.next(&left), let y = UTF8Scalars.next(&right), x == y { count += 1 }
        return count
    }

    /// The memory the list holds.
    var memoryBytes: Int { 64 + bytes.count + 40 * (categories.count + attributes.count) }

    /// Calls `body` with the value of every pair whose word `word` matches (with typos, by its
    /// distance), categories first, each list in key order, as the databases' walk does
    /// (attribute pairs only when the list was built with them).
    ///
    /// The sorted words are walked as a trie is: one automaton, truncated to the scalars a word
    /// shares with the last one it walked, takes only the rest; a word under a prefix that already
    /// proved every extension dead (or settled: all of them at one distance) takes that answer
    /// without a row, and a word the query word's cheap tests rule out (``QueryWord/isTooFar(_:)``)
    /// is not walked. On cities' 354 country words, a typo'd word's chips were a word's automaton
    /// run from the empty word each. The distances are those of ``QueryWord/distance(to:)``.
    ///
    /// In a sorted list, the scalars two words share are the fewest any two neighbours between
    /// them share: the walk keeps that minimum since the word it walked last (`shared`).
    func forEachMatch(of word: QueryWord, _ body: (_ value: ArraySlice<UInt8>, _ distance: Int, _ isCategory: Bool) throws -> Void) rethrows {
        guard word.budget > 0 else {
            var word = word
            for (pairs, isCategory) in [(categories, true), (attributes, false)] {
                for pair in pairs {
                    if let distance = word.distance(to: bytes[pair.word]) { try body(bytes[pair.value], distance, isCategory) }
                }
            }
            return
        }
        var automaton = word.termAutomaton
        func scan(_ pairs: [Pair], isCategory: Bool) throws {
            // Rows are valid up to `valid` scalars of the word walked last; `stop`: its walk
            // stopped at that many scalars, with that answer for every word sharing them.
            var valid = 0
            var stop: (depth: Int, distance: Int?)?
            var shared = 0
            var distance: Int?
            var last: Range<Int>?
            for pair in pairs {
                if pair.word != last {
                    last = pair.word
                    shared = min(shared, pair.shared)
                    if let known = stop, shared >= known.depth {
                        distance = known.distance
                    } else if word.isTooFar(bytes[pair.word]) {
                        distance = nil
                    } else {
                        var depth = min(shared, valid)
                        automaton.truncate(to: depth)
                        stop = nil
                        var scalars = bytes[pair.word].makeIterator()
                        for _ in 0..<depth { _ = UTF8Scalars.next(&scalars) }
                        while let scalar = UTF8Scalars.next(&scalars) {
                            guard automaton.push(scalar) else {
                                stop = (depth + 1, nil)
                                break
                            }
                            depth += 1
                            if automaton.isFinal {
                                stop = (depth, automaton.distance)
                                break
                            }
                        }
                        valid = depth
                        shared = .max
                        // (Not `stop.map(\.distance)`: a key path is looked up at run time, a third of this walk.)
                        if let stop { distance = stop.distance } else { distance = automaton.distance }
                    }
                }
                if let distance { try body(bytes[pair.value], distance, isCategory) }
            }
        }
        try scan(categories, isCategory: true)
        try scan(attributes, isCategory: false)
    }
}
