import Storage
import Synchronization

// The general plan's completions, computed from the words' postings instead of by reading every
// candidate in rank order (which is what settles the entries, and is far too long a read for the
// completions when the partial word's words are rare among many candidates).

extension SuggestContext {
    /// Completions when every match is typo-free: each word's best entry is its first document in
    /// `rest` (base numbers are rank order; delta documents are compared by key). No document is
    /// verified: passing `rest` and having the word is matching with no typo.
    ///
    /// Once `limit` words have a base best, a word's postings are read only up to the worst of
    /// them (a later first document cannot rank among the first `limit`), and a word's offers
    /// (``CompletionOffers``, a look-up) are fetched only when one of its postings is in `rest`:
    /// "grekrou cro" on the synthetic 1M catalog asks 126 words, most of them in none of the
    /// 2,526 documents with "grekrou".
    ///
    /// With the forward index (`ordinals`, the prefix's range), `rest` may be read in rank order
    /// through it instead, as ``completeWithinByForward(_:prefix:ordinals:words:limit:into:in:)`` says.
    func completeWithin(_ rest: [UInt32], terms: [[UInt8]], prefix: [UInt8], ordinals: Range<UInt32>?, limit: Int,
                        into acc: inout SuggestAccumulator,
                        in txn: borrowing ReadTransaction) throws {
        var bests: [(doc: UInt32, term: [UInt8])] = []
        var deltaBests: [(doc: UInt32, term: [UInt8])] = []
        let hasDelta = try txn.count(generation.schema.deltaTerms) > 0
        // The delta's documents of `rest` with a word under the prefix, from the prefix's list
        // when it is shorter than what the words' own postings would cost: each word is a descent
        // into `delta_terms` ("python3-fo" with a fifth of Debian re-weighted: 256 words).
        // A longer list is walked best-first instead, once the base's words are noted
        // (``noteDeltaCompletions(among:prefix:lists:limit:into:in:)``).
        var deltaDocs: [UInt32]?
        var deltaWalk: DeltaLists?
        if hasDelta, let lists = try generation.deltaLists(in: txn) {
            if let listed = try DeltaLists.documents(in: lists.wordPrefixes, prefix: prefix,
                                                     atMost: terms.count * Self.deltaListValuesPerWord, in: txn) {
                deltaDocs = intersect(listed, rest)
            } else {
                deltaWalk = lists
            }
        }
        var read = 0
        let baseDone = try completeWithinByForward(rest, prefix: prefix, ordinals: ordinals, words: terms.count, limit: limit,
                                                   into: &acc, in: txn)
        // The first `limit` base bests (all typo-free); the worst bounds the reading.
        var kept = BestBaseEntries(limit: limit)
        for term in terms {
            let generation = generation
            let until = kept.worstOnceFull?.docnum ?? .max
            if limit > 0, !baseDone, let postings = try txn.get(generation.schema.terms, term) {
                var offers: CompletionOffers?
                try Self.forEachBasePosting(postings, in: rest, until: until, shouldStop: shouldStop, read: &read) { doc in
                    if offers == nil { offers = try generation.completionOffers(of: term, in: txn) }
                    guard try offers!.offers(doc, in: generation, txn) else { return true }
                    bests.append((doc, term))
                    kept.insert(typos: 0, docnum: doc)
                    return false
                }
            }
            if hasDelta, deltaDocs == nil, deltaWalk == nil {
                for doc in try deltaPostings(of: term[...], in: rest, in: txn) { deltaBests.append((doc, term)) }
            }
        }
        for docnum in deltaDocs ?? [] {
            guard let doc = try generation.document(docnum, in: txn) else { continue }
            Self.noteTypoFreeCompletions(of: doc, under: prefix, into: &acc)
        }
        bests.sort { $0.doc != $1.doc ? $0.doc < $1.doc : $0.term.lexicographicallyPrecedes($1.term) }
        for item in bests.prefix(limit) + deltaBests {
            guard let doc = try generation.document(item.doc, in: txn), doc.offersCompletion(item.term) else { continue }
            acc.noteCompletion(item.term, distance: 0, key: Self.completionKey(doc, typos: 0), docnum: item.doc)
        }
        if let deltaWalk { try noteDeltaCompletions(among: rest, prefix: prefix, lists: deltaWalk, limit: limit, into: &acc, in: txn) }
    }

    /// The delta's typo-free completions among `rest`, its documents with a word under `prefix`
    /// read best-first from the prefix's list, the base's best words noted already.
    ///
    /// Why: "Camakee Ca" with a fifth of the synthetic 1M catalog re-weighted has 100,000 delta
    /// candidates with "camakee", and reading each word's delta documents in `rest` read them all
    /// (36 ms). Every unread document has at most the next value's weight `w` and no typos, so a
    /// noted word whose best entry has a greater weight is final (nothing unread improves it or
    /// ranks before it); once `limit` are, every other word ranks after them: a word left out by
    /// the base's first `limit` ranks after those, and an unread delta entry after the final ones.
    /// Checked where the weight changes: ties are broken by sortTitle and id, so a run of one
    /// weight is read through.
    private func noteDeltaCompletions(among rest: [UInt32], prefix: [UInt8], lists: DeltaLists, limit: Int,
                                      into acc: inout SuggestAccumulator, in txn: borrowing ReadTransaction) throws {
        guard limit > 0 else { return }
        Self.deltaCompletionWalks.add(1, ordering: .relaxed)
        let generation = self.generation, shouldStop = self.shouldStop
        var read = 0
        var runWeight: UInt64?
        try DeltaLists.forEach(in: lists.wordPrefixes, prefix: prefix, in: txn) { weight, docnum in
            if weight != runWeight {
                runWeight = weight
                if Self.finalCompletions(acc, before: 0, typos: 0, weight: weight, atLeast: limit) { return false }
            }
            try Self.checkStop(&read, shouldStop)
            guard contains(rest, docnum), let doc = try generation.document(docnum, in: txn) else { return true }
            Self.noteTypoFreeCompletions(of: doc, under: prefix, into: &acc)
            return true
        }
    }

    /// The base part of ``completeWithin(_:terms:prefix:ordinals:limit:into:in:)`` from the forward index:
    /// the base documents of `rest`, in rank order, are tested for a name word starting with
    /// `prefix` (their ordinals), and those that have one are read and their offered words noted,
    /// until `limit` words are. A word's first document in that order is its best entry, and a
    /// word first met later ranks after every word met before (base numbers are rank order), so
    /// the first `limit` words met, with every word of the document that completes them, are the
    /// base's best `limit`, exactly. A document is read only if it has a word under the prefix
    /// not noted yet (by ordinal): "camakee cama" has "camakee" in every candidate.
    ///
    /// Why: the postings of the words under a common prefix are long, and merging them into a
    /// short `rest` read all of them ("grekrou cro" on the synthetic 1M catalog: 126 words against
    /// 2,526 candidates, 150 µs). Testing a candidate here is a few loads.
    ///
    /// But a word's postings stop at its first candidate: with candidates a fraction `r` of the
    /// base, after about `1/r` postings each if words and candidates are independent. So the walk
    /// is taken only when all of `rest` costs less than that estimate for all `words`, a test
    /// costing ``forwardTestCostInPostings`` postings ("camakee cama", among half a million
    /// candidates, is left to the postings). False when it is not taken, or the generation has
    /// no forward index: the postings decide.
    private func completeWithinByForward(_ rest: [UInt32], prefix: [UInt8], ordinals range: Range<UInt32>?, words: Int, limit: Int,
                                         into acc: inout SuggestAccumulator, in txn: borrowing ReadTransaction) throws -> Bool {
        guard limit > 0 else { return true }
        let base = generation.baseCount
        let (square, overflow) = rest.count.multipliedReportingOverflow(by: rest.count * Self.forwardTestCostInPostings)
        guard !rest.isEmpty, !overflow, square < words * Int(base) else { return false }
        guard let range, var forward = generation.forwardReader() else { return false }
        Self.forwardCompletionWalks.add(1, ordering: .relaxed)
        let before = acc.completions.count
        // The ordinals of the words noted (a word a document has but does not offer stays unseen:
        // a later document may offer it).
        var seen: [UInt32] = []
        var checked = 0
        for docnum in rest {
            guard docnum < base else { return true }
            try checkStop(&checked)
            guard try forward.hasOrdinal(in: range, notIn: seen, docnum, txn) ?? true,
                  let doc = try generation.document(docnum, in: txn) else { continue }
            let key = Self.completionKey(doc, typos: 0)
            try doc.forEachOfferedWord(matching: { $0.starts(with: prefix) ? () : nil }) { word, _ in
                acc.noteCompletion(word, distance: 0, key: key, docnum: docnum)
                if let ordinal = try generation.nameOrdinal(of: word, in: txn), !seen.contains(ordinal) { seen.append(ordinal) }
            }
            if acc.completions.count - before >= limit { return true }
        }
        return true
    }

    /// What a word's delta postings cost (a descent into `delta_terms`) in values of a delta
    /// prefix list read in a row.
    static let deltaListValuesPerWord = 16

    /// What testing a candidate through the forward index costs in postings read and galloped:
    /// 10–15 ns against 3–5 ns, the candidates' chunk in hand.
    static let forwardTestCostInPostings = 3

    /// Walks taken by ``completeWithinByForward(_:prefix:ordinals:words:limit:into:in:)`` (tests check that
    /// they take it).
    static let forwardCompletionWalks = Atomic<Int>(0)

    /// Walks taken by ``noteDeltaCompletions(among:prefix:lists:limit:into:in:)`` (tests check that
    /// they take it).
    static let deltaCompletionWalks = Atomic<Int>(0)

    /// Completions of a typo-tolerant partial word among the candidates (the documents passing the
    /// complete words and tokens that have one of `terms`, the words the partial word matches),
    /// in the general plan's passes: the candidates by a lower bound of their typos (pass `p` holds
    /// documents with at least `max(floor, p)` typos; ``TypoPass`` tells them apart as they are met).
    ///
    /// A word's best entry is its document with the fewest typos, the first in rank order among
    /// those (base numbers are rank order). Its postings are galloped against each pass in turn,
    /// each shared document verified; a pass is left at its first document that has no more typos
    /// than the pass's bound (nothing later in it is better), and the passes stop once the best so
    /// far has fewer typos than the next pass's bound (nothing there is better; at an equal bound
    /// only earlier documents could be). So a common word ("camakee" in half the catalog) whose
    /// only good entries are rare is read through the few documents of the exact pass, not through
    /// all its postings. Completions rank by the word's distance first, so distances are taken in
    /// turn until `limit` words are known; nearer words come first, and no farther word can
    /// displace them. Delta documents (numbered after the base, not in rank order) are all
    /// verified and compared by key.
    ///
    /// Cost: the postings of the matching words, merged by galloping (O(p log(c/p))), plus a
    /// verification per word and pass, instead of a verification per candidate ("thou stoucria"
    /// on the synthetic 1M catalog: 12,000 candidates, 17 words).
    mutating func completeTypoWords(_ passes: CandidatePasses, terms: TermList, floor: Int,
                                    limit: Int, into acc: inout SuggestAccumulator, in txn: borrowing ReadTransaction) throws {
        let hasDelta = try txn.count(generation.schema.deltaTerms) > 0
        // A document shared by several words is read and verified once: its typos (-1 no match).
        // Only the documents of the words' postings met in a pass are verified (at most a few
        // thousand), so a dictionary of numbers, not an array over all candidates (half a million
        // for "camakee …", cleared on every keystroke).
        var verified: [UInt32: Int8] = [:]
        func typos(_ docnum: UInt32, _ context: inout SuggestContext) throws -> Int? {
            if let known = verified[docnum] { return known >= 0 ? Int(known) : nil }
            var found: Int8 = -1
            if let doc = try context.generation.document(docnum, in: txn), let typos = context.typos(of: doc, filtersHold: true) {
                found = Int8(clamping: typos)
            }
            verified[docnum] = found
            return found >= 0 ? Int(found) : nil
        }
        func note(_ term: ArraySlice<UInt8>, _ distance: Int, _ docnum: UInt32, typos: Int, _ acc: inout SuggestAccumulator) throws {
            guard let doc = try generation.document(docnum, in: txn) else { return }
            acc.noteCompletion(term, distance: distance, key: Self.completionKey(doc, typos: typos), docnum: docnum)
        }
        var read = 0
        for distance in Self.distinctLevels(terms.distances) where acc.completions.count < limit {
            // Every completion noted so far is nearer, so this distance fills the rest.
            let wanted = limit - acc.completions.count
            // The words by their first base posting: a word's best base entry is that document or
            // a later one, in rank order, with at least `floor` typos.
            // A word as its position in `terms`, not a slice of it: sorting thousands of slices
            // retained and released each on every move ("New Terr": a fifth of the keystroke).
            var listed: [(term: Int, postings: Bytes?)] = []
            // Each word's first posting and its place in `listed`, packed to be sorted by the first
            // (``sortPairsByKey(_:)``).
            var order: [UInt64] = []
            // One cursor for the words, in byte order, as the candidates' readers use: a key on the
            // page the cursor stands on is found without descending the tree again (the values stay
            // valid for the transaction).
            try txn.withCursor(generation.schema.terms) { cursor in
                for index in terms.indices(atDistance: distance) {
                    let postings = try cursor.seek(terms.term(at: index))?.value
                    let first = try postings.flatMap { try PostingCursor($0).current } ?? .max
                    order.append(UInt64(first) << 32 | UInt64(listed.count))
                    listed.append((index, postings))
                }
            }
            sortPairsByKey(&order)
            let words = order.lazy.map { packed in
                let word = listed[Int(truncatingIfNeeded: packed & 0xFFFF_FFFF)]
                return (term: word.term, postings: word.postings, first: UInt32(truncatingIfNeeded: packed >> 32))
            }
            // The best entries (typos, number) of the `wanted` best words new at this distance, from
            // base documents. Once there are `wanted` with `floor` typos, a word whose first
            // posting comes after the worst of them ranks after all of them: its base postings are
            // not read, and, without a delta, neither are those of the words after it. "Fort
            // Wort" (cities) has thousands of words within one edit of "wort".
            var kept = BestBaseEntries(limit: wanted)
            var skipped = 0
            // Each pass's bitmap, made at its first walk when the words are many ("New Terr" on
            // cities: 1,298 words one edit from "terr", whose postings galloped into the documents
            // with "new" were half the keystroke).
            var bitmaps = [DocumentBitmap?](repeating: nil, count: passes.passes.upperBound)
            defer { if skipped > 0 { Self.typoCompletionWordsOutranked.add(skipped, ordering: .relaxed) } }
            for (index, (termIndex, postings, first)) in words.enumerated() {
                let term = terms.term(at: termIndex)
                let outranked = kept.outrank(typos: floor, docnum: first)
                if outranked, !hasDelta {
                    skipped += words.count - index
                    break
                }
                if outranked { skipped += 1 }
                if !outranked, let postings {
                    var best: (typos: Int, docnum: UInt32)?
                    // Looked up at the word's first candidate: most words have none.
                    var offers: CompletionOffers?
                    let generation = generation
                    for pass in passes.passes {
                        let bound = max(floor, pass)
                        if let best, best.typos < bound { break }
                        var (docs, members) = passes.walk(pass)
                        if bitmaps[pass] == nil, Self.testsPostingsByBitmap(words: words.count, passDocuments: docs) {
                            bitmaps[pass] = DocumentBitmap(docs)
                            Self.typoCompletionBitmapPasses.add(1, ordering: .relaxed)
                        }
                        try Self.forEachBasePosting(postings, in: docs, bitmap: bitmaps[pass], shouldStop: shouldStop, read: &read) { docnum in
                            guard members == nil || members!.contains(docnum) else { return true }
                            if offers == nil { offers = try generation.completionOffers(of: term, in: txn) }
                            guard try offers!.offers(docnum, in: generation, txn) else { return true }
                            // At an equal bound, only an earlier document could still be better.
                            if let best, best.typos == bound, docnum > best.docnum { return false }
                            guard let found = try typos(docnum, &self) else { return true }
                            if best == nil || found < best!.typos || (found == best!.typos && docnum < best!.docnum) {
                                best = (found, docnum)
                            }
                            return found > bound
                        }
                    }
                    if let best {
                        let known = acc.completions.count
                        try note(term, distance, best.docnum, typos: best.typos, &acc)
                        // Only a word new at this distance competes for it.
                        if acc.completions.count > known { kept.insert(typos: best.typos, docnum: best.docnum) }
                    }
                }
                if hasDelta {
                    // A delta document outside the candidates is not one.
                    for docnum in try deltaPostings(of: term, in: passes.candidates, in: txn) {
                        guard let doc = try generation.document(docnum, in: txn), doc.offersCompletion(term),
                              let found = try typos(docnum, &self) else { continue }
                        try note(term, distance, docnum, typos: found, &acc)
                    }
                }
            }
        }
    }

    /// For tests: words whose base postings ``completeTypoWords(_:terms:floor:limit:into:in:)`` left
    /// unread, outranked by the words it had noted.
    static let typoCompletionWordsOutranked = Atomic<Int>(0)

    /// Calls `body` with each base document of a term's name postings (`value`, rank order) that is in
    /// sorted `candidates`, in order, until it returns false or the postings pass `last`. The
    /// postings are galloped against the candidates, so a run of probes costs O(log gap) each;
    /// with `bitmap` (the candidates' ``DocumentBitmap``), each is one test instead.
    ///
    /// A static function, not a method: called from a mutating method with a closure that mutates
    /// the context, a method would make Swift copy the whole context (and retain each of its
    /// references) on every call, once per word: a fifth of "Fort Wort" (cities, typos on).
    private static func forEachBasePosting(_ value: Bytes, in candidates: [UInt32], bitmap: DocumentBitmap? = nil,
                                           until last: UInt32 = .max, shouldStop: (@Sendable () -> Bool)?, read: inout Int,
                                           _ body: (UInt32) throws -> Bool) throws {
        guard let final = candidates.last else { return }
        var postings = try PostingCursor(value)
        if let bitmap {
            let end = min(last, final)
            while let docnum = postings.current, docnum <= end {
                try checkStop(&read, shouldStop)
                if bitmap.contains(docnum), try !body(docnum) { return }
                try postings.advance()
            }
            return
        }
        var index = 0
        while let docnum = postings.current, docnum <= last, index < candidates.count {
            try checkStop(&read, shouldStop)
            index = gallop(candidates, to: docnum, from: index)
            if index < candidates.count, candidates[index] == docnum, try !body(docnum) { return }
            try postings.advance()
        }
    }

    /// Whether ``completeTypoWords(_:terms:floor:limit:into:in:)`` tests its words' postings
    /// against a pass's bitmap rather than galloping them into its list: when the words are many
    /// (each of their postings would be a few probes into the list, most of them cache misses), and
    /// the bitmap (a bit for every number up to the pass's last) costs no more to clear than
    /// ``bitmapWordsPerWord`` of its 64-bit words per word walked.
    static func testsPostingsByBitmap(words: Int, passDocuments docs: [UInt32]) -> Bool {
        guard words >= postingsBitmapMinimumWords, let last = docs.last else { return false }
        return Int(last) >> 6 <= bitmapWordsPerWord * words
    }

    /// Words at one distance from which ``testsPostingsByBitmap(words:passDocuments:)`` holds.
    static let postingsBitmapMinimumWords = 128
    /// Bitmap words cleared per word walked, at most.
    static let bitmapWordsPerWord = 64

    /// Passes whose postings ``completeTypoWords(_:terms:floor:limit:into:in:)`` tested against a
    /// bitmap (for tests).
    static let typoCompletionBitmapPasses = Atomic<Int>(0)

    /// The delta documents of `term` (name postings) that are in sorted `candidates`.
    private func deltaPostings(of term: ArraySlice<UInt8>, in candidates: [UInt32], in txn: borrowing ReadTransaction) throws -> [UInt32] {
        var delta: [UInt32] = []
        try generation.appendDeltaPostings(of: term, includeDescription: false, to: &delta, in: txn)
        return delta.filter { contains(candidates, $0) }
    }
}

/// The best base entries of the words ``SuggestContext/completeTypoWords(_:terms:floor:limit:into:in:)``
/// has noted at one distance (or ``SuggestContext/completeWithin(_:terms:limit:into:in:)``, all
/// typo-free), as (typos, document number), which for base documents is their rank order; at most
/// `limit`, the worst last.
struct BestBaseEntries {
    let limit: Int
    private var entries: [(typos: Int, docnum: UInt32)] = []

    init(limit: Int) { self.limit = limit }

    mutating func insert(typos: Int, docnum: UInt32) {
        let index = entries.firstIndex { ($0.typos, $0.docnum) > (typos, docnum) } ?? entries.count
        guard index < limit else { return }
        entries.insert((typos, docnum), at: index)
        if entries.count > limit { entries.removeLast() }
    }

    /// The worst kept entry, once `limit` are kept (nil before, and for a limit of 0).
    var worstOnceFull: (typos: Int, docnum: UInt32)? { entries.count == limit ? entries.last : nil }

    /// Whether `limit` kept entries all rank before any base entry with at least `typos` typos
    /// at or after document `docnum`.
    func outrank(typos: Int, docnum: UInt32) -> Bool {
        guard limit > 0 else { return true }
        guard let worst = worstOnceFull else { return false }
        return (worst.typos, worst.docnum) < (typos, docnum)
    }
}
