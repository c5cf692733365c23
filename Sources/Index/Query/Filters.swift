import Storage

extension Generation {
    /// The live documents that pass every filter — each of `words` (through any term it matches)
    /// and each token — computed from postings alone, intersecting the cheapest list first so a
    /// document failing a filter is never read.
    ///
    /// - Returns: nil when there is no filter at all (every document passes), and for each word the
    ///   smallest distance any of its terms has (0 when the word itself is a term).
    /// - Complexity: O(Σ postings of the filters' terms) plus the term expansion of typo'd words.
    /// - Note: kept per read snapshot in ``filtered`` (see ``FilterCache``): the keystrokes of a
    ///   word after complete ones ask the same.
    func filteredDocuments(words: [QueryWord], tokens: [SearchToken], includeDescription: Bool,
                           in txn: borrowing ReadTransaction) throws -> (docs: [UInt32]?, nearest: [Int]) {
        guard !words.isEmpty || !tokens.isEmpty else { return (nil, []) }
        let key = FilterCache.Key(snapshot: txn.snapshotID, words: words, tokens: tokens, includeDescription: includeDescription)
        let value = try filtered.value(key) {
            let (docs, nearest) = try computeFilteredDocuments(words: words, tokens: tokens, includeDescription: includeDescription,
                                                               deleted: try deletedSet(in: txn), in: txn)
            return FilterCache.Value(docs: docs, nearest: nearest)
        }
        return (value.docs, value.nearest)
    }

    /// |a ∩ b| for two filtered lists (sorted), given with their filters' keys. Both long and
    /// dense (``DocumentBitmap/pays(for:)``): an AND of their bitmaps, kept per read snapshot. One
    /// of them: its bitmap tested with each element of the other, unless the other is so short
    /// that galloping it (O(s log(l/s))) costs less than a bitmap built once. Else a merge. A
    /// chip's count on a big catalog ("Camakee B": Books among half a million documents) is then
    /// an AND of two bitmaps, not a merge of 600,000 numbers, and a rarer category's 20,000 are
    /// 20,000 tests, not 100,000 steps of galloping.
    func intersectionCount(_ a: [UInt32], filter aKey: FilterCache.Key, _ b: [UInt32], filter bKey: FilterCache.Key) -> Int {
        let bitmap = keptBitmap
        let aPays = DocumentBitmap.pays(for: a), bPays = DocumentBitmap.pays(for: b)
        if aPays, bPays { return bitmap(a, aKey).intersectionCount(bitmap(b, bKey)) }
        if aPays, b.count >= Self.galloped { return bitmap(a, aKey).intersectionCount(b) }
        if bPays, a.count >= Self.galloped { return bitmap(b, bKey).intersectionCount(a) }
        return Index.intersectionCount(a, b)
    }

    /// `a ∩ b` for the intersection so far `a` and a filter's list `b` (sorted; `b` kept under
    /// `bKey`). When `b` is long and dense (``DocumentBitmap/pays(for:)``) and `a` neither short
    /// enough to gallop nor much longer than `b`: a test of each of `a`'s numbers against `b`'s bitmap,
    /// kept per read snapshot (the chips' counts keep the same ones). Else a merge, or galloping.
    ///
    /// Why: two common complete words ("Camakee thou " on the synthetic 1M catalog: half a million
    /// documents and a hundred thousand) were merged number by number, almost half of the first
    /// keystroke after the space (typos off, 0.9 ms); against the common word's bitmap it is a
    /// load and a test for each of the rarer word's numbers.
    func intersectFiltered(_ a: [UInt32], _ b: [UInt32], filter bKey: FilterCache.Key) -> [UInt32] {
        guard a.count >= Self.galloped, a.count * 16 >= b.count, a.count <= b.count * 4, DocumentBitmap.pays(for: b) else {
            return intersect(a, b)
        }
        return keptBitmap(b, bKey).members(of: a)
    }

    /// A filtered list's bitmap, kept per read snapshot under its filter's key.
    private func keptBitmap(_ docs: [UInt32], _ key: FilterCache.Key) -> DocumentBitmap {
        filteredBitmaps.value(key) { DocumentBitmap(docs) }
    }

    /// A list shorter than this is galloped into a long one rather than tested against its bitmap:
    /// a few microseconds, less than building the bitmap when it is not kept yet.
    static let galloped = 256

    /// Two or more filters: each one's documents are kept on their own (a single-filter key), and
    /// the query's list is their intersection, cheapest first. Why: "camakee moshe " and
    /// "camakee thou " share the half a million documents of "camakee" (with its typos, a union
    /// of hundreds of lists), decoded anew for every new pair of complete words before (3 ms of
    /// the first keystroke after the space on the synthetic 1M catalog); now once a snapshot, and
    /// the pair costs the rarer word's list galloped into it. One filter is its own single list.
    private func computeFilteredDocuments(words: [QueryWord], tokens: [SearchToken], includeDescription: Bool,
                                          deleted: DeletedSet?, in txn: borrowing ReadTransaction) throws -> (docs: [UInt32]?, nearest: [Int]) {
        // A filter's `nearest`: its word's as a one-element list (what a single-filter query of it
        // returns), none for a token.
        var filters: [(cost: Int, terms: TermList, word: QueryWord?, token: SearchToken?, nearest: [Int])] = []
        for word in words {
            let matches = try terms(matching: word, namesOnly: !includeDescription, in: txn)
            let cost = try postingCount(of: matches.terms, includeDescription: includeDescription, in: txn)
            filters.append((cost, matches, word, nil, [matches.distances.min() ?? 0]))
        }
        let nearest = filters.flatMap(\.nearest)
        for token in tokens {
            let term = Schema.tokenTerm(token)
            filters.append((try postingCount(of: term, includeDescription: false, in: txn), TermList(CollectionOfOne((term, 0))), nil, token, []))
        }
        func live(_ terms: TermList) throws -> [UInt32] {
            var list = try documents(of: terms.terms, includeDescription: includeDescription, in: txn)
            if let deleted { try deleted.remove(from: &list, in: txn) }
            return list
        }
        guard filters.count > 1 else { return (try filters.first.map { try live($0.terms) }, nearest) }
        filters.sort { $0.cost < $1.cost }
        var result: [UInt32]?
        var applied: [FilterCache.Key] = []
        for filter in filters {
            let key = FilterCache.Key(snapshot: txn.snapshotID, words: filter.word.map { [$0] } ?? [],
                                      tokens: filter.token.map { [$0] } ?? [], includeDescription: includeDescription)
            // A word typed twice ("camakee camakee …") filters by the same list: once is enough
            // (intersecting half a million documents with themselves took a millisecond).
            guard !applied.contains(key) else { continue }
            applied.append(key)
            let list = try self.filtered.value(key) {
                FilterCache.Value(docs: try live(filter.terms), nearest: filter.nearest)
            }.docs ?? []
            result = result.map { intersectFiltered($0, list, filter: key) } ?? list
            if result!.isEmpty { break }
        }
        return (result, nearest)
    }

    /// Every live document, in document order.
    func allDocuments(deleted: DeletedSet?, in txn: borrowing ReadTransaction) throws -> [UInt32] {
        var docs: [UInt32] = []
        try txn.withCursor(schema.docs) { cursor in
            var entry = try cursor.first()
            while let key = entry?.key {
                docs.append(schema.documentNumber(key))
                entry = try cursor.next()
            }
        }
        if let deleted { try deleted.remove(from: &docs, in: txn) }
        return docs
    }
}
