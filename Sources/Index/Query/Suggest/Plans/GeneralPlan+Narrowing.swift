import Storage
import Synchronization

// How the general plan narrows its candidates by an exact partial word's postings, once reading
// them in rank order has not settled the answer soon.

/// An exact partial word whose postings may narrow the candidates (``SuggestContext/narrowed(_:by:walkWouldRead:forwardTests:in:)``),
/// with the filtered documents every candidate list is drawn from (the complete words' and
/// tokens' documents) and their filter's cache key, under which their bitmap is kept.
struct PrefixNarrowing {
    let prefix: [UInt8]
    let filtered: [UInt32]
    let filter: FilterCache.Key
}

extension SuggestContext {
    /// Candidates read in rank order before an exact partial word's postings may narrow the
    /// rest (``narrowed(_:by:walkWouldRead:forwardTests:in:)``): many answers settle within a few
    /// dozen ("al kh": most candidates match), and reading a prefix's postings costs more than that.
    static let narrowingProbe = 64

    /// Matching candidates the walk in rank order reads before the answer usually settles (the
    /// entries, the completions and their margin): with a fraction `h` of the probe matching, the
    /// walk is expected to read about `matchesToSettle / h` more.
    static let matchesToSettle = 32

    /// Postings read in place and galloped into the candidates per candidate verified, at which
    /// narrowing surely pays: a posting costs 20–40 ns, the step to each of the prefix's terms
    /// included (measured: Debian "python3 s", 9,825 postings, 200 µs; cities "al kh", 7,669
    /// postings of many rare words, 280 µs), a candidate verified 200–400 ns; and the walk's
    /// estimate from the probe is rough (the first candidates of "python3 li" barely match, the
    /// next ones do), so only a clear gain narrows.
    static let verifyCostInPostings = 4

    /// Candidates tested through the forward index per posting read and galloped: a test is a
    /// few loads from the chunk in hand, 10–15 ns, a posting 20–40 ns.
    static let forwardTestsPerPosting = 3

    /// The `candidates` (a subset of ``PrefixNarrowing/filtered``) with a name word starting with
    /// the narrowing's prefix, when the prefix's postings (its heavy trie node's count, an upper
    /// bound; a prefix without one has few) cost less than verifying the candidates the walk would
    /// still read; else nil.
    ///
    /// Few postings are galloped into the candidates
    /// (``Generation/candidates(_:withNameTermPrefix:in:)``). Many, against a dense filtered list,
    /// are set in a bitmap and ANDed with the list's own, kept per read snapshot
    /// (``Generation/documents(withNameTermPrefix:postings:among:in:)``), then intersected with the
    /// candidates when they are fewer than the filtered documents.
    ///
    /// With `forwardTests`, the walk tests a candidate for the prefix through the forward index
    /// (``ForwardIndex``) before reading it: a candidate narrowing would leave out then costs
    /// less than a posting, and only postings far fewer than the candidates pay
    /// (``forwardTestsPerPosting``).
    func narrowed(_ candidates: [UInt32], by narrowing: PrefixNarrowing, walkWouldRead: Int, forwardTests: Bool,
                  in txn: borrowing ReadTransaction) throws -> [UInt32]? {
        let node = try generation.heavyNode(narrowing.prefix, in: txn)
        if let node, node.postings > Self.verifyCostInPostings * walkWouldRead { return nil }
        if let node, forwardTests, node.postings * Self.forwardTestsPerPosting > walkWouldRead { return nil }
        let filtered = narrowing.filtered
        if let node, DocumentBitmap.pays(for: filtered), node.postings >= Int(filtered.last!) / Self.postingsPerBitmapWord {
            Self.prefixNarrowingsByBitmap.add(1, ordering: .relaxed)
            let members = generation.filteredBitmaps.value(narrowing.filter) { DocumentBitmap(filtered) }
            let hits = try generation.documents(withNameTermPrefix: narrowing.prefix, postings: node.postings, among: members, in: txn)
            return candidates.count == filtered.count ? hits : intersect(hits, candidates)
        }
        return try generation.candidates(candidates, withNameTermPrefix: narrowing.prefix, in: txn)
    }

    /// For tests: narrowings that went through the filtered list's bitmap, by an exact partial
    /// word's prefix and by a typo'd one's words.
    static let prefixNarrowingsByBitmap = Atomic<Int>(0)
    static let typoNarrowingsByBitmap = Atomic<Int>(0)

    /// Document numbers per posting at which setting a prefix's postings in a bitmap and ANDing it
    /// with the filtered list's costs less than galloping them into the candidates: a word of both
    /// bitmaps (zeroed, ANDed, scanned) costs about 1.5 ns for 64 numbers, a posting galloped into a
    /// dense list 20–40 ns. Measured: "Camakee sa" on the synthetic 1M catalog, 1.35 ms → 175 µs.
    static let postingsPerBitmapWord = 1024
}
