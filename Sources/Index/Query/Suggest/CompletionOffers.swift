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
        var docs: [UInt32] = []
        try txn.withCursor(database) { cursor in
            var entry = try cursor.seek(term)
            while let value = entry?.value {
                docs.append(value.loadBigEndian(UInt32.self, at: 0))
                entry = try cursor.nextDuplicate()
            }
        }
        return CompletionOffers(term: term, variants: docs)
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
        let offers = try generation.completionOffers(of: term, in: txn)
        var cursor = try PostingCursor(value)
        while let doc = cursor.current {
            if !(try deleted?.contains(doc, in: txn) ?? false), try offers.offers(doc, in: generation, txn) { return doc }
            try cursor.advance()
        }
        return nil
    }
}
