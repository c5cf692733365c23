import Storage
import Synchronization

/// What a suggest plan gathers: the best entries, the best entry of every completion word, and
/// per-category counts of the rest of the query; and what the plan knows of everything it has not
/// read yet (the best class left, open completion words), which decides when it may stop.
struct SuggestAccumulator {
    var entries: TopCandidates
    /// Every completion word noted, with its distance and best entry so far.
    var completions = TermTable<CompletionCandidate>()
    var wantsCompletions: Bool
    /// Non-nil when counting chips (categories, attribute values) of entries matching the
    /// complete words and tokens.
    var categoryCounts: [SearchToken: Int]?

    /// Documents read for the completions' best entries, kept so that the answer, which spells
    /// each completion from its best entry, does not read them again: a read is a B-tree descent
    /// and a decode, and the answer read five of a one-word keystroke's seventeen again. At most
    /// ``maximumReadDocuments``, the first read (a plan reads its completions' bests in rank
    /// order, best first); views of this query's read transaction only, as the accumulator is.
    private(set) var readDocuments: [DocumentView] = []
    static let maximumReadDocuments = 16

    /// Document `docnum`: from the entries or the documents read before when there, else read
    /// (and kept, within the bound).
    mutating func document(_ docnum: UInt32, from generation: Generation, in txn: borrowing ReadTransaction) throws -> DocumentView? {
        if let doc = knownDocument(docnum) { return doc }
        guard let doc = try generation.document(docnum, in: txn) else { return nil }
        if readDocuments.count < Self.maximumReadDocuments {
            if readDocuments.isEmpty { readDocuments.reserveCapacity(Self.maximumReadDocuments) }
            readDocuments.append(doc)
        }
        return doc
    }

    /// Document `docnum` if it is an entry or was read through ``document(_:from:in:)``.
    func knownDocument(_ docnum: UInt32) -> DocumentView? {
        if let item = entries.items.first(where: { $0.docnum == docnum }) { return item.doc }
        return readDocuments.first { $0.docnum == docnum }
    }

    mutating func noteCompletion(_ term: Bytes, distance: Int, key: CandidateKey, docnum: UInt32) {
        term.withUnsafeBytes { noteCompletion($0, distance: distance, key: key, docnum: docnum) }
    }

    mutating func noteCompletion(_ word: some StorageKey, distance: Int, key: CandidateKey, docnum: UInt32) {
        word.withStorageBytes { noteCompletion($0, distance: distance, key: key, docnum: docnum) }
    }

    /// ``rankedCompletions()`` as a plan last computed it, kept for the answer (nil once another
    /// completion is noted): the trie plan ranks them to prove its answer, and the answer is
    /// written in that order, so they are not sorted twice.
    var ranking: [Int]?

    /// The completion words' entry numbers in answer order: (distance, best entry's key, term bytes).
    func rankedCompletions() -> [Int] {
        if let ranking { return ranking }
        // The table alone, not `self`, is what the comparator captures (a copy of the whole
        // accumulator per call retains every one of its buffers).
        let completions = self.completions
        var ranked = Array(completions.liveIndices)
        ranked.sort { a, b in
            let x = completions.entries[a].value, y = completions.entries[b].value
            if x.distance != y.distance { return x.distance < y.distance }
            if x.key < y.key { return true }
            if y.key < x.key { return false }
            return completions.termPrecedes(a, b)
        }
        return ranked
    }

    /// The best class any match can have: the fewest typos the query words allow, whether a
    /// title can start with the typed text, and the partial word's smallest distance.
    var bestTypos = 0
    var startsWithPossible = true
    var bestPartialDistance = 0
    /// Completions in the best class: nothing seen later in rank order can outrank them.
    var perfectCompletions = 0

    /// When known: every word a completion could be (the partial word's matching name terms) that
    /// is not yet *final*, with its distance, and how many such words there are per distance. A
    /// word is final once noted from an entry with the fewest typos possible (`bestTypos`): later
    /// base documents come in rank order and cannot give it a better entry.
    var openWords: TermTable<Int>?
    var openByDistance: [Int] = []
    var finalChecks = 0

    mutating func noteCompletion(_ word: UnsafeRawBufferPointer, distance: Int, key: CandidateKey, docnum: UInt32) {
        ranking = nil
        if openWords != nil, key.typos == bestTypos, let d = openWords!.remove(word) {
            openByDistance[d] -= 1
        }
        let bestTypos = bestTypos, bestPartialDistance = bestPartialDistance
        var becamePerfect = false
        completions.update(word) { existing in
            if let existing {
                if existing.distance < distance || (existing.distance == distance && !(key < existing.key)) { return }
            }
            let wasPerfect = existing.map { Self.isPerfect($0.distance, $0.key, bestTypos, bestPartialDistance) } ?? false
            becamePerfect = !wasPerfect && Self.isPerfect(distance, key, bestTypos, bestPartialDistance)
            existing = CompletionCandidate(distance: distance, key: key, docnum: docnum)
        }
        if becamePerfect { perfectCompletions += 1 }
    }

    /// A word at the smallest distance whose entry has the fewest typos possible is final as
    /// soon as it is seen: later entries in static order can only be less popular.
    private static func isPerfect(_ distance: Int, _ key: CandidateKey, _ bestTypos: Int, _ bestPartialDistance: Int) -> Bool {
        distance == bestPartialDistance && key.typos == bestTypos
    }

    /// True when no base document later in rank order can change entries or completions:
    /// the entries are full of matches in the best class there is, and as many completions
    /// in the best class as wanted are known.
    ///
    /// - Parameter last: the last base document read in this pass of document (= rank) order. Every
    ///   unread one ranks after it, so an entry of the best class left settles the entries only if it
    ///   does not rank after `last` either: an entry kept from an earlier pass, or from the delta,
    ///   may (its typos can equal this pass's bound), and then reading goes on.
    mutating func isSettled(completionLimit: Int, after last: CandidateKey?) -> Bool {
        entriesSettled(after: last)
            && (!wantsCompletions || perfectCompletions >= completionLimit || completionsFinal(limit: completionLimit)
                || completionsFinal(aboveFloor: completionLimit, after: last))
    }

    /// The entries' part of ``isSettled(completionLimit:after:)``: no base document later in rank
    /// order than `last` can enter them.
    func entriesSettled(after last: CandidateKey?) -> Bool {
        if entries.limit > 0 {
            // `bestTypos` is a lower bound of every unread candidate's typos.
            guard entries.isFull, let worst = entries.worst else { return false }
            if worst.typos > bestTypos { return false }
            if worst.typos == bestTypos && !worst.startsWith {
                guard !startsWithPossible, let last else { return false }
                let unread = CandidateKey(typos: worst.typos, field: worst.field, startsWith: false,
                                          weight: last.weight, sortTitle: last.sortTitle, id: last.id)
                guard !(unread < worst) else { return false }
            }
        }
        return true
    }

    /// With the open words known: at least `limit` completions rank before anything an open
    /// word could still reach, (its distance, `bestTypos`, a later document). Such completions
    /// are final themselves (a word nearer than every open word is not open), so the top
    /// `limit` cannot change. O(completions).
    private mutating func completionsFinal(limit: Int) -> Bool {
        guard let openWords else { return false }
        if openWords.isEmpty { return true }
        guard completions.count >= limit else { return false }
        // Counting costs O(completions): do it for one document in 32.
        finalChecks &+= 1
        guard finalChecks & 31 == 0 else { return false }
        let nearestOpen = openByDistance.firstIndex { $0 > 0 } ?? Int.max
        var safe = 0
        // Only final words count: an open word's entry may still improve.
        for index in completions.liveIndices {
            let value = completions.entries[index].value
            guard value.distance < nearestOpen || (value.distance == nearestOpen && value.key.typos <= bestTypos),
                  completions.withTerm(at: index, { openWords.index(of: $0) }) == nil else { continue }
            safe += 1
            if safe >= limit { return true }
        }
        return false
    }

    /// When known: the smallest distance a completion noted from an unread base document can
    /// have, when it is more than ``bestPartialDistance`` (nil: not known to be). The general
    /// plan knows it in its passes after the first when the first held every candidate with a
    /// word starting with the partial word exactly (and every complete word is exact): the
    /// documents left have no such word, so whatever they offer is at least one edit away.
    ///
    /// Why: with a typo'd partial word, the few words the typed text starts exactly ("Bra
    /// brau": two) rarely fill the completions, so they were never *perfect* enough to settle,
    /// and the walk read every candidate to its end for completions alone (1,940 documents with
    /// "bra", 1.2 ms on the synthetic 1M catalog), though the words one edit away were final
    /// after a few.
    var unreadCompletionFloor: Int?

    /// With ``unreadCompletionFloor`` known: at least `limit` completions rank before anything an
    /// unread base document could offer (the floor's distance, `bestTypos`, after `last`), so
    /// the top `limit` cannot change. O(completions), checked for one document in 16.
    private mutating func completionsFinal(aboveFloor limit: Int, after last: CandidateKey?) -> Bool {
        guard let floor = unreadCompletionFloor, completions.count >= limit else { return false }
        finalChecks &+= 1
        guard finalChecks & 15 == 0 else { return false }
        // Before the pass has read a document, only what no weight can beat.
        guard SuggestContext.finalCompletions(self, before: floor, typos: bestTypos, weight: last?.weight ?? .max, atLeast: limit) else {
            return false
        }
        Self.settledOnCompletionFloor.add(1, ordering: .relaxed)
        return true
    }

    /// Walks settled by ``completionsFinal(aboveFloor:after:)`` (for tests).
    static let settledOnCompletionFloor = Atomic<Int>(0)

    /// Starts tracking open words (see ``openWords``); `words` are name terms with distances.
    mutating func trackOpenWords(_ words: TermList) {
        var open = TermTable<Int>()
        var byDistance: [Int] = []
        for (term, distance) in words {
            var isNew = false
            _ = term.withUnsafeBytes { term in
                open.update(term) { value in
                    // A term listed twice counts once, at its first distance.
                    if value == nil { isNew = true; value = distance }
                }
            }
            guard isNew else { continue }
            while byDistance.count <= distance { byDistance.append(0) }
            byDistance[distance] += 1
        }
        openWords = open
        openByDistance = byDistance
    }
}

/// A completion word's best entry so far: its distance from the partial word, the entry's key
/// (``SuggestContext/completionKey(_:typos:)``) and number.
struct CompletionCandidate {
    var distance: Int
    var key: CandidateKey
    var docnum: UInt32
}
