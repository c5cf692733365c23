/// The base name words a complete query word matches with typos, as forward-index ordinals
/// (``ForwardIndex``) with their distances, ascending: a candidate's distance to the word is read
/// from its forward list (the smallest distance among its ordinals found here, through
/// ``OrdinalDistances``) instead of running the word's automaton over every word of its title and
/// aliases.
///
/// Why: "Baia Mare" on the cities catalog verifies about a thousand candidates with "baia" within
/// one edit; their titles and multilingual aliases hold dozens of words each, and the automaton
/// over them was most of the keystroke. A candidate's forward list is a few dozen varints, each
/// looked up here by binary search (the list holds the word's matches: tens to a few hundred).
///
/// Exact: the matches are those of the same automaton over the term trie
/// (``Generation/terms(matching:in:)``), and a base document's ordinals are exactly its distinct
/// title and alias words. Built once per generation and word (kept with the term walks, whose
/// cache bounds it by bytes), since the base never changes.
struct WordOrdinals: Sendable {
    private(set) var ordinals: [UInt32] = []
    private(set) var distances: [UInt8] = []

    /// Matches past this many are not mapped (each is a look-up of its ordinal): nil instead.
    static let maximumTerms = 1024

    mutating func append(_ ordinal: UInt32, distance: Int) {
        precondition(ordinals.last.map { $0 < ordinal } ?? true, "ordinals ascend with the terms' byte order")
        ordinals.append(ordinal)
        distances.append(UInt8(truncatingIfNeeded: distance))
    }

    /// The memory it holds, for the cache's budget.
    var memoryBytes: Int { 64 + 5 * ordinals.count }
}

/// A word's ``WordOrdinals`` as kept per generation: nil when it had too many matches to map
/// (remembered too, so the matches are not counted again).
struct OrdinalMatches: Sendable {
    var ordinals: WordOrdinals?
}
