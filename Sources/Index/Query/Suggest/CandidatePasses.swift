/// The general plan's candidates by pass, for completions taken from the words' postings
/// (``SuggestContext/completeTypoWords(_:terms:floor:limit:into:in:)``), which walk each word's
/// postings once per pass.
///
/// Two forms, chosen by cost. *Split*: the candidates divided into one sorted array per pass, one
/// linear pass over all of them (O(c)), after which a word's postings gallop into its pass alone
/// and a walk ends with the pass. *Lazy*: nothing divided; each walk gallops into all candidates
/// and asks ``TypoPass`` about each posting met (O(p · passes · log)). Splitting half a million
/// "camakee" candidates cost more than all of "Camakee Mo"'s walks, yet walking "saus"'s many
/// typo'd words three times over all candidates cost more than splitting: the words' postings,
/// counted before, decide.
struct CandidatePasses {
    let candidates: [UInt32]
    let exactComplete: [UInt32]?
    let exactPartial: [UInt32]?
    /// One array per pass when split, else nil.
    private let split: [[UInt32]]?
    /// Pass 0's members, when listed outright.
    private let firstPass: [UInt32]?

    /// The passes that can hold a candidate (``TypoPass/passes(exactComplete:exactPartial:)``).
    let passes: Range<Int>

    /// `postings`: how many postings the walks will meet per pass (an upper bound will do).
    /// `firstPass`: pass 0's members when listed outright (``TypoPass/firstPass(of:exactComplete:exactPartial:)``).
    /// Then nothing is split: the later passes hold nearly every candidate, so a word's walk in
    /// them stops at about its first posting among the candidates, and splitting would read all of
    /// them ("Camakee Caka": a third of the keystroke).
    init(_ candidates: [UInt32], exactComplete: [UInt32]?, exactPartial: [UInt32]?, firstPass: [UInt32]? = nil, postings: Int) {
        self.candidates = candidates
        self.exactComplete = exactComplete
        self.exactPartial = exactPartial
        self.firstPass = firstPass
        passes = TypoPass.passes(exactComplete: exactComplete, exactPartial: exactPartial)
        if firstPass == nil, passes.upperBound > 1, postings > candidates.count / passes.upperBound {
            split = Self.split(candidates, by: [exactComplete, exactPartial].compactMap { $0 }, passes: passes.upperBound)
        } else {
            split = nil
        }
    }

    /// `candidates` divided by pass (one typo at least for each of `lists` a candidate is missing
    /// from), each part ascending. Each list is merged with the candidates in one linear run (they
    /// are sorted alike), the passes noted in a byte per candidate, then each part written into an
    /// array of exactly its size.
    ///
    /// Why: asking ``TypoPass`` about each candidate (a gallop into each list) and appending it to
    /// its pass's array (a uniqueness and capacity check into a nested array each time) was a
    /// third of "thou stouc" on the synthetic 1M catalog (the candidates of "thou", typos auto).
    static func split(_ candidates: [UInt32], by lists: [[UInt32]], passes: Int) -> [[UInt32]] {
        let n = candidates.count
        var bounds = [UInt8](repeating: 0, count: n)
        var counts = [Int](repeating: 0, count: passes)
        candidates.withUnsafeBufferPointer { c in
            bounds.withUnsafeMutableBufferPointer { bounds in
                for list in lists {
                    list.withUnsafeBufferPointer { l in
                        var j = 0
                        for i in 0..<n {
                            let doc = c[i]
                            while j < l.count && l[j] < doc { j &+= 1 }
                            bounds[i] &+= j < l.count && l[j] == doc ? 0 : 1
                        }
                    }
                }
                for bound in bounds { counts[Int(bound)] += 1 }
            }
        }
        return (0..<passes).map { pass in
            [UInt32](unsafeUninitializedCapacity: counts[pass]) { part, written in
                var k = 0
                candidates.withUnsafeBufferPointer { c in
                    bounds.withUnsafeBufferPointer { bounds in
                        for i in 0..<n where Int(bounds[i]) == pass {
                            part[k] = c[i]
                            k &+= 1
                        }
                    }
                }
                written = k
            }
        }
    }

    /// The documents to walk for pass `pass`, and a filter for them (nil: all are in the pass).
    func walk(_ pass: Int) -> (docs: [UInt32], members: TypoPass?) {
        if let split { return (split[pass], nil) }
        if pass == 0, let firstPass { return (firstPass, nil) }
        return (candidates, TypoPass.filter(typos: pass, exactComplete: exactComplete, exactPartial: exactPartial))
    }
}
