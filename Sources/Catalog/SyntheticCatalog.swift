/// A deterministic, generated catalog for tests and benchmarks, made lazily one entry at a time.
///
/// Shaped like a real store catalog: titles of 1–5 words drawn from a Zipf-distributed vocabulary
/// of 20,000 syllable-built pseudo-words (a mix of lowercase and capitalized words, some with
/// diacritics such as "é" or "ü", about 3% Cyrillic, Greek or CJK words); about 3% of titles repeat
/// an earlier title under a new id. 40 categories with Zipf frequencies (usually one per entry,
/// sometimes two or none). Heavy-tailed weights: about 35% zero, many small ties, a few huge.
/// About 30% of entries have 1–3 aliases, 50% a short description, 35% a `price` attribute. Ids
/// are "s0", "s1", … in order, so they are unique.
///
/// Each entry is computed from (seed, index) alone, so the catalog is a `RandomAccessCollection`:
/// `catalog[123_456]` costs the same as `catalog[0]`, and iteration allocates nothing beyond the
/// entries themselves. The same seed gives the same entries on every platform (the generator is
/// `SplitMix64`, never the system's).
///
/// Complexity: `init` builds the vocabulary, O(20,000) (a few milliseconds); each entry is O(1).
/// A million entries take on the order of a second in a release build.
///
/// Example:
/// ```swift
/// let catalog = SyntheticCatalog(seed: 7, count: 1_000_000)
/// for entry in catalog.prefix(3) { print(entry.jsonLine()) }
/// let again = SyntheticCatalog(seed: 7, count: 1_000_000)[2]   // equal to the third entry above
/// ```
public struct SyntheticCatalog: RandomAccessCollection, Sendable {
    public let seed: UInt64
    /// Number of entries.
    public let count: Int
    private let vocabulary: SyntheticVocabulary

    /// Size of the vocabulary titles are drawn from.
    public static let vocabularySize = 20_000

    public init(seed: UInt64, count: Int) {
        precondition(count >= 0, "count must not be negative")
        self.seed = seed
        self.count = count
        vocabulary = SyntheticVocabulary(seed: seed, size: Self.vocabularySize)
    }

    /// The entries, in id order; the catalog itself, as a sequence.
    public var entries: some Sequence<CatalogEntry> { self }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    /// Entry `index` ("s<index>"). O(1).
    public subscript(index: Int) -> CatalogEntry {
        precondition(index >= 0 && index < count, "index out of range")
        var random = SplitMix64.forItem(seed: seed, stream: 1, index: index)

        // An occasional title shared with one of the previous 1,000 entries.
        let title: String
        if index > 0 && random.uniform() < 0.03 {
            title = freshTitle(index - 1 - random.below(Swift.min(index, 1000)))
        } else {
            title = freshTitle(index)
        }

        var categories: [String] = []
        let categoryRoll = random.uniform()
        if categoryRoll >= 0.03 { categories.append(vocabulary.category(&random)) }
        if categoryRoll >= 0.93 {
            let second = vocabulary.category(&random)
            if second != categories[0] { categories.append(second) }
        }

        var aliases: [String] = []
        if random.uniform() < 0.3 {
            for _ in 0..<(1 + random.below(3)) {
                switch random.below(3) {
                case 0: aliases.append(title.lowercased())
                case 1: aliases.append(title.split(separator: " ").reversed().joined(separator: " "))
                default: aliases.append(vocabulary.word(&random) + " " + vocabulary.word(&random))
                }
            }
        }

        var description: String?
        if random.uniform() < 0.5 {
            let words = (0..<(4 + random.below(9))).map { _ in vocabulary.word(&random) }
            description = SyntheticVocabulary.capitalized(words.joined(separator: " ")) + "."
        }

        var attributes: [String: String] = [:]
        if random.uniform() < 0.35 {
            let cents = 99 + random.below(50_000)
            attributes["price"] = "\(cents / 100).\(cents % 100 < 10 ? "0" : "")\(cents % 100)"
        }

        // Drawn last so that weights do not shift the other fields' random streams if retuned.
        let weight = Self.heavyTailedWeight(&random)
        return CatalogEntry(
            id: "s\(index)", title: title, categories: categories, weight: weight, aliases: aliases,
            description: description, attributes: attributes)
    }

    /// The title entry `index` has unless it copies another: 1–5 words.
    private func freshTitle(_ index: Int) -> String {
        var random = SplitMix64.forItem(seed: seed, stream: 2, index: index)
        let wordCounts = [1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 5, 5]  // mean ≈ 2.6
        let count = wordCounts[random.below(wordCounts.count)]
        var title = vocabulary.word(&random)
        for _ in 1..<count { title += " " + vocabulary.word(&random) }
        return title
    }

    /// 35% zero, 25% 1–10, 30% log-uniform in 10–10,000, 10% Pareto (α = 1) above 10,000.
    private static func heavyTailedWeight(_ random: inout SplitMix64) -> UInt64 {
        let roll = random.uniform()
        if roll < 0.35 { return 0 }
        if roll < 0.60 { return UInt64(1 + random.below(10)) }
        if roll < 0.90 {
            // Uniform within a random decade [10^k, 10^(k+1)), k in 1...3: close to log-uniform,
            // in integers only (no libm, so the same on every platform).
            let low = [10, 100, 1000][random.below(3)]
            return UInt64(low + random.below(9 * low))
        }
        let u = 1 - random.uniform()  // (0, 1]
        return UInt64(Swift.min(10_000 / u, 1e12))
    }
}

extension SyntheticCatalog {
    /// A small random catalog over a tiny vocabulary, for randomized tests of ranking, merging and
    /// encoding: with few distinct words, titles collide, share prefixes ("ab", "abé", "abéc") and
    /// tie on weight, which is where ordering bugs hide.
    ///
    /// Words are 1–4 letters over "a", "b", "c", "d", "é", "ö" (about a fifth capitalized); titles
    /// have 1–3 words and about 15% repeat an earlier title; weights come from
    /// {0, 1, 2, 3, 5, 8, 100, 1000}, zero most often. Descriptions and attribute values sometimes
    /// hold quotes, backslashes, control characters, emoji and CJK text, to exercise escaping. Ids
    /// are "r0", "r1", …. Every entry is valid and canonical: `parseCatalogLine` of its
    /// `jsonLine()` gives it back unchanged.
    ///
    /// Complexity: O(count + vocabularySize).
    ///
    /// Example:
    /// ```swift
    /// let entries = SyntheticCatalog.randomEntries(seed: 1, count: 200)
    /// // e.g. CatalogEntry(id: "r0", title: "abé Cd", categories: ["Toys"], weight: 0, …)
    /// ```
    public static func randomEntries(seed: UInt64, count: Int, vocabularySize: Int = 30) -> [CatalogEntry] {
        precondition(vocabularySize > 0 && vocabularySize <= 2000, "vocabularySize must be in 1...2000")
        var random = SplitMix64.forItem(seed: seed, stream: 3, index: 0)
        let letters = ["a", "b", "c", "d", "é", "ö", "a", "b"]
        var vocabulary: [String] = []
        var seen = Set<String>()
        while vocabulary.count < vocabularySize {
            var word = (0..<(1 + random.below(4))).map { _ in letters[random.below(letters.count)] }.joined()
            if random.uniform() < 0.2 { word = SyntheticVocabulary.capitalized(word) }
            if seen.insert(word).inserted { vocabulary.append(word) }
        }
        let categoryNames = ["Books", "Toys", "Garden", "Kitchen", "Crème"]
        let weights: [UInt64] = [0, 0, 0, 0, 1, 1, 2, 3, 5, 8, 100, 1000]
        let tricky = [
            #"say "hi""#, #"back\slash"#, "line\nbreak", "tab\there", "nul\u{0}byte", "bell\u{7}", "del\u{7F}",
            "emoji 😀👍🏽", "日本語のテキスト", "Ünïcödé", "Кофеварка", "", "  spaced  ", "\r\n",
        ]

        func phrase(_ words: Int) -> String {
            (0..<words).map { _ in vocabulary[random.below(vocabulary.count)] }.joined(separator: " ")
        }

        var entries: [CatalogEntry] = []
        entries.reserveCapacity(count)
        for index in 0..<count {
            let title = !entries.isEmpty && random.uniform() < 0.15
                ? entries[random.below(entries.count)].title
                : phrase(1 + random.below(3))
            var categories: [String] = []
            for _ in 0..<random.below(3) {
                let category = categoryNames[random.below(categoryNames.count)]
                if !categories.contains(category) { categories.append(category) }
            }
            var aliases: [String] = []
            if random.uniform() < 0.3 {
                for _ in 0..<(1 + random.below(2)) { aliases.append(phrase(1 + random.below(2))) }
            }
            var description: String?
            if random.uniform() < 0.3 {
                description = tricky[random.below(tricky.count)] + " " + phrase(2)
            }
            var attributes: [String: String] = [:]
            if random.uniform() < 0.2 {
                attributes["price"] = "\(random.below(100)).\(random.below(10))0"
                if random.uniform() < 0.5 { attributes["note \"x\""] = tricky[random.below(tricky.count)] }
            }
            entries.append(CatalogEntry(
                id: "r\(index)", title: title, categories: categories, weight: weights[random.below(weights.count)],
                aliases: aliases, description: description, attributes: attributes))
        }
        return entries
    }
}
