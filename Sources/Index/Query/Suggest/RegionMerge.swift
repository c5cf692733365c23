import Storage

/// The base documents of some ``TermRegion``s of one distance, ascending and lazily: the union of
/// their heavy nodes' `all` lists, of light regions' and single terms' posting lists, and, where a
/// heavy list was truncated and the caller reads past its end, of that region's posting lists.
///
/// **Best first.** A region is read only once the merge reaches its best document
/// (``TermRegion/best``: none of its documents comes earlier). Callers stop as soon as their
/// entries are full, usually within a few documents, so most regions of a typo'd word, those of
/// obscure words whose best entries rank far after the first ten, are never read. Each read region
/// costs a heavy-node look-up, or a walk of its terms with a posting list each ("pune" within one
/// edit on cities: 196 → 58 µs a keystroke with its completions, which are read best first too).
/// Regions of tries without bests (best 0) are all read at the first ``peek(in:)``, as before.
///
/// Repeats are possible (a document under two regions); callers skip a document equal to the
/// previous one. Valid inside the read transaction it was made in.
struct RegionMerge {
    private let generation: Generation
    /// Regions not read yet, by best descending (the next to read is the last).
    private var unread: [TermRegion]
    /// Sorted, distinct: every document of the heavy lists read, from `next` on.
    private var listed: [UInt32] = []
    private var next = 0
    private var postings = PostingHeap()
    /// Documents after this one may be missing from a truncated list: read past it only after the
    /// `truncated` regions are expanded into their terms' postings.
    private var bound: UInt32?
    private var truncated: [[UInt8]] = []

    init(_ regions: [TermRegion], generation: Generation) {
        self.generation = generation
        unread = TermRegion.bestLast(regions)
    }

    /// Regions not read so far (for tests: what the bests saved).
    var unreadRegions: Int { unread.count }

    /// The next document, or nil when every region is exhausted.
    mutating func peek(in txn: borrowing ReadTransaction) throws -> UInt32? {
        while true {
            // (Plain comparisons: this runs once per document read.)
            let fromLists = next < listed.count ? listed[next] : nil
            let smallest: UInt32?
            switch (fromLists, postings.smallest) {
            case let (a?, b?): smallest = min(a, b)
            case let (a, b): smallest = a ?? b
            }
            // A region whose best is not after it may hold it or an earlier document.
            if let region = unread.last, smallest.map({ region.best <= $0 }) ?? true {
                try readRegions(through: smallest, in: txn)
                continue
            }
            guard let limit = bound, smallest.map({ $0 > limit }) ?? true else { return smallest }
            // Past what the truncated lists prove: read those regions' postings from here on.
            try txn.withCursor(generation.schema.terms) { terms in
                for prefix in truncated { try pushPostings(below: prefix, after: limit, through: &terms) }
            }
            truncated.removeAll()
            bound = nil
        }
    }

    /// Moves past the document ``peek(in:)`` returned.
    mutating func advance() throws {
        if next < listed.count, postings.smallest.map({ listed[next] <= $0 }) ?? true {
            next += 1
        } else {
            _ = try postings.popSmallest()
        }
    }

    /// Reads the next unread region and every other whose best is not after `smallest` (or after
    /// the next one's, when nothing is read yet).
    ///
    /// One cursor on each database serves the batch: a light region's walk opens no cursor of its
    /// own, and a look-up near the cursor's last one is found on its page without a descent
    /// (``Cursor/seek(_:)``).
    private mutating func readRegions(through smallest: UInt32?, in txn: borrowing ReadTransaction) throws {
        let limit = smallest ?? unread[unread.count - 1].best
        var batch: [TermRegion] = []
        while let region = unread.last, region.best <= limit { batch.append(unread.removeLast()) }
        var lists: [UInt32] = []
        try txn.withCursor(generation.schema.terms) { terms in
            try txn.withCursor(generation.schema.trie) { trie in
                for region in batch {
                    if !region.isSubtree {
                        if let value = try terms.seek(region.prefix)?.value { postings.push(try PostingCursor(value)) }
                    } else if let node = try generation.heavyNode(region.prefix, through: &trie) {
                        lists.append(contentsOf: node.all)
                        if node.allTruncated, let last = node.all.last {
                            truncated.append(region.prefix)
                            bound = min(bound ?? last, last)
                        }
                    } else {
                        // Light: at most `heavyThreshold` postings below the prefix.
                        try pushPostings(below: region.prefix, after: nil, through: &terms)
                    }
                }
            }
        }
        guard !lists.isEmpty else { return }
        lists.append(contentsOf: listed[next...])
        sortUnique(&lists)
        listed = lists
        next = 0
    }

    private mutating func pushPostings(below prefix: [UInt8], after limit: UInt32?, through cursor: inout Cursor) throws {
        try TermWalk.forEachTerm(&cursor, withPrefix: prefix) { _, value in
            var postingCursor = try PostingCursor(value)
            if let limit {
                while let doc = postingCursor.current, doc <= limit { try postingCursor.advance() }
            }
            postings.push(postingCursor)
            return true
        }
    }
}
