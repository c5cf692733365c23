import Storage

// Reading the forward index (``ForwardIndex``): base documents' name words as ordinals.

extension Generation {
    /// A reader of the base documents' name word ordinals, or nil when the generation was written
    /// before the forward index.
    func forwardReader() -> ForwardIndex.Reader? {
        schema.forward.map { ForwardIndex.Reader(database: $0) }
    }

    /// The ordinal of base name word `word`, or nil when it is none (or there is no forward index).
    func nameOrdinal(of word: some StorageKey & Collection<UInt8>, in txn: borrowing ReadTransaction) throws -> UInt32? {
        guard schema.forward != nil, let value = try txn.get(schema.terms, word), Self.isNameWord(word, value) else { return nil }
        return try nameWordsBefore(word, in: txn)
    }

    /// The base name words a complete `word` with typos matches, as ordinals with their distances
    /// (``WordOrdinals``); nil without a forward index, or when the word has more than
    /// ``WordOrdinals/maximumTerms`` matches. Kept per word: the base never changes.
    func wordOrdinals(_ word: QueryWord, in txn: borrowing ReadTransaction) throws -> WordOrdinals? {
        precondition(!word.isPartial && word.budget > 0, "ordinals are mapped for complete words with typos")
        guard schema.forward != nil, schema.nameOrdinals != nil else { return nil }
        let key = TermMatchCache.Key(word: word.scalars, budget: word.budget, prefixMode: false)
        if let known = ordinalMatches.cached(key) { return known.ordinals }
        let matches = try terms(matching: word, namesOnly: true, in: txn)
        var found: WordOrdinals?
        if matches.count <= WordOrdinals.maximumTerms {
            var ordinals = WordOrdinals()
            // Delta-only and description-only words have no ordinal: no base document has them as
            // a name word.
            for index in matches.indices {
                if let ordinal = try nameOrdinal(of: matches.term(at: index), in: txn) {
                    ordinals.append(ordinal, distance: matches.distance(at: index))
                }
            }
            found = ordinals
        }
        ordinalMatches.insert(OrdinalMatches(ordinals: found), for: key)
        return found
    }

    /// A partial word's matches among the base name words as ordinal ranges with their distances,
    /// ascending and disjoint: its walk's regions (``nameRegions(matching:terms:in:)``), a subtree
    /// as the range of the words under its prefix, a single word as its ordinal. Nil without a
    /// forward index, or when the walk has more than `limit` regions (each costs counts along
    /// `terms`).
    func nameOrdinalRanges(ofPartial word: QueryWord, atMost limit: Int,
                           in txn: borrowing ReadTransaction) throws -> [(range: Range<UInt32>, distance: Int)]? {
        guard schema.forward != nil, schema.nameOrdinals != nil else { return nil }
        var none: TermList?
        let regions = try nameRegions(matching: word, terms: &none, in: txn)
        guard regions.count <= limit else { return nil }
        return try nameOrdinalRanges(of: regions, in: txn)
    }

    /// Regions of a walk of the base term trie (in byte order) as ordinal ranges with their
    /// distances, ascending and disjoint (empty ones left out); nil without a forward index.
    func nameOrdinalRanges(of regions: [TermRegion], in txn: borrowing ReadTransaction) throws -> [(range: Range<UInt32>, distance: Int)]? {
        guard schema.forward != nil, schema.nameOrdinals != nil else { return nil }
        var ranges: [(range: Range<UInt32>, distance: Int)] = []
        ranges.reserveCapacity(regions.count)
        for region in regions {
            if region.isSubtree {
                guard let range = try nameOrdinals(withPrefix: region.prefix, in: txn) else { return nil }
                if !range.isEmpty { ranges.append((range, region.distance)) }
            } else if let ordinal = try nameOrdinal(of: region.prefix, in: txn) {
                ranges.append((ordinal..<(ordinal + 1), region.distance))
            }
        }
        return ranges
    }

    /// The ordinals of the base name words that start with `prefix`: a base document has such a
    /// word exactly when one of its ordinals is in the range (empty when no base word does). Nil
    /// when the generation has no forward index. The name words before `prefix`, and before
    /// `prefix` + 0xFF (no UTF-8 byte is 0xFF, so it sorts after every word with the prefix and
    /// before the next).
    func nameOrdinals(withPrefix prefix: [UInt8], in txn: borrowing ReadTransaction) throws -> Range<UInt32>? {
        guard schema.forward != nil else { return nil }
        let lower = try nameWordsBefore(prefix, in: txn)
        let upper = try nameWordsBefore(prefix + [0xFF], in: txn)
        guard let lower, let upper, lower <= upper else { return nil }
        return lower..<upper
    }

    /// How many base name words sort before `key` (the ordinal of `key` if it is one), nil
    /// without `name_ordinals`: from the last sampled word at or before `key`
    /// (``ForwardIndex/ordinalInterval``), the `terms` keys after it are counted up to `key`.
    /// At most an interval of name words, and the other terms between them, each a step of one
    /// cursor reading a value's first varint.
    private func nameWordsBefore(_ key: some StorageKey, in txn: borrowing ReadTransaction) throws -> UInt32? {
        guard let samples = schema.nameOrdinals else { return nil }
        // The last sample at or before `key`.
        // The sample's key stays valid for the transaction (LMDB's read-only map): no copy.
        let sample: (word: Bytes, ordinal: UInt32)? = try txn.withCursor(samples) { cursor in
            var entry = try cursor.seek(atLeast: key)
            if entry == nil || entry!.key.compare(key) != 0 { entry = entry == nil ? try cursor.last() : try cursor.previous() }
            guard let (word, value) = entry else { return nil }
            guard value.count == 4 else { throw IndexError.corrupt("a name word's ordinal is \(value.count) bytes") }
            return (word, value.loadBigEndian(UInt32.self, at: 0))
        }
        guard let sample else { return 0 }  // before the first name word (ordinal 0 is sampled)
        return try txn.withCursor(schema.terms) { cursor in
            var count = sample.ordinal
            var entry = try cursor.seek(sample.word)
            guard entry != nil else { throw IndexError.corrupt("a sampled name word is not a term") }
            while let (word, value) = entry, word.compare(key) < 0 {
                if Self.isNameWord(word, value) { count += 1 }
                entry = try cursor.nextKey()
            }
            return count
        }
    }

    /// Whether a `terms` entry is a base name word: a word (not a token pseudo-term) in some title
    /// or alias. The builder numbers exactly these (``GenerationBuilder/forwardLists(_:terms:documents:isWord:)``).
    private static func isNameWord(_ word: some Collection<UInt8>, _ value: Bytes) -> Bool {
        guard let first = word.first, first >= TermWalk.firstWordByte else { return false }
        var reader = ByteReader(value)
        return ((try? reader.varint()) ?? 0) > 0
    }
}
