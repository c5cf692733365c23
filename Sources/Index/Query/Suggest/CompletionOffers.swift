import Storage

/// Which base documents of one word offer it as a completion (``CompletionSource``): all but the
/// few that have it as an alias word spelling one of their title words another way.
///
/// Generations record those few in `completion_variants`, so a word's best entry is still read
/// from its postings alone: one look-up per word, usually a miss. Generations written before that
/// record nothing, and each document is asked (read) instead.
struct CompletionOffers {
    let term: ArraySlice<UInt8>
    /// The documents that do not offer the word (sorted), or nil when not recorded.
    private let variants: [UInt32]?

    init(term: ArraySlice<UInt8>, variants: [UInt32]?) {
        self.term = term
        self.variants = variants
    }

    /// Whether base document `docnum` offers the word.
    func offers(_ docnum: UInt32, in generation: Generation, _ txn: borrowing ReadTransaction) throws -> Bool {
        if let variants { return variants.isEmpty || !contains(variants, docnum) }
        guard let doc = try generation.document(docnum, in: txn) else { return false }
        return doc.offersCompletion(term)
    }
}

/// Where a walk of `completion_variants` alongside words in ascending order stands
/// (``Generation/completionOffers(ofNext:_:through:)``): the first variant key not before the
/// last word asked, once the walk has started.
struct AscendingVariants {
    fileprivate var started = false
    fileprivate var next: Cursor.Entry?
}

extension Generation {
    /// Which base documents offer `term` as a completion.
    func completionOffers(of term: [UInt8], in txn: borrowing ReadTransaction) throws -> CompletionOffers {
        try completionOffers(of: term[...], in: txn)
    }

    /// Which base documents offer `term` (a slice of a ``TermList``, say) as a completion.
    func completionOffers(of term: ArraySlice<UInt8>, in txn: borrowing ReadTransaction) throws -> CompletionOffers {
        guard let database = schema.completionVariants else { return CompletionOffers(term: term, variants: nil) }
        // Most words have no variant: one look-up that misses, not a cursor (an allocation) a word
        // (a typo'd word's completions ask this of thousands of words).
        guard try txn.get(database, term) != nil else { return CompletionOffers(term: term, variants: []) }
        return try txn.withCursor(database) { cursor in
            CompletionOffers(term: term, variants: try Self.variants(of: term, first: try cursor.seek(term), &cursor))
        }
    }

    /// As ``completionOffers(of:in:)``, through a cursor on `completion_variants` (nil when the
    /// generation has none) that the caller keeps across many words: see
    /// ``SuggestContext/withOfferingCursors(in:_:)``.
    func completionOffers(of term: ArraySlice<UInt8>, through variants: inout Cursor?) throws -> CompletionOffers {
        guard variants != nil else { return CompletionOffers(term: term, variants: nil) }
        let first = try variants!.seek(term)
        guard first != nil else { return CompletionOffers(term: term, variants: []) }
        return CompletionOffers(term: term, variants: try Self.variants(of: term, first: first, &variants!))
    }

    /// As ``completionOffers(of:through:)`` for the next of words taken in ascending order, walking
    /// `variants` alongside them (a merge join) from `walk`'s place.
    ///
    /// Every variant key is a word of the index, so between two words of a walk through `terms`
    /// there is no variant key but theirs: each word costs at most one step of the cursor, where a
    /// seek cost a binary search of a page (or a descent) and was a fifth of "pune" on cities.
    func completionOffers(ofNext term: ArraySlice<UInt8>, _ walk: inout AscendingVariants,
                          through variants: inout Cursor?) throws -> CompletionOffers {
        guard variants != nil else { return CompletionOffers(term: term, variants: nil) }
        if !walk.started {
            walk.started = true
            walk.next = try variants!.seek(atLeast: term)
        }
        while let key = walk.next?.key, key.compare(term) < 0 { walk.next = try variants!.nextKey() }
        guard let key = walk.next?.key, key.elementsEqual(term) else { return CompletionOffers(term: term, variants: []) }
        // This leaves the cursor on the key's last duplicate (`MDB_NEXT_DUP` fails in place), from
        // where the next word's `nextKey` steps on.
        return CompletionOffers(term: term, variants: try Self.variants(of: term, first: walk.next, &variants!))
    }

    /// The documents of `term`'s duplicates, from `first` (the cursor's seek to it) on.
    private static func variants(of term: ArraySlice<UInt8>, first: Cursor.Entry?, _ cursor: inout Cursor) throws -> [UInt32] {
        var docs: [UInt32] = []
        var entry = first
        while let value = entry?.value {
            docs.append(value.loadBigEndian(UInt32.self, at: 0))
            entry = try cursor.nextDuplicate()
        }
        return docs
    }

    /// Whether a heavy trie node's listed best entries are entries that offer their words (true
    /// for generations that record variants: their builds listed only such entries).
    var listsOfferedBests: Bool { schema.completionVariants != nil }
}

extension SuggestContext {
    /// The first live base posting of `term` whose document offers it as a completion.
    func firstOffering(of term: [UInt8], in txn: borrowing ReadTransaction) throws -> UInt32? {
        try firstOffering(of: term[...], in: txn)
    }

    func firstOffering(of term: ArraySlice<UInt8>, in txn: borrowing ReadTransaction) throws -> UInt32? {
        guard let value = try txn.get(generation.schema.terms, term) else { return nil }
        return try firstOffering(value, offers: try generation.completionOffers(of: term, in: txn), in: txn)
    }

    /// As ``firstOffering(of:in:)`` for a word whose postings `value` the caller has read, looking
    /// its variants up through the cursor of ``withOfferingCursors(in:_:)``.
    func firstOffering(of term: ArraySlice<UInt8>, postings value: Bytes, variants: inout Cursor?,
                       in txn: borrowing ReadTransaction) throws -> UInt32? {
        try firstOffering(value, offers: try generation.completionOffers(of: term, through: &variants), in: txn)
    }

    /// As ``firstOffering(of:postings:variants:in:)`` for the next of words in ascending order.
    func firstOffering(ofNext term: ArraySlice<UInt8>, postings value: Bytes, _ walk: inout AscendingVariants,
                       variants: inout Cursor?, in txn: borrowing ReadTransaction) throws -> UInt32? {
        try firstOffering(value, offers: try generation.completionOffers(ofNext: term, &walk, through: &variants), in: txn)
    }

    private func firstOffering(_ postings: Bytes, offers: CompletionOffers, in txn: borrowing ReadTransaction) throws -> UInt32? {
        var cursor = try PostingCursor(postings)
        while let doc = cursor.current {
            if !(try deleted?.contains(doc, in: txn) ?? false), try offers.offers(doc, in: generation, txn) { return doc }
            try cursor.advance()
        }
        return nil
    }

    /// Lends `body` a cursor on `terms` and one on `completion_variants` (nil when the generation
    /// records none), for looking up many words' first offering entries.
    ///
    /// Why cursors: a typo'd partial word's completions look up hundreds of words ("pune" within
    /// one edit on cities: every word of "pine", "pane", "puna", … and of their light subtrees),
    /// each in both databases, and `mdb_get` descends from the root each time (three levels of
    /// 682k words, a `memcmp` per probe): those descents were two fifths of such a keystroke. A
    /// positioned cursor finds a key on its current leaf page without descending (see
    /// `Cursor.seek(_:)`), and the words come in key order, a light subtree's all on a page or two.
    func withOfferingCursors<R>(in txn: borrowing ReadTransaction, _ body: (inout Cursor, inout Cursor?) throws -> R) throws -> R {
        try txn.withCursor(generation.schema.terms) { terms in
            try txn.withCursor(ifPresent: generation.schema.completionVariants) { variants in try body(&terms, &variants) }
        }
    }
}
