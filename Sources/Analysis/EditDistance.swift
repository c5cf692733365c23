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
