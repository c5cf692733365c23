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

    /// How many passes the lists make: one more than the lists given.
    static func count(exactComplete: [UInt32]?, exactPartial: [UInt32]?) -> Int {
        1 + (exactComplete == nil ? 0 : 1) + (exactPartial == nil ? 0 : 1)
    }

    /// Whether `doc` belongs to this pass. Not below the last document asked about.
    mutating func contains(_ doc: UInt32) -> Bool {
        bound(of: doc) == typos
    }

    /// The pass `doc` belongs to. Not below the last document asked about.
    mutating func bound(of doc: UInt32) -> Int {
        var bound = 0
        if let list = exactComplete {
            completeIndex = gallop(list, to: doc, from: completeIndex)
            if completeIndex == list.count || list[completeIndex] != doc { bound += 1 }
        }
        if let list = exactPartial {
            partialIndex = gallop(list, to: doc, from: partialIndex)
            if partialIndex == list.count || list[partialIndex] != doc { bound += 1 }
        }
        return bound
    }
}
