import Catalog
import Index
import Load

/// Whether the ranking finds what people mean: simulated people type an entry of the catalog one
/// character at a time, and the benchmark looks for that entry in the suggestions.
///
/// - A session picks an entry in proportion to `weight + 1` and types its title (up to
///   `maximumLength` characters). One session in ten (`typoRate`) carries one typo, made once and
///   never corrected: a QWERTY-neighbour substitution, a transposition, a deletion or an insertion
///   of a neighbouring key, inside a word of four or more letters and at least two letters in.
/// - The entry counts as found when it, or an entry displayed identically (same title, same
///   categories: the person cannot tell them apart), is among the entries returned.
/// - Reported: the share of sessions whose entry is in the top 10 after the last keystroke, for
///   clean and typo'd sessions apart, and the mean keystrokes until it first shows in the top 5
///   (a session where it never does counts its full length plus one).
/// - Completions: at every keystroke of a clean session that ends inside a word of the title (the
///   word goes on), whether the completions (5, the default) offer that word as the title spells
///   it, i.e. one completion's text is the title up to the end of that word.
///
/// Deterministic for a seed; printed, never asserted.
public struct QualityBenchmark {
    public var sessions: Int
    public var typoRate = 0.1
    public var maximumLength = 40
    public var seed: UInt64 = 11

    public init(sessions: Int) {
        self.sessions = sessions
    }

    public struct Result: Sendable {
        public var cleanSessions = 0
        public var cleanFound = 0
        public var typoSessions = 0
        public var typoFound = 0
        public var keystrokesToTop5 = 0
        public var neverInTop5 = 0
        /// Clean keystrokes inside a title word, and those whose completions offer the word as the
        /// title spells it.
        public var midWordKeystrokes = 0
        public var titleWordOffered = 0
        /// The first sessions whose entry was not in the top 10 at the end: typed text, meant entry.
        public var misses: [(typed: String, intended: CatalogEntry)] = []
        public var sessions: Int { cleanSessions + typoSessions }

        public var cleanRate: Double { Double(cleanFound) / Double(max(1, cleanSessions)) }
        public var typoRate: Double { Double(typoFound) / Double(max(1, typoSessions)) }
        public var meanKeystrokesToTop5: Double { Double(keystrokesToTop5) / Double(max(1, sessions)) }
        public var titleWordOfferedRate: Double { Double(titleWordOffered) / Double(max(1, midWordKeystrokes)) }
    }

    /// One typed session: what the person types, and the entry they mean.
    struct Session {
        var intended: Int
        var typed: [Character]
        var hasTypo: Bool
    }

    func makeSessions(_ entries: [CatalogEntry]) -> [Session] {
        guard !entries.isEmpty else { return [] }
        var random = SplitMix64(seed: seed)
        let sampler = WeightedSampler(weights: entries.lazy.map { Double($0.weight) + 1 })
        var result: [Session] = []
        for _ in 0..<sessions {
            let picked = sampler.sample(&random)
            var typed = Array(entries[picked].title.prefix(maximumLength))
            var hasTypo = false
            if random.uniform() < typoRate, let at = KeystrokeWorkload.typoPosition(in: typed, random: &random) {
                hasTypo = true
                switch random.next() % 4 {
                case 0: typed[at] = TypingModel.wrongKey(for: typed[at], random: &random)
                case 1: if at + 1 < typed.count { typed.swapAt(at, at + 1) } else { typed.swapAt(at - 1, at) }
                case 2: typed.remove(at: at)
                default: typed.insert(TypingModel.wrongKey(for: typed[at], random: &random), at: at)
                }
            }
            result.append(Session(intended: picked, typed: typed, hasTypo: hasTypo))
        }
        return result
    }

    public func run(entries: [CatalogEntry], shard: Shard) throws -> Result {
        var result = Result()
        for session in makeSessions(entries) {
            let intended = entries[session.intended]
            func found(_ response: SuggestResponse, within limit: Int) -> Bool {
                response.entries.prefix(limit).contains { $0.title == intended.title && $0.categories == intended.categories }
            }
            var firstInTop5: Int?
            var last: SuggestResponse?
            let title = Array(intended.title)
            func isWordCharacter(_ c: Character) -> Bool { c.isLetter || c.isNumber }
            for length in 1...max(1, session.typed.count) where length <= session.typed.count {
                let response = try shard.suggest(SuggestRequest(text: String(session.typed[0..<length])))
                if firstInTop5 == nil, found(response, within: 5) { firstInTop5 = length }
                if !session.hasTypo, length < title.count, isWordCharacter(title[length - 1]), isWordCharacter(title[length]) {
                    var end = length
                    while end < title.count, isWordCharacter(title[end]) { end += 1 }
                    let expected = String(title[0..<end])
                    result.midWordKeystrokes += 1
                    if response.completions.contains(where: { $0.text == expected }) { result.titleWordOffered += 1 }
                }
                last = response
            }
            let foundAtEnd = last.map { found($0, within: 10) } ?? false
            if !foundAtEnd && result.misses.count < 12 { result.misses.append((String(session.typed), intended)) }
            if session.hasTypo {
                result.typoSessions += 1
                if foundAtEnd { result.typoFound += 1 }
            } else {
                result.cleanSessions += 1
                if foundAtEnd { result.cleanFound += 1 }
            }
            if let firstInTop5 {
                result.keystrokesToTop5 += firstInTop5
            } else {
                result.keystrokesToTop5 += session.typed.count + 1
                result.neverInTop5 += 1
            }
        }
        return result
    }
}
