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

    /// How many passes there are (``TypoPass/count(exactComplete:exactPartial:)``).
    var count: Int { TypoPass.count(exactComplete: exactComplete, exactPartial: exactPartial) }

    /// `postings`: how many postings the walks will meet per pass (an upper bound will do).
    init(_ candidates: [UInt32], exactComplete: [UInt32]?, exactPartial: [UInt32]?, postings: Int) {
        self.candidates = candidates
        self.exactComplete = exactComplete
        self.exactPartial = exactPartial
        let passes = TypoPass.count(exactComplete: exactComplete, exactPartial: exactPartial)
        if passes > 1, postings > candidates.count / passes {
            var split = [[UInt32]](repeating: [], count: passes)
            var members = TypoPass(typos: 0, exactComplete: exactComplete, exactPartial: exactPartial)
            for doc in candidates { split[members.bound(of: doc)].append(doc) }
            self.split = split
        } else {
            split = nil
        }
    }

    /// The documents to walk for pass `pass`, and a filter for them (nil: all are in the pass).
    func walk(_ pass: Int) -> (docs: [UInt32], members: TypoPass?) {
        if let split { return (split[pass], nil) }
        return (candidates, TypoPass.filter(typos: pass, exactComplete: exactComplete, exactPartial: exactPartial))
    }
}
