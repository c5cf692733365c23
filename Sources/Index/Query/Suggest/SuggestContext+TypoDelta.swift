import Storage
import Synchronization

/// A lone partial word's delta matches *with typos*, read from the delta's prefix lists
/// (``DeltaLists``) best-first, as far as the answer needs, instead of every matching document.
///
/// "limb" within one edit matches every delta word under "lib": with a fifth of Debian
/// re-weighted, 2,500 delta documents were read and ranked for entries and again for completions
/// (8 ms against 46 µs on a fresh shard). The walk of the delta's terms now stops where its row
/// is final (``Generation/deltaRegions(matching:in:)``): below such a prefix every delta word has
/// one distance `d`, and `delta_word_prefixes` lists the prefix's documents by weight.
///
/// **Entries.** A document met in a list of distance `d` has typos `d` at most; one with fewer
/// was entered at its own level before (levels are taken in turn). At typos `d > 0` no entry is
/// exact or starts with the text, so entries of one level rank by weight (then sortTitle and id):
/// once the entries are full and the worst ranks before (`d`, the next value's weight), nothing
/// left in the list can enter. Runs of one weight are read through (ties).
///
/// **Completions.** A completion ranks by (distance, typos of its best entry, weight, ...). An
/// unread document of a list of distance `d` has typos exactly `d` (one with fewer is a nearer
/// document, read whole: below) and words at distance `d` or more, so every pair it could note
/// ranks at or after (`d`, `d`, next weight). When at least `wanted` noted completions rank before
/// that, the list stops; and then every farther distance ranks after them too. The nearer
/// documents are those with a typo-free match, the typo-free prefix list read whole (at most
/// ``nearerDeltaLimit``: past it the caller notes every match, as before); at distance 2, the
/// documents of distance 1, read whole unless reading stopped there. Single matching terms (not
/// subtrees) have their few documents read whole.
extension SuggestContext {
    /// Most delta documents with a typo-free match read whole for completions at larger distances.
    static let nearerDeltaLimit = 1024

    /// For tests, which would not see these paths otherwise: prefix lists of typo'd delta matches
    /// left before their end (entries or completions), and completions noted from every match
    /// because the typo-free delta documents were too many.
    static let typoDeltaListsStoppedEarly = Atomic<Int>(0)
    static let typoDeltaCompletionsFromEveryMatch = Atomic<Int>(0)
    /// For tests: subtree lists left once every delta word under their prefix was met.
    static let typoDeltaListsFinishedByWords = Atomic<Int>(0)

    /// Enters the delta documents of `regions` (all at distance `level` > 0) that could rank among
    /// the entries. `considered` documents are skipped, and those read are added.
    mutating func enterTypoDeltaEntries(_ regions: [TermRegion], level: Int, lists: DeltaLists, considered: inout DocumentSet,
                                        _ acc: inout SuggestAccumulator, in txn: borrowing ReadTransaction) throws {
        guard acc.entries.limit > 0 else { return }
        var read = 0
        var docs: [UInt32] = []
        for region in regions where !region.isSubtree {
            try generation.appendDeltaPostings(of: region.prefix, includeDescription: false, to: &docs, in: txn)
        }
        for docnum in docs where considered.insert(docnum) {
            try checkStop(&read)
            guard let doc = try generation.document(docnum, in: txn) else { continue }
            try consider(doc, &acc)
        }
        let generation = self.generation
        for region in regions where region.isSubtree {
            try DeltaLists.forEach(in: lists.wordPrefixes, prefix: region.prefix, in: txn) { weight, docnum in
                if acc.entries.isFull, let worst = acc.entries.worst,
                   worst.typos < level || (worst.typos == level && worst.weight > weight) {
                    Self.typoDeltaListsStoppedEarly.add(1, ordering: .relaxed)
                    return false
                }
                try checkStop(&read)
                guard considered.insert(docnum), let doc = try generation.document(docnum, in: txn) else { return true }
                try consider(doc, &acc)
                return true
            }
        }
    }

    /// Notes the delta's completions of `partial` at the distances of `regions` (its delta matches
    /// with typos), and those of the typo-free delta documents at every distance, distance 0
    /// included (they are read whole: ``noteDeltaCompletions`` has nothing to add). Returns false,
    /// having noted nothing, when the typo-free documents are too many to read whole: the caller
    /// then reads them best-first and notes every typo'd match.
    func noteTypoDeltaCompletions(_ regions: [TermRegion], partial: QueryWord, lists: DeltaLists, wanted: Int,
                                  _ acc: inout SuggestAccumulator, in txn: borrowing ReadTransaction) throws -> Bool {
        guard wanted > 0, !regions.isEmpty else { return true }
        var nearer: [UInt32] = []
        try DeltaLists.forEach(in: lists.wordPrefixes, prefix: partial.bytes, in: txn) { _, docnum in
            nearer.append(docnum)
            return nearer.count <= Self.nearerDeltaLimit
        }
        guard nearer.count <= Self.nearerDeltaLimit else {
            Self.typoDeltaCompletionsFromEveryMatch.add(1, ordering: .relaxed)
            return false
        }
        var word = partial
        var noted = DocumentSet()
        var read = 0
        let generation = self.generation, shouldStop = self.shouldStop
        // Every offered name word within the budget, with the document's own typos; and, while a
        // subtree's list is read (`under`), its offered words under the subtree's prefix as met.
        var met = TermTable<Bool>()
        func note(_ docnum: UInt32, under prefix: [UInt8]? = nil) throws {
            try Self.checkStop(&read, shouldStop)
            let isNew = noted.insert(docnum)
            guard isNew || prefix != nil, let doc = try generation.document(docnum, in: txn) else { return }
            if isNew, let typos = Self.bestNameDistance(&word, doc) {
                let key = Self.completionKey(doc, typos: typos)
                doc.forEachOfferedWord(matching: { word.distance(to: $0) }) { name, distance in
                    acc.noteCompletion(name, distance: distance, key: key, docnum: docnum)
                }
            }
            if let prefix {
                doc.forEachOfferedWord(matching: { $0.starts(with: prefix) ? () : nil }) { name, _ in
                    _ = name.withUnsafeBytes { met.update($0) { $0 = true } }
                }
            }
        }
        for docnum in nearer { try note(docnum) }
        let distances = Set(regions.map(\.distance)).sorted()
        for distance in distances {
            if Self.finalCompletions(acc, before: distance, typos: distance, weight: .max, atLeast: wanted) { return true }
            let atDistance = regions.filter { $0.distance == distance }
            var docs: [UInt32] = []
            for region in atDistance where !region.isSubtree {
                try generation.appendDeltaPostings(of: region.prefix, includeDescription: false, to: &docs, in: txn)
            }
            for docnum in docs { try note(docnum) }
            var stopped = false
            for region in atDistance where region.isSubtree {
                var runWeight: UInt64?
                var listed = 0, checkWordsAt = 1
                met = TermTable<Bool>()
                try DeltaLists.forEach(in: lists.wordPrefixes, prefix: region.prefix, in: txn) { weight, docnum in
                    if weight != runWeight {
                        runWeight = weight
                        if Self.finalCompletions(acc, before: distance, typos: distance, weight: weight, atLeast: wanted) {
                            Self.typoDeltaListsStoppedEarly.add(1, ordering: .relaxed)
                            stopped = true
                            return false
                        }
                        // Every delta word under the prefix met in this list, each at its best
                        // document of the list (weight order, runs read through): what is left
                        // has typos `distance` (nearer documents were read whole) and less weight,
                        // so it improves no word. A prefix with fewer words than wanted ("pyhon3":
                        // "python3" in 800 delta documents) stops here instead of at its end.
                        // Only at the last distance: a farther one counts on this one's documents
                        // all being read (each is nearer there).
                        if distance == distances.last, listed >= checkWordsAt {
                            checkWordsAt *= 2
                            if try generation.deltaNameTerms(under: region.prefix, areAllIn: met, in: txn) {
                                Self.typoDeltaListsFinishedByWords.add(1, ordering: .relaxed)
                                return false
                            }
                        }
                    }
                    listed += 1
                    try note(docnum, under: region.prefix)
                    return true
                }
            }
            // Stopped: `wanted` words rank before everything unread at this distance, so before
            // every word at a farther one.
            if stopped { return true }
        }
        return true
    }

    /// Whether at least `count` noted completions rank before every completion at `distance`
    /// whose best entry has `typos` typos and at most `weight`: (distance, typos, weight
    /// descending) is how completions rank before their tiebreaks. O(completions noted).
    static func finalCompletions(_ acc: SuggestAccumulator, before distance: Int, typos: Int, weight: UInt64, atLeast count: Int) -> Bool {
        var final = 0
        for index in acc.completions.liveIndices {
            let value = acc.completions.entries[index].value
            if value.distance < distance
                || (value.distance == distance && (value.key.typos < typos || (value.key.typos == typos && value.key.weight > weight))) {
                final += 1
                if final >= count { return true }
            }
        }
        return false
    }
}
