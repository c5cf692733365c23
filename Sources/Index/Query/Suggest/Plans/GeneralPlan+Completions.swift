import Storage

// The general plan's completions, computed from the words' postings instead of by reading every
// candidate in rank order (which is what settles the entries, and is far too long a read for the
// completions when the partial word's words are rare among many candidates).

extension SuggestContext {
    /// Completions when every match is typo-free: each word's best entry is its first document in
    /// `rest` (base numbers are rank order; delta documents are compared by key).
    func completeWithin(_ rest: [UInt32], terms: [[UInt8]], limit: Int, into acc: inout SuggestAccumulator,
                                in txn: borrowing ReadTransaction) throws {
        var bests: [(doc: UInt32, term: [UInt8])] = []
        var deltaBests: [(doc: UInt32, term: [UInt8])] = []
        let hasDelta = try txn.count(generation.schema.deltaTerms) > 0
        for term in terms {
            // Base: decode the word's postings lazily, probing `rest` by binary search, and stop at
            // the first hit (the best base one). Delta: every hit is kept and compared by key.
            var firstBase: UInt32?
            if let value = try txn.get(generation.schema.terms, term) {
                var cursor = try PostingCursor(value)
                while let doc = cursor.current {
                    if contains(rest, doc) { firstBase = doc; break }
                    try cursor.advance()
                }
            }
            if hasDelta {
                var delta: [UInt32] = []
                try generation.appendDeltaPostings(of: term, includeDescription: false, to: &delta, in: txn)
                for doc in delta where contains(rest, doc) { deltaBests.append((doc, term)) }
            }
            if let firstBase { bests.append((firstBase, term)) }
        }
        bests.sort { $0.doc != $1.doc ? $0.doc < $1.doc : $0.term.lexicographicallyPrecedes($1.term) }
        for item in bests.prefix(limit) + deltaBests {
            guard let doc = try generation.document(item.doc, in: txn) else { continue }
            acc.noteCompletion(item.term, distance: 0, key: Self.completionKey(doc, typos: 0), docnum: item.doc)
        }
    }

    /// Completions of a typo-tolerant partial word among `candidates` (sorted; the documents passing
    /// the complete words and tokens that have one of `terms`, the words the partial word matches).
    ///
    /// A word's best entry is its document with the fewest typos, the first in rank order among
    /// those (base numbers are rank order): its postings are merged with the candidates in order,
    /// each shared document is verified, and the merge stops at the first document with no more
    /// typos than any entry can have (`floor`). Completions rank by the word's distance first, so
    /// distances are taken in turn until `limit` words are known; nearer words come first, and no
    /// farther word can displace them. Delta documents (numbered after the base, not in rank
    /// order) are all verified and compared by key.
    ///
    /// Cost: the postings of the matching words, merged by galloping (O(p log(c/p))), plus a
    /// verification per word, instead of a verification per candidate ("thou stoucria" on the
    /// synthetic 1M catalog: 12,000 candidates, 17 words).
    mutating func completeTypoWords(_ candidates: [UInt32], terms: [(term: [UInt8], distance: Int)], floor: Int, limit: Int,
                                    into acc: inout SuggestAccumulator, in txn: borrowing ReadTransaction) throws {
        let hasDelta = try txn.count(generation.schema.deltaTerms) > 0
        // A document shared by several words is verified once.
        var verified: [UInt32: Int?] = [:]
        func typos(_ docnum: UInt32, _ context: inout SuggestContext) throws -> (Int, DocumentView)? {
            guard let doc = try context.generation.document(docnum, in: txn) else { return nil }
            if let known = verified[docnum] { return known.map { ($0, doc) } }
            let found = context.typos(of: doc, filtersHold: true)
            verified[docnum] = found
            return found.map { ($0, doc) }
        }
        var read = 0
        for distance in Set(terms.map(\.distance)).sorted() where acc.completions.count < limit {
            for (term, termDistance) in terms where termDistance == distance {
                var best: (typos: Int, doc: DocumentView)?
                if let value = try txn.get(generation.schema.terms, term) {
                    var postings = try PostingCursor(value)
                    var index = 0
                    while let docnum = postings.current, index < candidates.count {
                        try checkStop(&read)
                        index = gallop(candidates, to: docnum, from: index)
                        if index < candidates.count, candidates[index] == docnum, let (found, doc) = try typos(docnum, &self) {
                            if best == nil || found < best!.typos { best = (found, doc) }
                            if found <= floor { break }
                        }
                        try postings.advance()
                    }
                }
                if let best {
                    acc.noteCompletion(term, distance: distance, key: Self.completionKey(best.doc, typos: best.typos), docnum: best.doc.docnum)
                }
                if hasDelta {
                    var delta: [UInt32] = []
                    try generation.appendDeltaPostings(of: term, includeDescription: false, to: &delta, in: txn)
                    for docnum in delta where contains(candidates, docnum) {
                        guard let (found, doc) = try typos(docnum, &self) else { continue }
                        acc.noteCompletion(term, distance: distance, key: Self.completionKey(doc, typos: found), docnum: docnum)
                    }
                }
            }
        }
    }
}

/// The first index at or after `start` whose element of sorted `list` is at least `value`
/// (`list.count` if none): steps of doubling length, then a binary search, so a run of probes in
/// ascending order costs O(log gap) each.
func gallop(_ list: [UInt32], to value: UInt32, from start: Int) -> Int {
    var low = start, step = 1
    var high = start
    while high < list.count, list[high] < value {
        low = high + 1
        high += step
        step *= 2
    }
    high = min(high, list.count)
    while low < high {
        let mid = (low + high) / 2
        if list[mid] < value { low = mid + 1 } else { high = mid }
    }
    return low
}
