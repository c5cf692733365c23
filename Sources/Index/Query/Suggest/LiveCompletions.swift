import Storage

/// The words a heavy trie node lists as completions, each with its best *live* base entry, read in
/// list order only as far as an answer of `needed` words needs (``SuggestContext/liveCompletions(of:needed:in:)``).
///
/// A node lists the words below its prefix by their best base entry at build time, as
/// `(best, word)` pairs in ascending order (base numbers are static rank order). Updates delete
/// base entries without touching the node, and a word whose listed best is deleted has its real
/// best further down its postings: it moves *later*, never earlier. So the list still bounds what
/// it does not show. A word left unread ranks at or after its own listed pair, which is at or
/// after the pair of the first word left unread. Reading stops once `needed` words are known
/// that all rank before that pair.
///
/// Why it matters: a live catalog re-weights its most popular entries all day, and those are
/// exactly the best entries the lists name. Giving up on the first deleted best sent "li" on a
/// Debian shard from the trie (8 µs) to a walk of every "li…" word (2.3 ms) until the next merge.
/// In a 30-minute soak that saturated both replicas of a shard for half a minute.
struct LiveCompletions {
    /// Listed words with their best live base entry, ascending by `(best, term)`. Words whose
    /// every base entry is deleted are left out (their delta entries, if any, are the caller's).
    var words: [(term: [UInt8], best: UInt32)] = []
    /// Every listed or unlisted word below the prefix that is not in ``words`` ranks at or after
    /// this `(best, term)`; nil when none is left out.
    var bound: (best: UInt32, term: [UInt8])?

    /// The list's order: by best entry, then by the word's bytes.
    static func precedes(_ a: (term: [UInt8], best: UInt32), _ best: UInt32, _ term: some Collection<UInt8>) -> Bool {
        a.best != best ? a.best < best : a.term.lexicographicallyPrecedes(term)
    }
}

extension SuggestContext {
    /// The node's listed completions with their best live base entries; see ``LiveCompletions``.
    ///
    /// Cost: the first `needed` list entries plus one, one deleted-set look-up each, and for a word
    /// whose listed best is deleted, its postings up to the first live one. Without deletions this
    /// is the list prefix the plans always read.
    func liveCompletions(of node: HeavyNode, needed: Int, in txn: borrowing ReadTransaction) throws -> LiveCompletions {
        var live = LiveCompletions()
        live.words.reserveCapacity(needed)
        var last: (best: UInt32, term: [UInt8])?
        var stopped = false
        try node.forEachCompletion(first: .max) { term, listedBest in
            // Every word from this one on ranks at or after (listedBest, term).
            if live.words.count >= needed {
                if needed == 0 || LiveCompletions.precedes(live.words[needed - 1], listedBest, term) {
                    live.bound = (listedBest, Array(term))
                    stopped = true
                    return false
                }
            }
            let isDeleted = try deleted?.contains(listedBest, in: txn) ?? false
            let word = Array(term)
            last = (listedBest, word)
            // A generation that records no variants may list an entry that does not offer the word
            // (its builds listed the first posting): then its real best is later, as for a deleted one.
            let listed = try !isDeleted && (generation.listsOfferedBests
                                            || generation.completionOffers(of: word, in: txn).offers(listedBest, in: generation, txn))
            guard let best = listed ? listedBest : try firstOffering(of: word, in: txn) else { return true }
            // Keep the order: a moved word lands after the words it now ranks behind.
            let position = live.words.firstIndex { LiveCompletions.precedes((word, best), $0.best, $0.term) }
            live.words.insert((word, best), at: position ?? live.words.count)
            return true
        }
        if !stopped, node.completionsTruncated, let last {
            // Unlisted words rank strictly after the last listed pair: at or after its successor
            // (the same entry, the term followed by the smallest byte).
            live.bound = (last.best, last.term + [0])
        }
        return live
    }
}
