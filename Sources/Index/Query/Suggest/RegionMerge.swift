import Storage

/// The base documents of some ``TermRegion``s of one distance, ascending and lazily: the union of
/// their heavy nodes' `all` lists, of light regions' and single terms' posting lists, and, where a
/// heavy list was truncated and the caller reads past its end, of that region's posting lists.
///
/// Repeats are possible (a document under two regions); callers skip a document equal to the
/// previous one. Valid inside the read transaction it was made in.
struct RegionMerge {
    private let generation: Generation
    /// Sorted, distinct: every document of the heavy lists.
    private var listed: [UInt32] = []
    private var next = 0
    private var postings = PostingHeap()
    /// Documents after this one may be missing from a truncated list: read past it only after the
    /// `truncated` regions are expanded into their terms' postings.
    private var bound: UInt32?
    private var truncated: [[UInt8]] = []

    init(_ regions: [TermRegion], generation: Generation, in txn: borrowing ReadTransaction) throws {
        self.generation = generation
        // One cursor on each database for all the regions, which come in key order: a look-up
        // near the last one is found on the cursor's page without a descent (``Cursor/seek(_:)``),
        // and a light region's walk opens no cursor of its own.
        try txn.withCursor(generation.schema.terms) { terms in
            try txn.withCursor(generation.schema.trie) { trie in
                for region in regions {
                    if !region.isSubtree {
                        if let value = try terms.seek(region.prefix)?.value { postings.push(try PostingCursor(value)) }
                    } else if let node = try generation.heavyNode(region.prefix, through: &trie) {
                        listed.append(contentsOf: node.all)
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
        sortUnique(&listed)
    }

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
            guard let limit = bound, smallest.map({ $0 > limit }) ?? true else { return smallest }
            // Past what the truncated lists prove: read those regions' postings from here on.
            for prefix in truncated { try pushPostings(below: prefix, after: limit, in: txn) }
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

    private mutating func pushPostings(below prefix: [UInt8], after limit: UInt32?, in txn: borrowing ReadTransaction) throws {
        try txn.withCursor(generation.schema.terms) { try pushPostings(below: prefix, after: limit, through: &$0) }
    }

    private mutating func pushPostings(below prefix: [UInt8], after limit: UInt32?, through cursor: inout Cursor) throws {
        var entry = try cursor.seek(atLeast: prefix)
        while let (key, value) = entry, key.hasPrefix(prefix) {
            var postingCursor = try PostingCursor(value)
            if let limit {
                while let doc = postingCursor.current, doc <= limit { try postingCursor.advance() }
            }
            postings.push(postingCursor)
            entry = try cursor.nextKey()
        }
    }
}
