import Storage

/// The delta's rank-ordered prefix lists: what a heavy trie node is to the base, for documents
/// added by upserts (issue 12).
///
/// Base documents are numbered in static rank order, so every base list is best-first and a plan
/// stops reading it early. Delta documents are numbered in the order they arrived, so without
/// these lists a plan had to read every delta document under a prefix and rank them all: with a
/// fifth of Debian re-weighted, "lib" cost 2.4 ms instead of 6 µs. Two dupsort, dupfixed databases
/// list every delta document under each prefix of its words, values ordered by weight:
///
/// - `delta_first_prefixes`: each prefix of the first title word → the documents whose analysed
///   title starts with it (`startsWith` of a one-word query, Semantics.md);
/// - `delta_word_prefixes`: each prefix of every name word (title and aliases) → the documents
///   with a name word starting with it (a typo-free match of that partial word).
///
/// Prefixes end at scalar boundaries: an analysed partial word that a name word starts with ends
/// at one of that word's boundaries (UTF-8 is self-synchronising), so no other prefix is ever
/// looked up. A value is ``value(weight:docnum:)``: the weight inverted and big-endian, so that
/// LMDB's byte order of duplicates is weight descending, then the document number. Ties in weight
/// are *not* in rank order (rank breaks them by sortTitle, then id): a reader that stops at a
/// weight must read on through every value of that weight, or stop only where the next weight
/// is strictly lower than what it has to beat.
///
/// **Completeness.** The Updater maintains both in the write transaction that changes the delta,
/// so a batch stays atomic and a read sees the lists of exactly the delta it sees. A generation
/// built before them has none (``Schema/deltaFirstPrefixes`` nil), and one whose delta was written
/// by a version of the program that did not maintain them has incomplete ones: ``MetaKey/deltaListsThrough``
/// says up to which `next_document` they are complete (written by a build, with an empty delta,
/// and advanced by every batch that maintained them). A reader uses the lists only when it equals
/// `next_document`; otherwise it scans the delta as before (``Generation/deltaLists(in:)``).
/// A delete by such a version leaves a stale value of a removed document; readers skip documents
/// that no longer exist. Base documents are never listed: a merge makes a fresh base and empty lists.
struct DeltaLists {
    /// Starts of titles: the `startsWith` candidates of a one-word prefix.
    let firstPrefixes: Database
    /// Starts of name words: every typo-free match of a one-word prefix.
    let wordPrefixes: Database

    static let valueSize = 12

    /// Whether lists complete through `through` (the ``MetaKey/deltaListsThrough`` value) list
    /// every delta document numbered below `next` (the `next_document`).
    static func areComplete(through: Bytes?, next: UInt32) -> Bool {
        guard let through, through.count == 4 else { return false }
        return through.loadBigEndian(UInt32.self, at: 0) == next
    }

    /// Weight descending in byte order (the complement, big-endian), then the document number.
    static func value(weight: UInt64, docnum: UInt32) -> [UInt8] {
        let inverted = ~weight
        var bytes = (0..<8).map { UInt8(truncatingIfNeeded: inverted >> (56 - 8 * $0)) }
        bytes.append(contentsOf: docnum.bigEndianBytes)
        return bytes
    }

    static func weight(_ value: Bytes) -> UInt64 { ~value.loadBigEndian(UInt64.self, at: 0) }
    static func docnum(_ value: Bytes) -> UInt32 { value.loadBigEndian(UInt32.self, at: 8) }

    /// The words a document is listed under the prefixes of: its title's first word, and its
    /// name words, sorted and distinct (see ``forEachPrefix(of:_:)``). Copied out of the
    /// document, so that writes may follow.
    struct Words {
        let first: [[UInt8]]
        let names: [[UInt8]]

        init(sortTitle: some Collection<UInt8>, nameWords: some Sequence<some Collection<UInt8>>) {
            let title = Array(sortTitle.prefix { $0 != 0x20 })
            first = title.isEmpty ? [] : [title]
            names = nameWords.map { Array($0) }.sorted { $0.lexicographicallyPrecedes($1) }
        }
    }

    /// Calls `body` with every prefix of the sorted `words` that ends at a scalar boundary, each
    /// once, as a slice of a word (no array a prefix, no set of them: that was a third of an
    /// upsert of cities' alias-heavy entries). A prefix of a word that is also a prefix of an
    /// earlier word in byte order is a prefix of the word just before it (every word between the
    /// two starts with it too), so only the prefixes longer than their common prefix are new.
    static func forEachPrefix(of words: [[UInt8]], _ body: (ArraySlice<UInt8>) throws -> Void) rethrows {
        var previous: [UInt8] = []
        for word in words {
            var common = 0
            let shorter = min(word.count, previous.count)
            while common < shorter, word[common] == previous[common] { common += 1 }
            var end = common + 1
            while end <= word.count {
                // A continuation byte (10xxxxxx) does not start a scalar: no prefix ends before it.
                if end == word.count || word[end] & 0xC0 != 0x80 { try body(word[..<end]) }
                end += 1
            }
            previous = word
        }
    }

    func add(_ docnum: UInt32, weight: UInt64, words: Words, in txn: borrowing WriteTransaction) throws {
        let value = Self.value(weight: weight, docnum: docnum)
        try Self.forEachPrefix(of: words.first) { try txn.put(firstPrefixes, $0, value) }
        try Self.forEachPrefix(of: words.names) { try txn.put(wordPrefixes, $0, value) }
    }

    func remove(_ docnum: UInt32, weight: UInt64, words: Words, in txn: borrowing WriteTransaction) throws {
        let value = Self.value(weight: weight, docnum: docnum)
        try Self.forEachPrefix(of: words.first) { _ = try txn.delete(firstPrefixes, $0, value: value) }
        try Self.forEachPrefix(of: words.names) { _ = try txn.delete(wordPrefixes, $0, value: value) }
    }

    /// The documents listed under `prefix` in `database`, ascending; nil when there are more than
    /// `limit` (one `mdb_cursor_count` tells, before any is read).
    static func documents(in database: Database, prefix: [UInt8], atMost limit: Int,
                          in txn: borrowing ReadTransaction) throws -> [UInt32]? {
        try txn.withCursor(database) { cursor in
            var entry = try cursor.seek(prefix)
            guard entry != nil else { return [] }
            guard try cursor.duplicateCount() <= limit else { return nil }
            var docs: [UInt32] = []
            while let value = entry?.value, value.count == valueSize {
                docs.append(docnum(value))
                entry = try cursor.nextDuplicate()
            }
            sortDocuments(&docs)
            return docs
        }
    }

    /// Calls `body` with the (weight, document number) of each value listed under `prefix` in
    /// `database`, weight descending, until it returns false.
    static func forEach(in database: Database, prefix: [UInt8], in txn: borrowing ReadTransaction,
                        _ body: (UInt64, UInt32) throws -> Bool) throws {
        try txn.withCursor(database) { cursor in
            var entry = try cursor.seek(prefix)
            while let value = entry?.value {
                guard value.count == valueSize, try body(weight(value), docnum(value)) else { return }
                entry = try cursor.nextDuplicate()
            }
        }
    }
}

extension Generation {
    /// The delta's prefix lists when they list every live delta document (see ``DeltaLists``,
    /// completeness), else nil: then the delta is scanned.
    func deltaLists(in txn: borrowing ReadTransaction) throws -> DeltaLists? {
        guard let lists = schema.deltaLists, let next = try Self.nextDocument(schema, in: txn),
              DeltaLists.areComplete(through: try txn.get(schema.meta, MetaKey.deltaListsThrough), next: next) else { return nil }
        return lists
    }

    /// Whether every delta term under `prefix` that is a name word (has a name posting) is in
    /// `met`. Cost: the delta's terms under the prefix up to the first one not met (and the
    /// postings of description-only terms, to tell them apart).
    func deltaNameTerms(under prefix: [UInt8], areAllIn met: TermTable<Bool>, in txn: borrowing ReadTransaction) throws -> Bool {
        try txn.withCursor(schema.deltaTerms) { cursor in
            var entry = try cursor.seek(atLeast: prefix)
            while let key = entry?.key, key.hasPrefix(prefix) {
                if key.withUnsafeBytes({ met.index(of: $0) }) == nil, try Self.deltaKeyHasNamePosting(&cursor, from: entry?.value) {
                    return false
                }
                entry = try cursor.nextKey()
            }
            return true
        }
    }

    /// The delta's name words under `prefix` (a `delta_terms` key range), in byte order; nil when
    /// there are more than `limit`, or more than four times as many keys to step over.
    func deltaNameWords(under prefix: [UInt8], atMost limit: Int, in txn: borrowing ReadTransaction) throws -> [[UInt8]]? {
        try txn.withCursor(schema.deltaTerms) { cursor in
            var words: [[UInt8]] = []
            var keys = 0
            var entry = try cursor.seek(atLeast: prefix)
            while let key = entry?.key, key.hasPrefix(prefix) {
                keys += 1
                guard keys <= 4 * limit else { return nil }
                let word = Array(key)
                if try Self.deltaKeyHasNamePosting(&cursor, from: entry?.value) {
                    guard words.count < limit else { return nil }
                    words.append(word)
                }
                entry = try cursor.nextKey()
            }
            return words
        }
    }

    /// The delta documents with `word` as a name word (`delta_terms`, field 0), ascending; nil when
    /// there are more than `limit`.
    func deltaNameDocuments(of word: [UInt8], atMost limit: Int, in txn: borrowing ReadTransaction) throws -> [UInt32]? {
        var docs: [UInt32] = []
        return try appendDeltaPostings(of: word, includeDescription: false, to: &docs, atMost: limit, in: txn) ? docs : nil
    }

    /// Whether the key a `delta_terms` cursor is on, whose first duplicate is `value`, is a name
    /// word: has a posting of field 0 (its duplicates, document number then field, are read on
    /// until one is found).
    static func deltaKeyHasNamePosting(_ cursor: inout Cursor, from value: Bytes?) throws -> Bool {
        var duplicate = value
        while let value = duplicate {
            if value.count == 5 && value[4] == 0 { return true }
            duplicate = try cursor.nextDuplicate()?.value
        }
        return false
    }
}
