import Storage

/// One query's words as distances by forward-index ordinal (``ForwardIndex``): the general plan
/// reads a base candidate's distance to each typo'd word from its forward list, instead of running
/// the word's automaton over every word of its title and aliases.
///
/// Why: "Baia Mare" on the cities catalog verifies about a thousand candidates; their titles and
/// multilingual aliases hold dozens of words each, and the automata over them were most of the
/// keystroke. A forward list is a few dozen varints, each looked up here by binary search.
///
/// Layout, chosen so that a look-up touches plain arrays only: the complete words' matches
/// (``WordOrdinals``) merged into one sorted array of `ordinal << 16 | word << 8 | distance`;
/// the partial word's matches as sorted, disjoint ordinal ranges (its walk's regions: a subtree's
/// words are one range) with their distances.
///
/// Exact: the matches are those of the same automata over the term trie, and a base document's
/// ordinals are exactly its distinct title and alias words (the forward index's invariant).
struct OrdinalDistances {
    /// Complete words' matches: `ordinal << 16 | word index << 8 | distance`, ascending.
    private var entries: [UInt64] = []
    /// For each complete word: whether its distances are read here (else its automaton decides).
    let readsWord: [Bool]
    /// Some complete word's distances are read here.
    let readsSomeWord: Bool
    /// The partial word's ranges, ascending and disjoint, or none when it is not read here.
    private var lowers: [UInt32] = []
    private var uppers: [UInt32] = []
    private var rangeDistances: [UInt8] = []
    let readsPartial: Bool

    /// `words`: each complete word's ordinals (nil: not read here). `partial`: the partial word's
    /// ranges with their distances, ascending and disjoint (nil: not read here).
    init(words: [WordOrdinals?], partial: [(range: Range<UInt32>, distance: Int)]?) {
        readsWord = words.map { $0 != nil }
        readsSomeWord = readsWord.contains(true)
        for (index, ordinals) in words.enumerated() {
            guard let ordinals else { continue }
            for (ordinal, distance) in zip(ordinals.ordinals, ordinals.distances) {
                entries.append(UInt64(ordinal) << 16 | UInt64(index) << 8 | UInt64(distance))
            }
        }
        entries.sort()
        readsPartial = partial != nil
        for (range, distance) in partial ?? [] where !range.isEmpty {
            lowers.append(range.lowerBound)
            uppers.append(range.upperBound)
            rangeDistances.append(UInt8(truncatingIfNeeded: distance))
        }
    }

    /// Whether `ordinal` is in one of the partial word's ranges: a word the partial word matches.
    /// O(log ranges).
    func partialMatches(_ ordinal: UInt32) -> Bool {
        var low = 0, high = lowers.count
        while low < high {
            let mid = (low + high) / 2
            if lowers[mid] <= ordinal { low = mid + 1 } else { high = mid }
        }
        return low > 0 && ordinal < uppers[low - 1]
    }

    /// No distance known: the word matches none of the candidate's words.
    static let none: Int8 = -1

    /// Base document `docnum`'s distances, from its forward list: each complete word read here
    /// into `complete[index]` and the partial word into `partial` (``none`` when no word matches;
    /// others untouched). False when the document has no forward list (nothing is then known).
    func read(_ docnum: UInt32, _ reader: inout ForwardIndex.Reader, _ txn: borrowing ReadTransaction,
              complete: inout [Int8], partial: inout Int8) throws -> Bool {
        for index in readsWord.indices where readsWord[index] { complete[index] = Self.none }
        if readsPartial { partial = Self.none }
        // The caller's buffer, taken while it is written (a copy would allocate per candidate).
        var best: [Int8] = []
        swap(&best, &complete)
        defer { swap(&best, &complete) }
        var partialBest = partial
        let listed = try entries.withUnsafeBufferPointer { entries in
            try lowers.withUnsafeBufferPointer { lowers in
                try reader.forEachOrdinal(docnum, txn) { ordinal in
                    if !entries.isEmpty {
                        // The first entry of this ordinal, then each word's entry.
                        let key = UInt64(ordinal) << 16
                        var low = 0, high = entries.count
                        while low < high {
                            let mid = (low + high) / 2
                            if entries[mid] < key { low = mid + 1 } else { high = mid }
                        }
                        while low < entries.count, entries[low] >> 16 == UInt64(ordinal) {
                            let word = Int(entries[low] >> 8 & 0xFF), distance = Int8(entries[low] & 0xFF)
                            if best[word] < 0 || best[word] > distance { best[word] = distance }
                            low += 1
                        }
                    }
                    if !lowers.isEmpty {
                        // The last range starting at or before the ordinal.
                        var low = 0, high = lowers.count
                        while low < high {
                            let mid = (low + high) / 2
                            if lowers[mid] <= ordinal { low = mid + 1 } else { high = mid }
                        }
                        if low > 0, ordinal < uppers[low - 1] {
                            let distance = Int8(rangeDistances[low - 1])
                            if partialBest < 0 || partialBest > distance { partialBest = distance }
                        }
                    }
                }
            }
        }
        partial = partialBest
        return listed
    }
}
