import Storage
import Synchronization

/// A lone partial word's typo-free delta matches, read from the delta's prefix lists
/// (``DeltaLists``) best-first and only as far as the answer needs, the way the trie plan reads a
/// heavy node's lists: by the trie plan (``SuggestContext/evaluateViaTrie(in:)``), and by the
/// partial-word plan for its distance 0 (``PartialWordPlan``).
///
/// **The trie plan reads only typo-free matches, and that is exact.** It answers only when its
/// entries are full of typo-free matches (or none are wanted) and, with typos possible, when its
/// top `wanted` completions have distance 0. A delta document that matches only with typos ranks
/// after every typo-free entry, so it enters full entries of typo-free ones never, and entries
/// that are not full fail the plan with or without it. Its completion words are all at a distance
/// above 0 (a word at distance 0 would make the document typo-free), so they rank after every
/// distance-0 word: the top `wanted` are the same without them whenever they are all at distance
/// 0, which the plan requires; otherwise it gives up either way. Likewise, a typo-free document's
/// words that match only with typos are left out. (The partial-word plan reads the typo'd ones
/// from the same lists, by the regions of the delta's own trie: SuggestContext+TypoDelta.swift.)
extension SuggestContext {
    /// Enters the delta's typo-free matches of the partial word that could rank among the entries:
    /// those whose title starts with it (`startsWith`, ``DeltaLists/firstPrefixes``), then the
    /// others (``DeltaLists/wordPrefixes``), each list read while what it still holds could enter.
    func enterDeltaEntries(_ lists: DeltaLists, startsWith: Bool, _ acc: inout SuggestAccumulator,
                                    in txn: borrowing ReadTransaction) throws {
        guard acc.entries.limit > 0, let partial = query.partial?.bytes else { return }
        let generation = self.generation, shouldStop = self.shouldStop
        var read = 0
        try DeltaLists.forEach(in: startsWith ? lists.firstPrefixes : lists.wordPrefixes, prefix: partial, in: txn) { weight, docnum in
            // Every value from here on has at most this weight, and its key is no better than
            // (no typos, inexact, this tier, weight): exact titles were entered before (the
            // exact tier), and a `startsWith` document met in the second list either was read in
            // the first or ranks after the worst entry that stopped it. Ties in weight are broken
            // by sortTitle and id, which the values do not give: the run of equal weights is read.
            if acc.entries.isFull, let worst = acc.entries.worst,
               Self.ranksBeforeInexact(worst, startsWith: startsWith, weight: weight) { return false }
            try Self.checkStop(&read, shouldStop)
            // A value of a document removed by a version without the lists: skipped. One entered
            // from the first list is met again in the second (a title starting with the word has
            // a word starting with it), and is not read again.
            guard let doc = try acc.knownDocument(docnum) ?? generation.document(docnum, in: txn) else { return true }
            // One partial word: the typed text is that word (``PreparedQuery/isExact(_:)``, ``PreparedQuery/startsWith(_:)``).
            let startsWith = doc.sortTitle.hasPrefix(partial)
            let key = CandidateKey(typos: 0, field: 0, exact: startsWith && doc.sortTitle.count == partial.count, startsWith: startsWith,
                                   weight: doc.weight, sortTitle: doc.sortTitle, id: doc.id)
            try acc.entries.insert(key, doc)
            return true
        }
    }

    /// Notes the delta's completions of the partial word: the typo-free documents with a name
    /// word under it, best-first, each noting its words under it, until the answer's words are
    /// proven to rank before anything still unread.
    ///
    /// A completion's order is (distance, typos, weight descending, sortTitle, id, word). Every
    /// unread document has at most the next value's weight `w`, so a word whose best noted entry
    /// (base or delta) has a greater weight, with distance 0 and no typos, is final: nothing
    /// unread can improve it or rank before it. Once `wanted` words are final, every other word's
    /// best, noted or unread, ranks after them, so the reading stops. And when every delta name
    /// word under the prefix has been met, each has its best delta entry already (met in weight
    /// order, the run of the weight it was met at read through), so unread documents can change
    /// nothing either: a prefix with fewer words than wanted ("python3", with thousands of
    /// documents) stops there instead of at the end of its list. Both are checked where the weight
    /// changes (within a run of one weight nothing becomes final), the second ever more rarely
    /// (it reads the delta's terms under the prefix).
    ///
    /// A prefix whose documents share few words reads on far ("pyt": python3-… everywhere, its
    /// fifth word in a light document 266 documents down). So after
    /// ``deltaDocumentsBeforeWords`` documents, a prefix with few delta words is finished word by
    /// word (``noteDeltaWordBests(_:_:wanted:_:in:)``); the words noted so far stay (each was
    /// noted with a real entry of its own, which the word's best can only improve on).
    func noteDeltaCompletions(_ lists: DeltaLists, wanted: Int, _ acc: inout SuggestAccumulator,
                              in txn: borrowing ReadTransaction) throws {
        guard wanted > 0, let partial = query.partial?.bytes else { return }
        if try noteDeltaDocuments(lists, partial: partial, wanted: wanted, budget: Self.deltaDocumentsBeforeWords, &acc, in: txn) { return }
        if let words = try generation.deltaNameWords(under: partial, atMost: Self.deltaWordsLimit, in: txn) {
            try noteDeltaWordBests(words, lists, wanted: wanted, &acc, in: txn)
            return
        }
        _ = try noteDeltaDocuments(lists, partial: partial, wanted: wanted, budget: .max, &acc, in: txn)
    }

    /// The document-by-document reading of ``noteDeltaCompletions(_:wanted:_:in:)``: true once the
    /// answer's words are proven, false when `budget` documents were read first.
    private func noteDeltaDocuments(_ lists: DeltaLists, partial: [UInt8], wanted: Int, budget: Int, _ acc: inout SuggestAccumulator,
                                    in txn: borrowing ReadTransaction) throws -> Bool {
        let generation = self.generation, shouldStop = self.shouldStop
        var read = 0, checkWordsAt = 1
        var runWeight: UInt64?
        var met = TermTable<Bool>()
        var finished = true
        try DeltaLists.forEach(in: lists.wordPrefixes, prefix: partial, in: txn) { weight, docnum in
            if weight != runWeight {
                runWeight = weight
                if Self.finalCompletions(acc, before: 0, typos: 0, weight: weight, atLeast: wanted) { return false }
                if read >= checkWordsAt {
                    checkWordsAt *= 2
                    if try generation.deltaNameTerms(under: partial, areAllIn: met, in: txn) { return false }
                }
            }
            guard read < budget else {
                finished = false
                return false
            }
            try Self.checkStop(&read, shouldStop)
            // The best delta documents were read for the entries already (most of them entered);
            // those read here are kept for the answer, which spells completions from them.
            guard let doc = try acc.document(docnum, from: generation, in: txn) else { return true }
            let key = Self.completionKey(doc, typos: 0)
            // A word the document does not offer is not met either: a document that offers it
            // may still be unread.
            doc.forEachOfferedWord(matching: { $0.hasPrefix(partial) ? () : nil }) { word, _ in
                acc.noteCompletion(word, distance: 0, key: key, docnum: docnum)
                _ = word.withUnsafeBytes { met.update($0) { $0 = true } }
            }
            return true
        }
        return finished
    }

    /// Delta documents read one by one for completions before a prefix with few delta words is
    /// finished word by word.
    static let deltaDocumentsBeforeWords = 32

    /// Delta name words under a prefix past which the delta's completions are read document by
    /// document (``noteDeltaCompletions(_:wanted:_:in:)``) rather than word by word.
    static let deltaWordsLimit = 64

    /// Name words of the delta with as many documents as this, at most, have their best document
    /// found by reading them all; past it, by reading the word's prefix list best-first.
    static let deltaWordDocumentsLimit = 16

    /// For tests: prefixes whose delta completions were found word by word.
    static let deltaCompletionsByWord = Atomic<Int>(0)

    /// The delta's completions of a prefix with few delta name words (`words`, all of them), word
    /// by word: each word's best delta document that offers it, the words taken best-first by a
    /// bound of their best, until the next bound is below the `wanted`-th best found.
    ///
    /// Why: a prefix whose delta documents are many but share few words ("pyt": python3-…) was
    /// read document by document until its fifth word turned up, in a light document far down
    /// (266 documents, 370 µs, with a fifth of Debian re-weighted). Word by word, that word's best
    /// document is found from its own lists.
    ///
    /// A word's best is at most the weight of the first value of its own prefix list (the best
    /// document with a name word starting with it). Its best document that offers it is read
    /// from its `delta_terms` documents when they are few, else from that prefix list best-first
    /// (a run of one weight is read through: ties are broken by sortTitle and id). Every word
    /// left unread has a bound below the `wanted`-th best weight found, so it ranks after those
    /// words: the same words as reading every document (``noteDeltaCompletions(_:wanted:_:in:)``).
    private func noteDeltaWordBests(_ words: [[UInt8]], _ lists: DeltaLists, wanted: Int, _ acc: inout SuggestAccumulator,
                                    in txn: borrowing ReadTransaction) throws {
        Self.deltaCompletionsByWord.add(1, ordering: .relaxed)
        var bounds: [(word: [UInt8], bound: UInt64)] = []
        for word in words {
            var bound: UInt64?
            try DeltaLists.forEach(in: lists.wordPrefixes, prefix: word, in: txn) { weight, _ in
                bound = weight
                return false
            }
            if let bound { bounds.append((word, bound)) }
        }
        bounds.sort { $0.bound > $1.bound }
        // The best weights found, descending, at most `wanted`.
        var found: [UInt64] = []
        func threshold() -> UInt64? { found.count >= wanted ? found[wanted - 1] : nil }
        var read = 0
        for (word, bound) in bounds {
            if let threshold = threshold(), bound < threshold { break }
            var best: (weight: UInt64, key: CandidateKey, docnum: UInt32)?
            func consider(_ docnum: UInt32, _ doc: DocumentView) {
                let key = Self.completionKey(doc, typos: 0)
                if best == nil || key < best!.key { best = (doc.weight, key, docnum) }
            }
            if let docs = try generation.deltaNameDocuments(of: word, atMost: Self.deltaWordDocumentsLimit, in: txn) {
                for docnum in docs {
                    try Self.checkStop(&read, shouldStop)
                    guard let doc = try generation.document(docnum, in: txn), doc.offersCompletion(word) else { continue }
                    consider(docnum, doc)
                }
            } else {
                try DeltaLists.forEach(in: lists.wordPrefixes, prefix: word, in: txn) { weight, docnum in
                    if let best, weight < best.weight { return false }
                    if let threshold = threshold(), weight < threshold { return false }
                    try Self.checkStop(&read, shouldStop)
                    guard let doc = try generation.document(docnum, in: txn), doc.offersCompletion(word) else { return true }
                    consider(docnum, doc)
                    return true
                }
            }
            guard let best else { continue }
            acc.noteCompletion(word, distance: 0, key: best.key, docnum: best.docnum)
            found.insert(best.weight, at: found.firstIndex { $0 < best.weight } ?? found.count)
            if found.count > wanted { found.removeLast() }
        }
    }

    /// Whether `key` ranks before every key with at least `typos` typos, not exact, of the
    /// `startsWith` tier given (or a later one) and a weight of at most `weight`.
    static func ranksBeforeInexact(_ key: CandidateKey, typos: Int = 0, startsWith: Bool, weight: UInt64) -> Bool {
        if key.typos != typos { return key.typos < typos }
        if key.exact { return true }
        if key.startsWith != startsWith { return key.startsWith }
        return key.weight > weight
    }
}
