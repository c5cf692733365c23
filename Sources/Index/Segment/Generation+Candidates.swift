import Storage
import Synchronization

// The candidates of a general-plan query that have a name word among some terms or under a
// prefix: posting lists read in place and galloped into the candidates, or, against a long dense
// filtered list, set in a bitmap and ANDed with its own.

extension Generation {
    /// The documents of sorted `candidates` that have a name word starting with `prefix` (base or
    /// delta), sorted: every term under the prefix is read once, straight from the `terms` key
    /// range (no list of the terms, no array per posting list), and its postings are galloped
    /// into the candidates, marking hits in a bit set as long as the candidates. O(postings ×
    /// log(candidates)) at worst, O(candidates / 64) to collect; what a plan pays for the
    /// postings of a prefix with thousands of words ("python3 mu": every word under "mu") where
    /// verifying each of thousands of candidates would cost a document read apiece.
    func candidates(_ candidates: [UInt32], withNameTermPrefix prefix: [UInt8], in txn: borrowing ReadTransaction) throws -> [UInt32] {
        try Self.hitting(candidates) { base, delta in
            try forEachNamePosting(withPrefix: prefix, in: txn, base: base, delta: delta)
        }
    }

    /// The documents of sorted `candidates` that have a name word starting with `prefix`, tested
    /// through the forward index (``ForwardIndex``): a base candidate by its ordinals, a few loads
    /// from the chunk in hand; the delta candidates by the delta's postings under the prefix. O(c)
    /// whatever the prefix's postings, where galloping them costs O(postings × log(c / postings)).
    /// Nil without a forward index, or when a base candidate is not listed in it.
    func candidatesByForward(_ candidates: [UInt32], withNameTermPrefix prefix: [UInt8],
                             in txn: borrowing ReadTransaction) throws -> [UInt32]? {
        guard var reader = forwardReader(), let range = try nameOrdinals(withPrefix: prefix, in: txn) else { return nil }
        Self.candidatesTestedByForward.add(1, ordering: .relaxed)
        var found: [UInt32] = []
        var index = 0
        while index < candidates.count, candidates[index] < baseCount {
            guard let has = try reader.hasOrdinal(in: range, candidates[index], txn) else { return nil }
            if has { found.append(candidates[index]) }
            index += 1
        }
        guard index < candidates.count else { return found }
        var hits = CandidateHits(Array(candidates[index...]))
        try forEachDeltaNamePosting(withPrefix: prefix, in: txn) { doc in
            var from = 0
            hits.mark(doc, from: &from)
        }
        return found + hits.marked()
    }

    /// Calls of ``candidatesByForward(_:withNameTermPrefix:in:)`` that tested candidates (for
    /// tests: a path that only its speed would otherwise show).
    static let candidatesTestedByForward = Atomic<Int>(0)

    /// The `candidates` (sorted) with a name word among `terms`, base or delta: each word's postings
    /// read in place and galloped into the candidates (``CandidateHits``). Unlike the union of the
    /// words' documents, the result holds only candidates, so its caller can tell when it holds
    /// them all (the general plan then drops the list: no candidate misses it).
    func candidates(_ candidates: [UInt32], withNameTerms terms: some Sequence<some StorageKey>, in txn: borrowing ReadTransaction) throws -> [UInt32] {
        try Self.hitting(candidates) { base, delta in
            try forEachNamePosting(of: terms, in: txn, base: { _, postings in try base(&postings) }, delta: delta)
        }
    }

    /// The candidates hit by the postings `walk` hands out, galloped into them (``CandidateHits``);
    /// the walk stops once every candidate is hit.
    private static func hitting(_ candidates: [UInt32],
                                _ walk: (_ base: (inout PostingCursor) throws -> Bool, _ delta: (UInt32) -> Void) throws -> Void) throws -> [UInt32] {
        guard !candidates.isEmpty else { return [] }
        var hits = CandidateHits(candidates)
        try walk({ postings in
            try hits.mark(postings)
            return !hits.isComplete
        }, { doc in
            var index = 0
            hits.mark(doc, from: &index)
        })
        return hits.marked()
    }

    /// The documents of `members` (a filtered list's bitmap, ``DocumentBitmap``) that have a name
    /// word starting with `prefix` (base or delta), ascending: every posting under the prefix set
    /// in a bitmap spanning `members`, then the two ANDed. O(postings + n / 64) for numbers below
    /// n, where galloping into a dense list costs O(postings × log(candidates / postings)) of
    /// unpredictable branches: "Camakee sa" on the synthetic 1M catalog narrows the half a million
    /// documents with "camakee" by the 60,000 postings under "sa".
    ///
    /// A prefix with many postings (`postings`, its heavy trie node's count, which the caller has
    /// read; ``TermBitmaps/worthKeeping(postings:base:)``) has its bitmap, base and delta, kept per
    /// read snapshot: short prefixes come back on every keystroke of every session ("Camakee sa",
    /// "thou sa", "sa" after any word).
    func documents(withNameTermPrefix prefix: [UInt8], postings: Int, among members: DocumentBitmap,
                   in txn: borrowing ReadTransaction) throws -> [UInt32] {
        if let kept = try keptPrefixBitmap(prefix, postings: postings, in: txn) { return kept.intersection(members) }
        return try Self.marking(among: members) { base, delta in
            try forEachNamePosting(withPrefix: prefix, in: txn, base: base, delta: delta)
        }
    }

    /// The documents (base and delta) with a name word starting with `prefix`, as a bitmap kept
    /// per read snapshot, when the prefix has many postings (`postings`, its heavy trie node's
    /// count; ``TermBitmaps/worthKeeping(postings:base:)``); nil for a prefix with few.
    func keptPrefixBitmap(_ prefix: [UInt8], postings: Int, in txn: borrowing ReadTransaction) throws -> DocumentBitmap? {
        guard TermBitmaps.worthKeeping(postings: postings, base: Int(baseCount)) else { return nil }
        return try termBitmaps.value(.prefix(prefix, in: txn)) {
            // Spanning every delta document too: the bitmap serves any members.
            var last: UInt32 = 0
            try forEachDeltaNamePosting(withPrefix: prefix, in: txn) { last = max(last, $0) }
            return try Self.marked(spanning: max(Int(baseCount), Int(last) + 1)) { base, delta in
                try forEachNamePosting(withPrefix: prefix, in: txn, base: base, delta: delta)
            }
        }
    }

    /// ``keptPrefixBitmap(_:postings:in:)`` if it is kept already, without building it.
    func cachedPrefixBitmap(_ prefix: [UInt8], in txn: borrowing ReadTransaction) -> DocumentBitmap? {
        termBitmaps.cached(.prefix(prefix, in: txn))
    }

    /// The documents of `members` (a filtered list's bitmap) that have a name word among `terms`
    /// (base or delta), ascending: every posting of the words set in a bitmap spanning `members`,
    /// then the two ANDed. O(postings + n / 64), where the union of the words' lists and its
    /// intersection with the filtered list cost a sort or merge of every posting and a merge with
    /// the whole list ("thou stouc" on the synthetic 1M catalog: the words within one edit of
    /// "stouc" against the documents with "thou").
    func documents(withNameTerms terms: some Sequence<some StorageKey>, among members: DocumentBitmap, in txn: borrowing ReadTransaction) throws -> [UInt32] {
        try markedNamePostings(of: terms, spanning: members.span, in: txn).intersection(members)
    }

    /// The documents of `members` that have a name word among a typo'd partial word's `matches`,
    /// and those of them with one at distance 0 (a word starting with the typed word exactly),
    /// from one reading of the words' postings: each list is set in one of two bitmaps by its
    /// word's distance, and each bitmap ANDed with the members'. The general plan narrows its
    /// candidates to the first and reads the second as its first pass's list; that list was a
    /// forward-index test of every narrowed candidate ("Camakee tria" on the synthetic 1M catalog:
    /// half of its 1.5 ms). O(postings + n / 64) for numbers below n.
    func documents(withNameTermsOf matches: TermList, among members: DocumentBitmap,
                   in txn: borrowing ReadTransaction) throws -> (any: [UInt32], exact: [UInt32]) {
        let atZero = matches.indices(atDistance: 0).lazy.map { matches.term(at: $0) }
        let farther = matches.indices.lazy.filter { matches.distance(at: $0) != 0 }.map { matches.term(at: $0) }
        let exact = try markedNamePostings(of: atZero, spanning: members.span, in: txn)
        var any = try markedNamePostings(of: farther, spanning: members.span, in: txn)
        any.formUnion(exact)
        return (any.intersection(members), exact.intersection(members))
    }

    /// The members hit by the postings `walk` hands out: each posting list set in a bitmap
    /// spanning `members` (numbers past it are no member), then the two ANDed.
    private static func marking(among members: DocumentBitmap,
                                _ walk: (_ base: (inout PostingCursor) throws -> Bool, _ delta: (UInt32) -> Void) throws -> Void) throws -> [UInt32] {
        try marked(spanning: members.span, walk).intersection(members)
    }

    /// The postings `walk` hands out below `span`, as a bitmap.
    private static func marked(spanning span: Int,
                               _ walk: (_ base: (inout PostingCursor) throws -> Bool, _ delta: (UInt32) -> Void) throws -> Void) throws -> DocumentBitmap {
        var hits = DocumentBitmap(spanning: span)
        let end = UInt32(clamping: hits.span)
        try walk({ postings in
            try hits.insert(&postings)
            return true
        }, { doc in
            if doc < end { hits.insert(doc) }
        })
        return hits
    }

    /// The name postings (base and delta) of `terms` below `span`, as a bitmap. A word with many
    /// base postings (``TermBitmaps/worthKeeping(postings:base:)``) ORs in its base postings'
    /// bitmap, kept per read snapshot (``termBitmaps``), instead of decoding them: the keystrokes
    /// of a typo'd word after a complete one narrow by the same common words again and again
    /// ("thou stouc", "thou stoucr", … on the synthetic 1M catalog each set the 138,720 postings of
    /// "stoucriagou"). Either way the same bits are set.
    private func markedNamePostings(of terms: some Sequence<some StorageKey>, spanning span: Int,
                                    in txn: borrowing ReadTransaction) throws -> DocumentBitmap {
        var hits = DocumentBitmap(spanning: span)
        let end = UInt32(clamping: hits.span)
        let base = Int(baseCount)
        try forEachNamePosting(of: terms, in: txn, base: { term, postings in
            guard TermBitmaps.worthKeeping(postings: postings.left + 1, base: base) else {
                try hits.insert(&postings)
                return true
            }
            hits.formUnion(try keptNameBitmap(of: term, postings, in: txn))
            return true
        }, delta: { doc in
            if doc < end { hits.insert(doc) }
        })
        return hits
    }

    /// The base name postings of `term` (`postings`, from its first) as a bitmap spanning the base,
    /// kept per read snapshot (``TermBitmaps``: for words it says are worth keeping).
    func keptNameBitmap(of term: some StorageKey, _ postings: PostingCursor, in txn: borrowing ReadTransaction) throws -> DocumentBitmap {
        let key = TermBitmaps.Key(snapshot: txn.snapshotID, term: term.withStorageBytes { Array($0) }, isPrefix: false)
        return try termBitmaps.value(key) {
            var all = postings
            var bitmap = DocumentBitmap(spanning: Int(baseCount))
            try bitmap.insert(&all)
            return bitmap
        }
    }

    /// Hands each posting list of a name word under `prefix` to `base` (in place, read from the
    /// `terms` key range; false stops) and each delta name posting under it to `delta`.
    private func forEachNamePosting(withPrefix prefix: [UInt8], in txn: borrowing ReadTransaction,
                                    base: (inout PostingCursor) throws -> Bool, delta: (UInt32) -> Void) throws {
        let going = try txn.withCursor(schema.terms) { cursor in
            try TermWalk.forEachTerm(&cursor, withPrefix: prefix) { _, value in
                var postings = try PostingCursor(value)
                return try base(&postings)
            }
        }
        guard going else { return }
        try forEachDeltaNamePosting(withPrefix: prefix, in: txn, delta)
    }

    /// Hands every delta name posting of a word under `prefix` to `delta`.
    private func forEachDeltaNamePosting(withPrefix prefix: [UInt8], in txn: borrowing ReadTransaction, _ delta: (UInt32) -> Void) throws {
        guard try txn.count(schema.deltaTerms) > 0 else { return }
        try txn.withCursor(schema.deltaTerms) { cursor in
            var entry = try cursor.seek(atLeast: prefix)
            while let (key, value) = entry, key.hasPrefix(prefix) {
                // Name postings only (field byte 0).
                if value.count == 5, value[4] == 0 { delta(value.loadBigEndian(UInt32.self, at: 0)) }
                entry = try cursor.next()
            }
        }
    }

    /// Hands each word of `terms`' posting list to `base` (in place; false stops) and its delta
    /// name postings to `delta`, word by word.
    private func forEachNamePosting<Term: StorageKey>(of terms: some Sequence<Term>, in txn: borrowing ReadTransaction,
                                                      base: (Term, inout PostingCursor) throws -> Bool, delta: (UInt32) -> Void) throws {
        let hasDelta = try txn.count(schema.deltaTerms) > 0
        var docs: [UInt32] = []
        try txn.withCursor(schema.terms) { cursor in
            for term in terms {
                // One cursor for the words, in byte order: LMDB finds a key on the page the cursor
                // stands on without descending the tree again, and neighbouring words share pages.
                if let value = try cursor.seek(term)?.value {
                    var postings = try PostingCursor(value)
                    guard try base(term, &postings) else { return }
                }
                guard hasDelta else { continue }
                docs.removeAll(keepingCapacity: true)
                try appendDeltaPostings(of: term, includeDescription: false, to: &docs, in: txn)
                for doc in docs { delta(doc) }
            }
        }
    }
}

/// Which of a sorted candidate list some posting lists hit: a bit per candidate.
private struct CandidateHits {
    let candidates: [UInt32]
    private var bits: [UInt64]
    private var found = 0

    init(_ candidates: [UInt32]) {
        self.candidates = candidates
        bits = [UInt64](repeating: 0, count: (candidates.count + 63) / 64)
    }

    var isComplete: Bool { found == candidates.count }

    /// Marks `doc` if it is a candidate, galloping from `index` (postings of one list ascend).
    @inline(__always)
    mutating func mark(_ doc: UInt32, from index: inout Int) {
        index = gallop(candidates, to: doc, from: index)
        guard index < candidates.count, candidates[index] == doc else { return }
        let bit: UInt64 = 1 << UInt64(index & 63)
        if bits[index >> 6] & bit == 0 {
            found += 1
            bits[index >> 6] |= bit
        }
    }

    /// Marks every document of one term's postings (ascending) that is a candidate.
    mutating func mark(_ postings: consuming PostingCursor) throws {
        var index = 0
        while let doc = postings.current, index < candidates.count {
            mark(doc, from: &index)
            try postings.advance()
        }
    }

    /// The marked candidates, ascending.
    func marked() -> [UInt32] {
        var result: [UInt32] = []
        result.reserveCapacity(found)
        for (word, set) in bits.enumerated() where set != 0 {
            var set = set
            while set != 0 {
                result.append(candidates[word << 6 | set.trailingZeroBitCount])
                set &= set - 1
            }
        }
        return result
    }
}
