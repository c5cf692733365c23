import Analysis
import Storage

/// Everything one suggest query's plans share: the generation and read-only facts about the
/// request, the prepared query (its words carry edit automata, so verifying mutates it), and
/// the verification of one candidate document against the whole query.
struct SuggestContext {
    let generation: Generation
    let analyzer: Analyzer
    let request: SuggestRequest
    var query: PreparedQuery
    /// Deleted base documents, or nil when there are none.
    let deleted: DeletedSet?
    /// Chips (categories and filterable attribute values) with a word the partial word matches,
    /// with the smallest distance (empty when no token suggestions are wanted).
    let matchingCategories: [SearchToken: Int]
    /// Polled between candidates; true stops the query with `IndexError.Code.cancelled`.
    let shouldStop: (@Sendable () -> Bool)?
    /// The exact tier's entries, found by the first ``newAccumulator(countCategories:in:)``.
    var exactTier: TopCandidates?
    /// A client's presented answer, or one shard's part of a merged answer.
    let form: ResponseForm
    /// Set by a plan while every document it verifies with `filtersHold` is known to have every
    /// complete word spelled exactly (the general plan, when the exact list is all its candidates):
    /// their typos are then 0, and the complete words are not checked again.
    var completeWordsHoldExactly = false
    /// Set by a plan while every document it verifies with `filtersHold` has a name word that the
    /// partial word matches within this distance (the general plan's implied distance: a complete
    /// word's own term, which every candidate has, is within it of the partial word). The partial
    /// word's distance to such a document is then this one unless it is smaller, which for 0 and
    /// 1 is one scan for the typed prefix instead of an automaton over every word ("Bra brau" on
    /// the synthetic 1M catalog: "bra" is within one edit of "brau" in every candidate).
    var partialDistanceAtMost: Int?
    /// Set by the general plan's walk while it verifies one candidate: what its passes' lists know
    /// of it (``TypoPass/Exactness``). A complete word it has exactly, or a partial word one of its
    /// name words starts with, is at distance 0, and running the word's automaton over the
    /// document's words to find that was most of "python3-libt" and "Baia Mare": in the first
    /// pass every candidate has every word exactly.
    var candidateExactness = TypoPass.Exactness.unknown
    /// While the general plan's walk reads typo'd words' distances from candidates' forward lists
    /// (``OrdinalDistances``).
    var ordinalDistances: OrdinalDistances?
    /// Set by that walk for the base candidate it verifies, while ``candidateDistancesKnown``: each
    /// complete word's distance (by index in `query.complete`) and the partial word's, for the words
    /// ``ordinalDistances`` reads (``OrdinalDistances/none``: no word of the candidate matches).
    var candidateCompleteDistances: [Int8] = []
    var candidatePartialDistance: Int8 = OrdinalDistances.none
    var candidateDistancesKnown = false

    /// Whether the partial word's distance to the candidate being verified is
    /// ``candidatePartialDistance``, read from its forward list (not vouched for by the passes,
    /// ``candidateExactness``): the walk skips a candidate at ``OrdinalDistances/none`` unread, and
    /// ``typos(of:filtersHold:)`` rejects one.
    var partialDistanceRead: Bool {
        query.partial != nil && candidateDistancesKnown && !candidateExactness.partialWord && ordinalDistances?.readsPartial == true
    }

    /// Reading candidates is where time goes, so that is where a stop request is honoured
    /// (every 256 documents: the check is cheap, but not free).
    @inline(__always)
    func checkStop(_ counter: inout Int) throws {
        try Self.checkStop(&counter, shouldStop)
    }

    @inline(__always)
    static func checkStop(_ counter: inout Int, _ shouldStop: (@Sendable () -> Bool)?) throws {
        counter &+= 1
        if counter & 255 == 0, let shouldStop, shouldStop() {
            throw IndexError(.cancelled, "the query was stopped before it finished")
        }
    }


    /// Verifies one document against the whole query and records it.
    ///
    /// - Parameter filtersHold: the caller knows the tokens and complete words match (the document
    ///   came from their postings), so only typo counts of complete words need computing.
    /// - Parameter entryKnown: its entry was recorded already (read early as a possible
    ///   startsWith match): only its completions are noted now.
    /// - Parameter knownTypos: the document's typos, when the caller knows them already: a query
    ///   of one partial word whose candidate came from the word's matches at that distance, none
    ///   nearer (``PartialWordPlan``). The automaton is then not run over its words again (that
    ///   was 8% of a typo-tolerant keystroke on cities); debug builds still run it and check.
    /// Returns whether the document matches the query.
    @discardableResult
    mutating func consider(_ doc: DocumentView, _ acc: inout SuggestAccumulator,
                           filtersHold: Bool = false, entryKnown: Bool = false, knownTypos: Int? = nil) throws -> Bool {
        if !filtersHold {
            for filter in query.tokenFilters {
                guard try doc.carries(filter) else { return false }
            }
        }
        assert(knownTypos == nil || typos(of: doc, filtersHold: filtersHold) == knownTypos,
               "document \(doc.docnum): its typos are not the \(knownTypos ?? -1) its caller knows")
        guard let typos = knownTypos ?? typos(of: doc, filtersHold: filtersHold) else { return false }
        if !entryKnown {
            let key = CandidateKey(typos: typos, field: 0, exact: query.isExact(doc.sortTitle),
                                   startsWith: query.startsWith(doc.sortTitle),
                                   weight: doc.weight, sortTitle: doc.sortTitle, id: doc.id)
            try acc.entries.insert(key, doc)
        }
        if acc.wantsCompletions, query.partial != nil {
            let completionKey = Self.completionKey(doc, typos: typos)
            doc.forEachOfferedWord(matching: { query.partial!.distance(to: $0) }) { word, d in
                acc.noteCompletion(word, distance: d, key: completionKey, docnum: doc.docnum)
            }
        }
        return true
    }

    /// The entry's typos (the smallest distance of each query word to the document's name words,
    /// summed), or nil when some word matches none. With `filtersHold`, exact complete words are
    /// known to match (the document passed their postings) and are not checked again, nor are
    /// any while ``completeWordsHoldExactly``.
    mutating func typos(of doc: DocumentView, filtersHold: Bool) -> Int? {
        var typos = 0
        let completeExactly = completeWordsHoldExactly || candidateExactness.completeWords
        for i in query.complete.indices where !filtersHold || (query.complete[i].budget > 0 && !completeExactly) {
            if filtersHold && candidateDistancesKnown, ordinalDistances!.readsWord[i] {
                guard candidateCompleteDistances[i] >= 0 else { return nil }
                typos += Int(candidateCompleteDistances[i])
                continue
            }
            guard let d = Self.bestNameDistance(&query.complete[i], doc) else { return nil }
            typos += d
        }
        if filtersHold, partialDistanceRead {
            guard candidatePartialDistance >= 0 else { return nil }
            typos += Int(candidatePartialDistance)
        } else if query.partial != nil {
            switch filtersHold ? (candidateExactness.partialWord ? 0 : partialDistanceAtMost) : nil {
            case 0?:
                break
            case 1?:
                let prefix = query.partial!.bytes
                if !QueryWord.occurs(prefix, in: doc.sortTitle, asPrefix: true), !QueryWord.occurs(prefix, in: doc.aliasWords, asPrefix: true) {
                    typos += 1
                }
            default:
                guard let d = Self.bestNameDistance(&query.partial!, doc) else { return nil }
                typos += d
            }
        }
        return typos
    }

    /// Notes each word `doc` offers under `prefix` as a completion at distance 0, with the document
    /// as a typo-free entry: what a typo-free partial word's walks of listed documents note.
    static func noteTypoFreeCompletions(of doc: DocumentView, under prefix: [UInt8], into acc: inout SuggestAccumulator) {
        let key = completionKey(doc, typos: 0)
        doc.forEachOfferedWord(matching: { $0.starts(with: prefix) ? () : nil }) { word, _ in
            acc.noteCompletion(word, distance: 0, key: key, docnum: doc.docnum)
        }
    }

    /// A completion's best entry is its best match by rank key without startsWith (Semantics.md).
    static func completionKey(_ doc: DocumentView, typos: Int) -> CandidateKey {
        CandidateKey(typos: typos, field: 0, startsWith: true, weight: doc.weight, sortTitle: doc.sortTitle, id: doc.id)
    }

    /// The smallest distance of `word` to the document's name words (title, then aliases).
    static func bestNameDistance(_ word: inout QueryWord, _ doc: DocumentView) -> Int? {
        let inTitle = word.bestDistance(in: doc.sortTitle)
        if inTitle == 0 { return 0 }
        let inAliases = word.bestDistance(in: doc.aliasWords)
        switch (inTitle, inAliases) {
        case let (a?, b?): return min(a, b)
        case let (a?, nil): return a
        case let (nil, b?): return b
        default: return nil
        }
    }

    /// An empty accumulator for a plan, with the exact tier's entries already in it.
    ///
    /// Entries whose title is the typed text rank before every other match (Semantics.md, `exact`),
    /// but no plan reads candidates in that order: the trie lists, the regions and the passes are
    /// in static rank order, so an exact title far down it ("koba", the town, below Kőbánya) would
    /// be read late or never. They are one key range of the `titles` index, so they are found
    /// once per query and entered here, before any plan runs; the plans meet them again in their
    /// own order (entering a document twice is a no-op) and prove their answers as before, since
    /// every entry a plan's bound leaves out is then outside the exact tier. Completions are not
    /// noted here: each plan notes them in its own way.
    mutating func newAccumulator(countCategories: Bool, in txn: borrowing ReadTransaction) throws -> SuggestAccumulator {
        if exactTier == nil { exactTier = try exactTitles(in: txn) }
        // The tier is a TopCandidates of the request's limit and dedupe: it is the entries' start.
        var entries = exactTier!
        entries.reserve()
        return SuggestAccumulator(entries: entries, wantsCompletions: query.partial != nil && request.limits.completions > 0,
                                  categoryCounts: countCategories ? [:] : nil)
    }

    /// The best live documents whose analysed title is the typed text and that carry the tokens,
    /// as many as the entries want. Such a document matches with no typos (each typed word is one
    /// of its title words), so it needs no verification. Base documents are visited in rank order
    /// and only until the entries are full of them (a later base one ranks after them all); delta
    /// documents, numbered after the base but not in rank order, are all visited. Generations
    /// written before the `titles` index find them among the postings of the first typed word.
    private func exactTitles(in txn: borrowing ReadTransaction) throws -> TopCandidates {
        // Usually empty (few titles are the typed text): no room reserved (``newAccumulator``'s copy reserves).
        var tier = TopCandidates(limit: request.limits.entries, dedupe: request.dedupe, reserving: false)
        guard query.hasWords, tier.limit > 0 else { return tier }
        let base = generation.baseCount
        /// False once the base has nothing more to give.
        func enter(_ docnum: UInt32) throws -> Bool {
            if docnum < base {
                if tier.isFull { return false }
                if let deleted, try deleted.contains(docnum, in: txn) { return true }
            }
            guard let doc = try generation.document(docnum, in: txn), query.isExact(doc.sortTitle) else { return true }
            for filter in query.tokenFilters {
                guard try doc.carries(filter) else { return true }
            }
            try tier.insert(CandidateKey(typos: 0, field: 0, exact: true, startsWith: true, weight: doc.weight,
                                         sortTitle: doc.sortTitle, id: doc.id), doc)
            return true
        }
        let indexed = try generation.forEachDocument(withTitle: query.startsWithPrefix, in: txn) { docnum in
            try enter(docnum) ? .next : .skip(to: base)
        }
        if indexed { return tier }
        guard let first = query.complete.first?.bytes ?? query.partial?.bytes else { return tier }
        let docs = try generation.documents(of: [first], includeDescription: false, in: txn)
        var index = 0
        while index < docs.count {
            if try !enter(docs[index]) {
                index = docs.firstIndex { $0 >= base } ?? docs.count  // on to the delta
                continue
            }
            index += 1
        }
        return tier
    }
}
