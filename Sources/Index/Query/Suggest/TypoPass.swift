/// One pass of the general plan's walk: the candidates with a given lower bound of typos, found
/// one candidate at a time as the walk reads them, so that a walk which settles early never splits
/// the candidates it skips.
///
/// A candidate's bound is one typo per list it is missing from: `exactComplete` (the documents
/// with every complete word spelled exactly) and `exactPartial` (those with a name word starting
/// with the typed partial word exactly); a nil list costs nothing. "Camakee m" on the synthetic
/// 1M catalog has half a million candidates, and the walk settles after a few dozen of them:
/// splitting them all up front into three arrays was 65% of its 860 µs.
///
/// Ask about candidates in ascending order: each list keeps a position and gallops forward
/// (O(log gap) per question, ``gallop(_:to:from:)``).
struct TypoPass {
    /// The pass's bound: 0, 1 or 2.
    let typos: Int
    private let exactComplete: [UInt32]?
    private let exactPartial: [UInt32]?
    private var completeIndex = 0
    private var partialIndex = 0

    init(typos: Int, exactComplete: [UInt32]?, exactPartial: [UInt32]?) {
        self.typos = typos
        self.exactComplete = exactComplete
        self.exactPartial = exactPartial
    }

    /// Pass `typos`'s filter, or nil when there are no lists (one pass: every candidate is in it).
    static func filter(typos: Int, exactComplete: [UInt32]?, exactPartial: [UInt32]?) -> TypoPass? {
        exactComplete == nil && exactPartial == nil ? nil : TypoPass(typos: typos, exactComplete: exactComplete, exactPartial: exactPartial)
    }

    /// The passes the lists make that can hold a candidate: up to one more than the lists given,
    /// from the bound every candidate has. An empty list puts every candidate in a later pass
    /// ("Camaeke m": no document has the misspelt complete word, so all half a million candidates
    /// have a typo), and walking an empty pass is not free: its walk reads every candidate to find
    /// none, and may narrow them by the partial word's postings first.
    static func passes(exactComplete: [UInt32]?, exactPartial: [UInt32]?) -> Range<Int> {
        let lists = (exactComplete == nil ? 0 : 1) + (exactPartial == nil ? 0 : 1)
        let empty = (exactComplete?.isEmpty == true ? 1 : 0) + (exactPartial?.isEmpty == true ? 1 : 0)
        return empty..<(1 + lists)
    }

    /// The first pass's members listed outright, when one exact list is short: the candidates in
    /// every list, found by galloping the short list into the others (O(s log(c/s))). Asking the
    /// walk's filter about each candidate costs O(c) however few are members ("Camakee Caka" on the
    /// synthetic 1M catalog: half a million candidates, a few hundred with a word starting "caka").
    /// nil when no list is short or pass 0 holds no candidate.
    static func firstPass(of candidates: [UInt32], exactComplete: [UInt32]?, exactPartial: [UInt32]?) -> [UInt32]? {
        let lists = [exactComplete, exactPartial].compactMap { $0 }.sorted { $0.count < $1.count }
        guard let shortest = lists.first, passes(exactComplete: exactComplete, exactPartial: exactPartial).lowerBound == 0,
              shortest.count * shortFactor < candidates.count else { return nil }
        return lists.dropFirst().reduce(intersect(shortest, candidates)) { intersect($0, $1) }
    }

    /// A list is short when it holds at most 1/shortFactor of the candidates: the factor past which
    /// ``intersect(_:_:)`` gallops rather than merges.
    static let shortFactor = 16

    /// Whether `doc` belongs to this pass. Not below the last document asked about.
    mutating func contains(_ doc: UInt32) -> Bool {
        exactness(of: doc).bound == typos
    }

    /// What the lists say of a candidate: which parts of the query it is known to have spelled
    /// exactly (a list that was not made says nothing), and so its pass.
    struct Exactness {
        /// Every complete word is one of its name words (it is in `exactComplete`).
        var completeWords: Bool
        /// One of its name words starts with the partial word (it is in `exactPartial`).
        var partialWord: Bool
        /// The pass: one typo at least for each list it is missing from.
        var bound: Int

        /// Nothing known.
        static let unknown = Exactness(completeWords: false, partialWord: false, bound: 0)
    }

    /// The lists' word on `doc`. Not below the last document asked about.
    mutating func exactness(of doc: UInt32) -> Exactness {
        var known = Exactness.unknown
        if let list = exactComplete {
            completeIndex = gallop(list, to: doc, from: completeIndex)
            known.completeWords = completeIndex < list.count && list[completeIndex] == doc
            if !known.completeWords { known.bound += 1 }
        }
        if let list = exactPartial {
            partialIndex = gallop(list, to: doc, from: partialIndex)
            known.partialWord = partialIndex < list.count && list[partialIndex] == doc
            if !known.partialWord { known.bound += 1 }
        }
        return known
    }

    /// What every member of the first pass (``firstPass(of:exactComplete:exactPartial:)``) is
    /// known to have: it is in every list given.
    static func firstPassExactness(exactComplete: [UInt32]?, exactPartial: [UInt32]?) -> Exactness {
        Exactness(completeWords: exactComplete != nil, partialWord: exactPartial != nil, bound: 0)
    }
}
