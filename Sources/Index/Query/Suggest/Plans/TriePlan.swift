import Synchronization
import Storage

/// One partial word, no tokens, no complete words, and a heavy trie node for it: the node lists
/// the best base documents below the prefix, so a one-letter prefix over a million entries reads
/// two short lists instead of its subtree. Delta documents come from the delta's prefix lists,
/// best-first, as far as needed (`SuggestContext+DeltaLists.swift`), or are all evaluated in a generation
/// without them. The plan proves
/// its answer exact (every listed result ranks before anything the lists leave out) or gives up.
enum TriePlan: SuggestPlan {
    static let kind = SuggestPlanKind.trie

    static func evaluate(_ context: inout SuggestContext, in txn: borrowing ReadTransaction) throws -> PlanOutcome {
        PlanOutcome(try context.evaluateViaTrie(in: txn))
    }
}

extension SuggestContext {
    mutating func evaluateViaTrie(in txn: borrowing ReadTransaction) throws -> SuggestAccumulator? {
        guard query.complete.isEmpty, query.tokens.isEmpty, let partial = query.partial,
              let node = try generation.heavyNode(partial.bytes, in: txn) else { return nil }
        var acc = try newAccumulator(countCategories: false, in: txn)
        let typosPossible = partial.budget > 0

        // Delta documents: read best-first from the delta's prefix lists, as far as the answer
        // needs (``enterDeltaEntries``, ``noteDeltaCompletions``). Without complete lists (a
        // generation written before them), every one that matches, verified like any candidate.
        // An empty delta (a fresh or merged shard) needs neither: its lists are not looked up.
        let hasDelta = try txn.count(generation.schema.deltaTerms) > 0
        let lists = hasDelta ? try generation.deltaLists(in: txn) : nil
        if hasDelta && lists == nil {
            var deltaDocs: [UInt32] = []
            for (term, _) in try generation.deltaTerms(matching: partial, namesOnly: true, in: txn) {
                try generation.appendDeltaPostings(of: term, includeDescription: false, to: &deltaDocs, in: txn)
            }
            sortUnique(&deltaDocs)
            for docnum in deltaDocs {
                guard let doc = try generation.document(docnum, in: txn) else { continue }
                try consider(doc, &acc)
            }
        }

        // Base entries, in rank order: the startsWith list, then (only if that list is complete,
        // since otherwise unlisted startsWith documents outrank every other one) the rest of `all`.
        // Listed documents contain a word starting with the partial word: no typos, no verification.
        // (Exact titles were entered before, whatever the lists hold: ``newAccumulator``.)
        // Only the typed prefix, not a copy of the whole query (its words' strings, arrays and
        // automaton, retained and released): one partial word, so the prefix is that word.
        let typed = query.startsWithPrefix
        func baseKey(_ doc: DocumentView, startsWith: Bool) -> CandidateKey {
            let exact = startsWith && doc.sortTitle.count == typed.count && doc.sortTitle.hasPrefix(typed)
            return CandidateKey(typos: 0, field: 0, exact: exact, startsWith: startsWith,
                                weight: doc.weight, sortTitle: doc.sortTitle, id: doc.id)
        }
        // Whether a list's walk stopped at a listed document that could not enter the entries.
        var startsWithStopped = false, allStopped = false
        for docnum in node.startsWith where acc.entries.limit > 0 {
            if let deleted, try deleted.contains(docnum, in: txn) { continue }
            guard let doc = try generation.document(docnum, in: txn) else { continue }
            let key = baseKey(doc, startsWith: true)
            if acc.entries.isFull, let worst = acc.entries.worst, !(key < worst) { startsWithStopped = true; break }
            try acc.entries.insert(key, doc)
        }
        if let lists { try enterDeltaEntries(lists, startsWith: true, &acc, in: txn) }
        if !node.startsWithTruncated && acc.entries.limit > 0 {
            // Both lists hold at most `listSize` documents: a linear look-up beats hashing them.
            for docnum in node.all where !node.startsWith.contains(docnum) {
                if let deleted, try deleted.contains(docnum, in: txn) { continue }
                guard let doc = try generation.document(docnum, in: txn) else { continue }
                let key = baseKey(doc, startsWith: false)
                if acc.entries.isFull, let worst = acc.entries.worst, !(key < worst) { allStopped = true; break }
                try acc.entries.insert(key, doc)
            }
        }
        if let lists { try enterDeltaEntries(lists, startsWith: false, &acc, in: txn) }

        // Everything the lists leave out ranks after a bound: unlisted startsWith documents after the
        // last listed one, other unlisted documents after the last of `all`, and base documents that
        // match only with typos after every typo-free match. The answer is exact when every entry
        // returned ranks within the bounds and, if anything is left out, the entries are full.
        // Unlisted documents are outside the exact tier (all of it is entered), so the bounds are too.
        //
        // A list whose walk stopped needs no bound read (one document, a B-tree descent, less):
        // it stopped at a listed document D with worst ≤ key(D), so every entry ranks at or
        // before D; base documents are numbered in static rank order (weight descending,
        // sortTitle, id: the key's order at equal typos, startsWith and exactness), and a list
        // ascends, so key(D) ≤ the bound its last document gives (D's key with `exact` cleared,
        // as the bound's is, ranks no better, and an exact D ranks before every inexact key).
        // No entry then ranks after the bound, which is all the bound is checked for.
        var bound: CandidateKey?
        if node.startsWithTruncated && startsWithStopped {
            // Proven above: no bound to read.
        } else if node.startsWithTruncated, let last = node.startsWith.last, let doc = try generation.document(last, in: txn) {
            bound = baseKey(doc, startsWith: true)
            bound!.exact = false
        } else if node.allTruncated, !allStopped, let last = node.all.last, let doc = try generation.document(last, in: txn) {
            bound = baseKey(doc, startsWith: false)
        }
        func isSafe(_ key: CandidateKey, bound: CandidateKey?) -> Bool {
            if typosPossible && key.typos > 0 { return false }
            if let bound, bound < key { return false }
            return true
        }
        let entriesHidden = node.startsWithTruncated || node.allTruncated || typosPossible
        if entriesHidden {
            guard acc.entries.items.allSatisfy({ isSafe($0.key, bound: bound) }) else { return nil }
            guard acc.entries.isFull || acc.entries.limit == 0 else { return nil }
        }

        // Completions: the node lists the best terms below the prefix by their most popular
        // document; read with their live best (``LiveCompletions``) and merged with the delta's,
        // its first words decide the answer.
        guard acc.wantsCompletions else { return acc }
        let wanted = request.limits.completions
        acc.completions.reserveCapacity(terms: wanted, bytes: wanted * 16)
        let live = try liveCompletions(of: node, needed: wanted, in: txn)
        for (term, best) in live.words {
            guard let doc = try acc.document(best, from: generation, in: txn) else { return nil }
            acc.noteCompletion(term, distance: 0, key: Self.completionKey(doc, typos: 0), docnum: best)
        }
        // The delta's words, after the base's: the base's bests count towards proving them.
        if let lists { try noteDeltaCompletions(lists, wanted: wanted, &acc, in: txn) }
        // Every word not noted ranks at or after the bound; the answer's words must rank before it.
        var boundKey: CandidateKey?
        if let bound = live.bound {
            guard let doc = try acc.document(bound.best, from: generation, in: txn) else { return nil }
            boundKey = Self.completionKey(doc, typos: 0)
        }
        if live.bound != nil || typosPossible {
            let ranked = acc.rankedCompletions()
            acc.ranking = ranked
            let proven = ranked.count >= wanted && ranked.prefix(wanted).allSatisfy { index in
                let item = acc.completions.entries[index].value
                guard item.distance == 0 else { return false }
                if let bound = live.bound, let boundKey {
                    if boundKey < item.key { return false }
                    if !(item.key < boundKey),
                       !acc.completions.withTerm(at: index, { $0.lexicographicallyPrecedes(bound.term) }) { return false }
                }
                return true
            }
            if !proven {
                // A list that holds every word under the prefix (no bound) has shown them all, too few:
                // the listed entries can show no other (with typos possible, words farther away are
                // wanted, which only the partial word's plan finds). Most typo'd keystrokes of four
                // letters or more end here ("tour" on the synthetic 1M catalog has two words).
                guard live.bound != nil else { return nil }
                guard try completeFromListedEntries(node, partial: partial.bytes, wanted: wanted, typosPossible: typosPossible, &acc,
                                                    in: txn) else { return nil }
            }
        }
        return acc
    }

    /// Readings of a node's listed entries for completions (for tests: a path only its speed
    /// would otherwise show).
    static let listedEntriesReadings = Atomic<Int>(0)

    /// Completions proven from the node's `all` list when its completion list cannot prove them.
    ///
    /// Why: updates re-weight the most popular entries, whose words are the ones a node lists,
    /// and a word whose listed best is deleted moves past the list's bound ("S" on cities with a
    /// fifth of the entries re-weighted: every listed word moved, and the keystroke read the
    /// postings of every "s…" word, 2.7 ms, until the next merge).
    ///
    /// The `all` list holds the best base documents with a name word under the prefix, in rank
    /// order, so a word's best base entry is the first live listed document that offers it, if any
    /// does; a word none offers has its best after the list's last document (when the list was
    /// truncated; else it has no base entry). So the words of the live listed documents, noted in
    /// order, are exact, and the answer stands when its words rank no later than that last
    /// document (a word it offers is exact; every other ranks strictly after it). The delta's words
    /// are noted already. Cost: the listed documents, at most ``TrieParameters/listSize``.
    private mutating func completeFromListedEntries(_ node: HeavyNode, partial: [UInt8], wanted: Int, typosPossible: Bool,
                                                    _ acc: inout SuggestAccumulator, in txn: borrowing ReadTransaction) throws -> Bool {
        Self.listedEntriesReadings.add(1, ordering: .relaxed)
        for docnum in node.all {
            if let deleted, try deleted.contains(docnum, in: txn) { continue }
            guard let doc = try acc.document(docnum, from: generation, in: txn) else { continue }
            Self.noteTypoFreeCompletions(of: doc, under: partial, into: &acc)
        }
        var boundKey: CandidateKey?
        if node.allTruncated {
            guard let last = node.all.last, let doc = try acc.document(last, from: generation, in: txn) else { return false }
            boundKey = Self.completionKey(doc, typos: 0)
        }
        let ranked = acc.rankedCompletions()
        acc.ranking = ranked
        guard ranked.count >= wanted || (boundKey == nil && !typosPossible) else { return false }
        return ranked.prefix(wanted).allSatisfy { index in
            let item = acc.completions.entries[index].value
            return item.distance == 0 && !(boundKey.map { $0 < item.key } ?? false)
        }
    }
}
