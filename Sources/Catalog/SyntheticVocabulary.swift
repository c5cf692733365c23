// Pseudo-words for generated catalogs: built from syllables so that they look and tokenize like
// words, share prefixes the way real vocabularies do, and include the scripts real catalogs have.

/// The words and categories of a `SyntheticCatalog`. Immutable once built.
final class SyntheticVocabulary: Sendable {
    /// Distinct words; index = Zipf rank (0 is the most frequent).
    let words: [String]
    let wordRanks: ZipfTable
    let categories: [String]
    let categoryRanks: ZipfTable

    /// Builds `size` distinct words from `seed`. O(size).
    init(seed: UInt64, size: Int) {
        var random = SplitMix64.forItem(seed: seed, stream: 100, index: 0)
        var words: [String] = []
        var seen = Set<String>()
        words.reserveCapacity(size)
        while words.count < size {
            let word = Self.makeWord(&random)
            if seen.insert(word).inserted { words.append(word) }
        }
        self.words = words
        wordRanks = ZipfTable(count: size)
        categories = Self.categoryNames
        categoryRanks = ZipfTable(count: Self.categoryNames.count)
    }

    func word(_ random: inout SplitMix64) -> String {
        words[wordRanks.sample(&random)]
    }

    func category(_ random: inout SplitMix64) -> String {
        categories[categoryRanks.sample(&random)]
    }

    // MARK: - Word shapes

    private static let onsets = [
        "", "", "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
        "br", "ch", "cr", "dr", "fl", "gr", "kr", "pl", "sh", "st", "tr", "th",
    ]
    private static let vowels = ["a", "e", "i", "o", "u", "a", "e", "o", "y", "ai", "ou", "ee", "ia", "au"]
    private static let codas = ["", "", "", "", "n", "r", "s", "l", "x", "m", "t", "nd", "rk", "st", "ng"]
    private static let syllableCounts = [1, 2, 2, 2, 2, 3, 3, 3, 4]  // mostly 2–3 syllables
    /// Accented replacements for a vowel (or n, c), as in French, German, Spanish, Nordic words.
    private static let diacritics: [Character: [String]] = [
        "a": ["á", "à", "ä", "å", "â"], "e": ["é", "è", "ë", "ê"], "i": ["í", "ï"],
        "o": ["ó", "ö", "ø", "ô"], "u": ["ú", "ü", "û"], "n": ["ñ"], "c": ["ç"],
    ]
    private static let cyrillicSyllables = [
        "ка", "ро", "ми", "ло", "на", "ве", "до", "су", "ти", "бо", "гра", "сто", "пе", "жи", "ля", "ск",
    ]
    private static let greekSyllables = ["κα", "λο", "μι", "ρα", "νη", "θε", "πο", "σι", "δα", "τυ", "φω", "γη"]
    private static let cjkCharacters = [
        "東", "京", "山", "川", "中", "国", "大", "学", "日", "本", "人", "水", "火", "木", "金", "土",
        "花", "雨", "風", "海", "空", "月", "光", "道",
    ]

    private static func pick(_ options: [String], _ random: inout SplitMix64) -> String {
        options[random.below(options.count)]
    }

    /// One word: 97% Latin letters (about one in sixteen with a diacritic, a third capitalized),
    /// 1% Cyrillic, 1% Greek, 1% CJK.
    static func makeWord(_ random: inout SplitMix64) -> String {
        let script = random.uniform()
        if script < 0.01 {
            return (0..<(2 + random.below(3))).map { _ in pick(cyrillicSyllables, &random) }.joined()
        }
        if script < 0.02 {
            return (0..<(2 + random.below(3))).map { _ in pick(greekSyllables, &random) }.joined()
        }
        if script < 0.03 {
            return (0..<(1 + random.below(3))).map { _ in pick(cjkCharacters, &random) }.joined()
        }
        var word = ""
        for _ in 0..<syllableCounts[random.below(syllableCounts.count)] {
            word += pick(onsets, &random) + pick(vowels, &random)
            if random.uniform() < 0.3 { word += pick(codas, &random) }
        }
        if random.uniform() < 0.06 {
            let candidates = word.indices.filter { diacritics[word[$0]] != nil }
            if !candidates.isEmpty {
                let position = candidates[random.below(candidates.count)]
                word.replaceSubrange(position...position, with: pick(diacritics[word[position]]!, &random))
            }
        }
        if random.uniform() < 0.35 { word = capitalized(word) }
        return word
    }

    static func capitalized(_ word: String) -> String {
        guard let first = word.first else { return word }
        return first.uppercased() + word.dropFirst()
    }

    /// 40 store departments; index = Zipf rank.
    static let categoryNames = [
        "Books", "Electronics", "Clothing", "Home", "Toys", "Kitchen", "Garden", "Sports", "Beauty",
        "Groceries", "Shoes", "Phones", "Music", "Movies", "Office", "Tools", "Automotive", "Pet Supplies",
        "Baby", "Health", "Jewelry", "Watches", "Games", "Computers", "Cameras", "Furniture", "Lighting",
        "Outdoor", "Travel", "Crafts", "Stationery", "Software", "Bags", "Bedding", "Bath", "Cleaning",
        "Party", "Seasonal", "Crème & Café", "Ελληνικά",
    ]
}
