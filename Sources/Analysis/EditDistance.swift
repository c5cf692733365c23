/// Edit distances on analysed words, counted in Unicode scalars.
///
/// Plain dynamic programming: this is the *reference* definition that faster matchers (e.g. a
/// Levenshtein automaton walking the trie) are tested against, so it favours being obviously
/// right over being fast. Inputs are expected to be analysed terms (see ``Analyzer``); the
/// functions do not analyse them again.
///
/// ```swift
/// EditDistance.distance("iphone", "ipohne")      // 1 (one adjacent transposition)
/// EditDistance.prefixDistance("iphn", "iphone")  // 1 ("iphn" → "iphon")
/// EditDistance.budget(forLength: 6)              // 1
/// ```
public enum EditDistance {
    /// Maximum edits allowed for a query word of `length` scalars in `auto` typo mode:
    /// fewer than 4 → 0, 4...7 → 1, 8 or more → 2. Short words get no edits because almost
    /// every short string is within one edit of some other word.
    ///
    /// Complexity: O(1).
    ///
    /// ```swift
    /// EditDistance.budget(forLength: 3)  // 0
    /// EditDistance.budget(forLength: 8)  // 2
    /// ```
    public static func budget(forLength length: Int) -> Int {
        switch length {
        case ..<4: return 0
        case 4...7: return 1
        default: return 2
        }
    }

    /// Whether a stored word at distance `d` from a query word (`distance`, or `prefixDistance`
    /// for the partial word) is a match within `budget`: `d ≤ budget`, and a word whose first
    /// scalar differs from the query's matches with one edit at most. So "pyhton" finds
    /// "python" (one transposition) and "bython" too, but an eight-letter word finds words two
    /// edits away only when they begin with its first letter: a person rarely mistypes the first
    /// letter *and* another one, and most of a big vocabulary is two edits from a short word with
    /// any first letter (Meilisearch counts a first-letter typo as two for the same reason).
    ///
    /// Complexity: O(1) beyond the first scalars.
    ///
    /// ```swift
    /// EditDistance.admits(2, budget: 2, query: "cambridge", word: "cambirdgr")  // true
    /// EditDistance.admits(2, budget: 2, query: "cambridge", word: "xambirdge")  // false
    /// EditDistance.admits(1, budget: 2, query: "cambridge", word: "xambridge")  // true
    /// ```
    public static func admits(_ d: Int, budget: Int, query: String, word: String) -> Bool {
        d <= budget && (d <= 1 || query.unicodeScalars.first == word.unicodeScalars.first)
    }

    /// Whether alias word `word` is another spelling of title word `title` of the same entry: both
    /// at least ``variantMinimumLength`` scalars, the same first two scalars, different, and at most
    /// ``variantMaximumDistance`` apart. São Paulo's aliases spell "paulo" as "palo", "paolo",
    /// "paul", "paulas" and "palw"; New York City's spell "york" as "yorck", "yorke", "yorku". Such a
    /// word is not a completion that entry offers (Semantics.md): the title's own spelling is. A
    /// word in another language ("moskva" for "moscow", 3 apart) or a short one ("nyc") is not
    /// a variant.
    ///
    /// Complexity: O(|word| · |title|) when the first scalars agree, else O(1).
    ///
    /// ```swift
    /// EditDistance.isSpellingVariant("palo", of: "paulo")     // true
    /// EditDistance.isSpellingVariant("moskva", of: "moscow")  // false
    /// ```
    public static func isSpellingVariant(_ word: String, of title: String) -> Bool {
        let a = word.unicodeScalars, b = title.unicodeScalars
        // The first scalars first: most pairs differ there, and counting scalars walks the words.
        guard a.prefix(2).elementsEqual(b.prefix(2)), a.count >= variantMinimumLength, b.count >= variantMinimumLength,
              !a.elementsEqual(b) else { return false }
        return distance(word, title) <= variantMaximumDistance
    }

    /// Shorter words are never spelling variants: two three-letter words are almost always
    /// within two edits of each other.
    public static let variantMinimumLength = 4
    /// Edits between an alias word and a title word it spells another way, at most.
    public static let variantMaximumDistance = 2

    /// Optimal-string-alignment Damerau–Levenshtein distance between `a` and `b`: the fewest
    /// insertions, deletions, substitutions and transpositions of two adjacent scalars, where
    /// no substring is edited twice (so "ca" → "abc" is 3, not 2 as in unrestricted
    /// Damerau–Levenshtein).
    ///
    /// Complexity: O(|a| · |b|) time, O(|b|) extra space, lengths in Unicode scalars.
    ///
    /// ```swift
    /// EditDistance.distance("ab", "ba")      // 1
    /// EditDistance.distance("киев", "кеив")  // 1
    /// ```
    public static func distance(_ a: String, _ b: String) -> Int {
        lastRow(a, b).last!
    }

    /// The distance from `query` to the nearest prefix of `word`: the minimum over all prefixes
    /// `p` of `word` (including "" and `word` itself) of `distance(query, p)`. This is how far a
    /// partial query word is from being a prefix of `word`.
    ///
    /// Complexity: O(|query| · |word|) time, O(|word|) extra space.
    ///
    /// ```swift
    /// EditDistance.prefixDistance("iphn", "iphone")  // 1
    /// EditDistance.prefixDistance("xyz", "")         // 3
    /// ```
    public static func prefixDistance(_ query: String, _ word: String) -> Int {
        lastRow(query, word).min()!
    }

    /// Row `|a|` of the OSA table: element `j` is `distance(a, b.prefix(j))`. Keeping the
    /// table indexed by prefixes of `b` is what lets both functions share it.
    private static func lastRow(_ a: String, _ b: String) -> [Int] {
        let a = Array(a.unicodeScalars)
        let b = Array(b.unicodeScalars)
        // Three rows: OSA's transposition looks two rows back.
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in stride(from: 1, through: a.count, by: 1) {
            current[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    best = min(best, previous2[j - 2] + 1)
                }
                current[j] = best
            }
            swap(&previous2, &previous)
            swap(&previous, &current)
        }
        return previous
    }
}
