import Catalog
import Load

/// How people type into a search field, for in-process benchmarks: every prefix of titles, with
/// uncorrected typos. (The load tester's ``Load/TypingModel`` adds timing, corrected typos and
/// backspaces; both sample entries with ``Load/WeightedSampler``.)
///
/// Entries are sampled in proportion to `weight + 1` (popular things are searched more). For each,
/// every prefix of its title is one query, character by character, as a person types it; a fraction
/// of sessions carry one typo (a substitution, deletion or transposition inside a word of four or
/// more letters) from the point of the typo on. Deterministic for a seed.
///
/// ```swift
/// let workload = KeystrokeWorkload(entries: catalog, sessions: 1000, seed: 7)
/// for query in workload.queries { _ = try shard.suggest(SuggestRequest(text: query.text)) }
/// ```
public struct KeystrokeWorkload: Sendable {
    public struct Query: Sendable, Hashable {
        public var text: String
        /// Words in the text (complete and partial).
        public var words: Int
        /// Whether a typo was injected before this keystroke.
        public var hasTypo: Bool
        /// The session (one typed title) the keystroke belongs to.
        public var session: Int
    }

    public private(set) var queries: [Query] = []

    public init(entries: [CatalogEntry], sessions: Int, typoRate: Double = 0.2, maximumLength: Int = 40, seed: UInt64) {
        guard !entries.isEmpty else { return }
        var random = SplitMix64(seed: seed)
        let sampler = WeightedSampler(weights: entries.lazy.map { Double($0.weight) + 1 })
        for session in 0..<sessions {
            let picked = sampler.sample(&random)
            var characters = Array(entries[picked].title.prefix(maximumLength))
            var typoAt = Int.max
            if random.uniform() < typoRate, let position = Self.typoPosition(in: characters, random: &random) {
                typoAt = position
                switch random.next() % 3 {
                case 0: characters[position] = Character(Unicode.Scalar(UInt8(97 + random.next() % 26)))
                case 1: characters.remove(at: position)
                default:
                    if position + 1 < characters.count { characters.swapAt(position, position + 1) }
                }
            }
            for length in 1...max(1, characters.count) where length <= characters.count {
                let text = String(characters[0..<length])
                let words = text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).count
                queries.append(Query(text: text, words: words, hasTypo: length > typoAt, session: session))
            }
        }
    }

    /// A position inside a word of at least four letters, at least two letters into it.
    static func typoPosition(in characters: [Character], random: inout SplitMix64) -> Int? {
        var candidates: [Int] = []
        var runStart = 0
        for i in 0...characters.count {
            if i == characters.count || !characters[i].isLetter {
                if i - runStart >= 4 { candidates.append(contentsOf: (runStart + 2)..<i) }
                runStart = i + 1
            }
        }
        guard !candidates.isEmpty else { return nil }
        return candidates[Int(random.next() % UInt64(candidates.count))]
    }
}

