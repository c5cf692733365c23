import Storage

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
            // A value of a document removed by a version without the lists: skipped.
            guard let doc = try generation.document(docnum, in: txn) else { return true }
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
    func noteDeltaCompletions(_ lists: DeltaLists, wanted: Int, _ acc: inout SuggestAccumulator,
                              in txn: borrowing ReadTransaction) throws {
        guard wanted > 0, let partial = query.partial?.bytes else { return }
        let generation = self.generation, shouldStop = self.shouldStop
        var read = 0, checkWordsAt = 1
        var runWeight: UInt64?
        var met = TermTable<Bool>()
        try DeltaLists.forEach(in: lists.wordPrefixes, prefix: partial, in: txn) { weight, docnum in
            if weight != runWeight {
                runWeight = weight
                if Self.finalCompletions(acc, before: 0, typos: 0, weight: weight, atLeast: wanted) { return false }
                if read >= checkWordsAt {
                    checkWordsAt *= 2
                    if try generation.deltaNameTerms(under: partial, areAllIn: met, in: txn) { return false }
                }
            }
            try Self.checkStop(&read, shouldStop)
            guard let doc = try generation.document(docnum, in: txn) else { return true }
            let key = Self.completionKey(doc, typos: 0)
            // A word the document does not offer is not met either: a document that offers it
            // may still be unread.
            doc.forEachOfferedWord(matching: { $0.hasPrefix(partial) ? () : nil }) { word, _ in
                acc.noteCompletion(word, distance: 0, key: key, docnum: docnum)
                _ = word.withUnsafeBytes { met.update($0) { $0 = true } }
            }
            return true
        }
    }

    /// Whether `key` ranks before every key with no typos, not exact, of the `startsWith` tier
    /// given and a weight of at most `weight`.
    static func ranksBeforeInexact(_ key: CandidateKey, startsWith: Bool, weight: UInt64) -> Bool {
        guard key.typos == 0 else { return false }
        if key.exact { return true }
        if key.startsWith != startsWith { return key.startsWith }
        return key.weight > weight
    }
}
