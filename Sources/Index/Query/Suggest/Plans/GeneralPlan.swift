import Storage
import Synchronization

/// Complete words or tokens (with or without a partial word): "red sh", "kitchen tow",
/// `category:Garden` + "ho". Candidates come from postings alone: the complete words' and tokens'
/// posting lists are intersected (cheapest first), so a document that fails a filter is never
/// read. Category counts are intersections of that set with each category's postings. Only then
/// are documents read, in document-number order — which for the base segment is rank order —
/// to verify the partial word and rank; once the answer is settled the rest of the base is
/// skipped (delta documents, not in rank order, are always read). Always exact.
enum GeneralPlan: SuggestPlan {
    static let kind = SuggestPlanKind.general

    static func evaluate(_ context: inout SuggestContext, in txn: borrowing ReadTransaction) throws -> PlanOutcome {
        guard !context.query.complete.isEmpty || !context.query.tokens.isEmpty else { return .unproven }
        return .exact(try context.evaluateGenerally(in: txn))
    }
}

extension SuggestContext {
    fileprivate mutating func evaluateGenerally(in txn: borrowing ReadTransaction) throws -> SuggestAccumulator {
        var acc = try newAccumulator(countCategories: !matchingCategories.isEmpty, in: txn)

        // 1. The rest of the query (complete words and tokens) as a sorted list of documents.
        let (filtered, nearest) = try generation.filteredDocuments(words: query.complete, tokens: query.tokens,
                                                                   includeDescription: false, in: txn)
        guard let rest = filtered else {
            throw IndexError(.internal, "the general suggest plan was given a query without complete words or tokens")
        }
        for distance in nearest {
            acc.bestTypos += distance
            if distance > 0 { acc.startsWithPossible = false }
        }
        if let partial = query.partial, partial.budget > 0, try !generation.hasNameTerm(withPrefix: partial.bytes, in: txn) {
            acc.bestTypos += 1
            acc.bestPartialDistance = 1
            acc.startsWithPossible = false
        }

        // The key under which `rest` (and its bitmap) is kept per read snapshot: the keystrokes of
        // a word after complete ones filter by the same.
        let filter = FilterCache.Key(snapshot: txn.snapshotID, words: query.complete, tokens: query.tokens, includeDescription: false)

        // 2. Chip counts: |rest ∩ category| (or attribute value).
        if acc.categoryCounts != nil {
            var counts = [SearchToken: Int](minimumCapacity: matchingCategories.count)
            let filterHash = filter.hashValue
            // Kept per read snapshot, as are the category's documents.
            for token in matchingCategories.keys {
                let key = FilterCache.CategoryCountKey(filter: filter, filterHash: filterHash, category: Schema.tokenTerm(token))
                counts[token] = try generation.filteredCategoryCounts.value(key) {
                    let members = try generation.filteredDocuments(words: [], tokens: [token], includeDescription: false, in: txn).docs ?? []
                    let membersFilter = FilterCache.Key(snapshot: txn.snapshotID, words: [], tokens: [token], includeDescription: false)
                    return generation.intersectionCount(rest, filter: filter, members, filter: membersFilter)
                }
            }
            acc.categoryCounts = counts
        }

        // 3. Candidates for the whole query, verified and ranked in document order.
        // The documents with every complete word spelled exactly (kept per snapshot; the first
        // pass of the walk below), when some complete word may have typos. When that is all of
        // `rest`, the list tells no candidate apart: as if there were none, and the passes need
        // not ask about it (splitting "Camakee Cama"'s quarter of a million candidates by it was
        // half the keystroke).
        var exactComplete: [UInt32]?
        var everyCompleteWordExact = true  // in every candidate
        if query.complete.contains(where: { $0.budget > 0 }) {
            let docs = try generation.filteredDocuments(words: query.complete.map { $0.withoutTypos() }, tokens: query.tokens,
                                                        includeDescription: false, in: txn).docs ?? []
            // A subset of `rest` (the same filters, without typos): as many is the same list.
            if docs.count != rest.count {
                exactComplete = docs
                everyCompleteWordExact = false
            }
        }
        completeWordsHoldExactly = everyCompleteWordExact
        defer { completeWordsHoldExactly = false }
        defer { ordinalDistances = nil; candidateDistancesKnown = false }
        // Query words match independently (two may match one title word, Semantics.md), so when
        // every candidate has a complete word's own term and the partial word matches that term,
        // the partial word matches every candidate, within that distance ("Camakee Cama" and
        // "Camakee Cakak": the half a million documents with "camakee"). Then its words narrow
        // nothing, and at distance 0 they tell no candidate apart either.
        var impliedPartialDistance: Int?
        if var partial = query.partial {
            for word in query.complete where word.budget == 0 || everyCompleteWordExact {
                if let distance = partial.distance(to: word.bytes) { impliedPartialDistance = min(distance, impliedPartialDistance ?? distance) }
            }
        }
        partialDistanceAtMost = impliedPartialDistance
        defer { partialDistanceAtMost = nil }
        let completionLimit = request.limits.completions
        // Completions can keep the walk from settling (a word's best entry could be anywhere in
        // `rest`). When every match is typo-free — exact complete words, an exact partial word —
        // each word's best entry is simply its first posting inside `rest`, found by intersecting
        // the word's postings with `rest`; do that instead when the partial word has few words.
        // The exact partial word's words, if there are few (listing many costs more than it saves).
        var partialTerms: [[UInt8]]?
        if let partial = query.partial, partial.budget == 0 {
            partialTerms = try generation.prefixTerms(partial.bytes, atMost: min(256, max(16, rest.count / 8)), in: txn)
        }
        var completionTerms: [[UInt8]]?
        if acc.wantsCompletions, let partialTerms, query.complete.allSatisfy({ $0.budget == 0 }) {
            completionTerms = partialTerms
            acc.wantsCompletions = false
        }
        // An exact partial word narrows the candidates by its postings once reading them in rank
        // order has not settled the answer soon (see `rank`), so a common complete word ("new …",
        // "python3 mu") does not mean reading every document that has it.
        var candidates = rest
        let narrowing = query.partial.flatMap { $0.budget == 0 ? PrefixNarrowing(prefix: $0.bytes, filtered: rest, filter: filter) : nil }
        // Likewise a typo'd partial word: its matching words (a term walk, worth it only for a large
        // `rest`) narrow the candidates when they have few postings ("camakee sholfumastgro" reads
        // the documents of the rare word, not the 500,000 of the common one).
        var typoMatches: TermList?
        var narrowedToTypoMatches = false
        // The narrowed candidates with a word starting with the typed word exactly, when the
        // narrowing's bitmaps gave them too (the first pass's list, below).
        var narrowedExactly: [UInt32]?
        // The words' postings, counted once for both choices made from them (narrowing, here, and
        // completions from postings, below; candidates are still `rest`, as an exact partial word
        // narrows only when there are no typos). A typo'd "libt" has thousands of words.
        var typoPostings = 0
        // Below `typoWalkAlways`, only if the walk's heavy regions (counted without listing a word)
        // leave the narrowing possible; that count, complete then, is reused below.
        var heavy: (postings: Int, prefixes: [[UInt8]])?
        if let partial = query.partial, partial.budget > 0, rest.count > Self.typoWalkMinimum, rest.count <= Self.typoWalkAlways {
            heavy = try generation.heavyRegionPostings(ofPartial: partial, stoppingAfter: Self.narrowingFactor * rest.count, in: txn)
        }
        if let partial = query.partial, partial.budget > 0, rest.count > Self.typoWalkMinimum,
           heavy.map({ $0.postings <= Self.narrowingFactor * rest.count }) ?? true {
            let matches = try generation.terms(matching: partial, namesOnly: true, in: txn)
            typoMatches = matches
            typoPostings = try generation.namePostingCount(ofPartial: partial, terms: matches, heavy: heavy,
                                                           stoppingAfter: Self.completionPostingsFactor * rest.count, in: txn)
            if impliedPartialDistance == nil, typoPostings <= Self.narrowingFactor * rest.count {
                // Many postings for the span of `rest`: set in a bitmap and ANDed with `rest`'s, as
                // the exact partial word's narrowing does (``narrowed(_:by:walkWouldRead:forwardTests:in:)``).
                // A long dense `rest` has its bitmap kept per snapshot; a sparse one's is made for
                // this query (a bit per number up to its last: fewer words than the postings).
                // Galloping thousands of short lists into a few thousand candidates cost 55 ns a
                // posting ("Saint-Maur" on cities: 4,396 words, 8,961 postings).
                if typoPostings >= Int(rest.last!) / Self.postingsPerBitmapWord {
                    Self.typoNarrowingsByBitmap.add(1, ordering: .relaxed)
                    let members = DocumentBitmap.pays(for: rest) ? generation.filteredBitmaps.value(filter) { DocumentBitmap(rest) }
                                                                 : DocumentBitmap(rest)
                    if acc.bestPartialDistance == 0 {
                        (candidates, narrowedExactly) = try generation.documents(withNameTermsOf: matches, among: members, in: txn)
                    } else {
                        candidates = try generation.documents(withNameTerms: matches.terms, among: members, in: txn)
                    }
                } else {
                    // Few postings: each word's galloped into `rest` in place (a union of the
                    // words' lists would build an array per word).
                    candidates = try generation.candidates(rest, withNameTerms: matches.terms, in: txn)
                }
                narrowedToTypoMatches = true
                // Every candidate now has a name word within the budget of the partial word: with a
                // budget of one, its distance is 0 or 1, told apart by a scan for the typed prefix
                // rather than the word's automaton over every title and alias word
                // (``partialDistanceAtMost``).
                if partial.budget == 1 { partialDistanceAtMost = 1 }
            }
        }
        try prepareOrdinalDistances(candidates: candidates.count, everyCompleteWordExact: everyCompleteWordExact, in: txn)
        // Then every candidate has one of the few matching words, and each word's best entry is
        // found from its own postings (`completeTypoWords`), so the walk below reads only until the
        // entries settle. Likewise for the few words of an exact partial word when complete words
        // may have typos (an entry's typos then vary, so `completeWithin` does not apply).
        // Even unnarrowed, postings are cheaper to merge than candidates to verify, up to a
        // point: ``completionPostingsFactor``; but not than candidates the walk tests by their
        // forward lists, when the words are many and few candidates have one
        // (``walkCompletesForLess(candidates:words:postings:)``).
        var typoCompletionTerms: TermList?
        if acc.wantsCompletions, let typoMatches {
            if narrowedToTypoMatches || typoPostings <= Self.completionPostingsFactor * candidates.count {
                if !narrowedToTypoMatches,
                   walkCompletesForLess(candidates: candidates.count, words: typoMatches.count, postings: typoPostings) {
                    Self.typoCompletionsByWalk.add(1, ordering: .relaxed)
                } else {
                    typoCompletionTerms = typoMatches
                }
            }
        } else if acc.wantsCompletions, completionTerms == nil, let partialTerms {
            typoCompletionTerms = TermList(partialTerms.lazy.map { ($0, 0) })
        }
        if typoCompletionTerms != nil { acc.wantsCompletions = false }
        // Completions settle only when enough of them are final. Without typos in the partial word
        // enough final ones are usually there early; with typos, few words are near the typed one
        // and some may never co-occur with the complete words, so reading would go on to the end
        // of `rest`. Knowing every word a completion could be lets the walk stop once none that is
        // still open could enter (see `SuggestAccumulator.trackOpenWords`); bounded by the number of words.
        if acc.wantsCompletions, let typoMatches, candidates.count > Self.typoWalkAlways {
            var words = TermList()
            var known = typoMatches.count <= 4096
            var scanned = 0  // postings read by `occurs`, bounded: past the bound tracking gives up
            for (term, distance) in typoMatches where known {
                // A word that no candidate has can never be a completion: leave it out, or it would
                // stay open to the end.
                guard try occurs(term, in: candidates, scanned: &scanned, txn) else { continue }
                words.append(term, distance: distance)
                if words.count > 1024 || scanned > 1 << 18 { known = false }
            }
            if known { acc.trackOpenWords(words) }
        }
        // Entries settle early only once they are full of startsWith matches, or once no unread
        // document can start with the typed text. Titles that do are rare ("camakee caka…"), so
        // without help the walk would read all of `rest`. A title starts with the text only if its
        // first word starts with the first typed word, and the trie lists the documents whose first
        // word does, when they are few: read those first, record the ones that start with the text,
        // and from then on no unread document can.
        // Base documents of that list come in rank order and all start with the text, so once the
        // entries are full of typo-free startsWith matches no later one can enter (exact titles,
        // which would, are entered already): they are left to the walk below, which reads them
        // only if completions still need them ("San Jos" lists 512 San José titles for 10 entries).
        var entered: [UInt32] = []  // ascending
        // Too many titles start with the text to list them up front: listed only if the walk has
        // not settled the entries after a probe (see `rank`).
        var startsWithLate = false
        if acc.startsWithPossible, acc.entries.limit > 0 {
            if let possible = try startsWithCandidates(comparedWith: candidates.count, in: txn) {
                entered = try enterStartsWith(possible, among: candidates, &acc, in: txn)
            } else {
                startsWithLate = generation.schema.titles != nil && Self.startsWithLimit < candidates.count / 16
            }
        }
        // Candidates are read in passes by a lower bound of their typos, each pass in document
        // (= rank) order, so that a pass's matches come best-first and the walk can settle inside
        // it: a candidate without every complete word spelled exactly has at least one typo, and
        // one without a word starting with the typed partial word exactly has at least one more.
        // Often the answer settles in the first pass and the rest is never read.
        var exactPartial: [UInt32]?
        if impliedPartialDistance != 0, let partial = query.partial, partial.budget > 0, acc.bestPartialDistance == 0,
           let terms = try generation.prefixTerms(partial.bytes, atMost: 256, in: txn) {
            let limit = Self.narrowingFactor * candidates.count
            let postings = try generation.postingCount(of: terms, stoppingAfter: limit, in: txn)
            // Candidates with every complete word spelled exactly have a word starting with the
            // partial word when one of those words does ("staungrou stau": the typed word again):
            // only the others are tested (there, a forward test of 80,000 candidates was half of
            // a 2 ms keystroke).
            var known: [UInt32] = [], untested = candidates
            if narrowedExactly == nil, let exactComplete, query.complete.contains(where: { $0.budget > 0 && $0.bytes.starts(with: partial.bytes) }) {
                known = intersect(candidates, exactComplete)
                untested = subtract(candidates, known)
                Self.exactPartialsFromCompleteWords.add(1, ordering: .relaxed)
            }
            func withKnown(_ tested: [UInt32]) -> [UInt32] { known.isEmpty ? tested : union(known, tested) }
            if postings <= limit {
                // Through the forward index when testing each candidate costs less than galloping
                // the postings ("Camakee stau" at 10M: 40 ms of galloping the "stau…" postings).
                var members = narrowedExactly
                if members == nil, postings * Self.forwardTestsPerPosting > untested.count {
                    members = try generation.candidatesByForward(untested, withNameTermPrefix: partial.bytes, in: txn).map(withKnown)
                }
                if members == nil { members = withKnown(try generation.candidates(untested, withNameTerms: terms, in: txn)) }
                // With every candidate in it, no candidate misses the list: as if there were none, and
                // the passes need not ask about it ("Camakee Cama").
                exactPartial = members!.count == candidates.count ? nil : members
            } else if candidates.count <= Self.exactPartialByForwardLimit, typoCompletionTerms == nil,
                      let tested = try narrowedExactly ?? generation.candidatesByForward(untested, withNameTermPrefix: partial.bytes, in: txn) {
                let members = withKnown(tested)
                // Too many postings to merge, but few candidates to test: without the list, the
                // first pass holds every candidate, most of them one typo away, and the entries
                // settle only once ten typo-free ones are read ("peke Camakee Wopl" on the
                // synthetic 1M catalog read 778 of its 1,851 candidates). Not when completions
                // come from the words' postings: their walks per pass then cost more than the
                // list saves ("Cesdrethaux stouc": 0.3 -> 1 ms).
                Self.exactPartialsByForward.add(1, ordering: .relaxed)
                exactPartial = members.count == candidates.count ? nil : members
            }
        }
        // The exact partial word's ordinal range (``ForwardIndex``), found once for the passes'
        // test and the completions' walk (two counts along `terms` each time it was asked).
        var partialOrdinals: Range<UInt32>?
        if let partial = query.partial, partial.budget == 0 {
            partialOrdinals = try generation.nameOrdinals(withPrefix: partial.bytes, in: txn)
        }
        let bestTypos = acc.bestTypos
        // Each pass is picked out of the candidates as the walk reads them (``TypoPass``), and a
        // pass that starts settled reads only its delta documents.
        let firstPass = TypoPass.firstPass(of: candidates, exactComplete: exactComplete, exactPartial: exactPartial)
        defer { acc.unreadCompletionFloor = nil }
        for typos in TypoPass.passes(exactComplete: exactComplete, exactPartial: exactPartial) {
            acc.bestTypos = max(bestTypos, typos)
            // After the first pass, which read every base candidate with a word starting with the
            // partial word exactly (when every complete word is exact, the first pass is just
            // those), the candidates left offer words one edit away at best.
            if typos > 0, exactPartial != nil, exactComplete == nil { acc.unreadCompletionFloor = 1 }
            // A title that starts with the typed text has every typed word exactly.
            if typos > 0 { acc.startsWithPossible = false }
            if typos == 0, let firstPass {
                try rank(firstPass, &acc, filtersHold: true, entered: entered, startsWithLate: startsWithLate,
                         completionLimit: completionLimit, narrowingBy: narrowing,
                         exactness: TypoPass.firstPassExactness(exactComplete: exactComplete, exactPartial: exactPartial),
                         partialOrdinals: partialOrdinals, in: txn)
                continue
            }
            try rank(candidates, &acc, filtersHold: true, entered: entered, startsWithLate: startsWithLate && typos == 0,
                     completionLimit: completionLimit, narrowingBy: narrowing,
                     pass: TypoPass.filter(typos: typos, exactComplete: exactComplete, exactPartial: exactPartial),
                     partialOrdinals: partialOrdinals, in: txn)
        }
        if let completionTerms {
            acc.wantsCompletions = true
            try completeWithin(rest, terms: completionTerms, prefix: query.partial!.bytes, ordinals: partialOrdinals, limit: completionLimit,
                               into: &acc, in: txn)
        }
        if let typoCompletionTerms {
            acc.wantsCompletions = true
            // The walks meet at most the words' postings per pass (counted above for typo'd words).
            let postings = typoPostings > 0 ? typoPostings
                : try generation.postingCount(of: typoCompletionTerms.terms, stoppingAfter: candidates.count, in: txn)
            let passes = CandidatePasses(candidates, exactComplete: exactComplete, exactPartial: exactPartial, firstPass: firstPass, postings: postings)
            try completeTypoWords(passes, terms: typoCompletionTerms, floor: bestTypos, limit: completionLimit, into: &acc, in: txn)
        }
        return acc
    }

    /// Whether the rank walk notes a typo'd partial word's completions for less than its words'
    /// postings would (``completeTypoWords``), when the walk reads the word's distance from each
    /// candidate's forward list (``OrdinalDistances``) and leaves unread the candidates it rules
    /// out (``partialDistanceRead``).
    ///
    /// Why: the postings' cost is a descent into `terms` per word and then its postings, where
    /// the walk's is a forward test per candidate and a read per candidate that has a matching
    /// word. "New Terr" on cities: 1,391 words one edit from "terr" against 675 candidates, of
    /// which few have such a word; the words' look-ups were two fifths of the keystroke.
    ///
    /// Estimates, in postings read: a word's look-up ``postingsPerWordLookUp``, a candidate's
    /// distances ``postingsPerDistanceRead``, a read ``postingsPerCandidateRead``; the candidates with a
    /// matching word, as many as if words and candidates were independent (`postings` spread over
    /// the base). Only up to ``typoWalkAlways`` candidates, which the walk reads to their end
    /// (past it, the walk tracks open words and is left as it was), and only while reading every
    /// candidate, were the words and candidates correlated after all, would cost at most
    /// ``walkWorstCaseFactor`` times the postings.
    private func walkCompletesForLess(candidates: Int, words: Int, postings: Int) -> Bool {
        // (Partial distances are read only where nothing implies them, ``prepareOrdinalDistances``.)
        guard candidates <= Self.typoWalkAlways, ordinalDistances?.readsPartial == true, generation.baseCount > 0 else { return false }
        let matching = min(candidates, candidates * postings / Int(generation.baseCount) + 1)
        let walk = candidates * Self.postingsPerDistanceRead + matching * Self.postingsPerCandidateRead
        let lookUps = words * Self.postingsPerWordLookUp + postings
        return walk < lookUps && candidates * Self.postingsPerCandidateRead <= Self.walkWorstCaseFactor * lookUps
    }

    /// How many times the words' postings the walk may cost if every candidate had a matching word.
    static let walkWorstCaseFactor = 8

    /// What a word's postings look-up (a descent into `terms`) costs, in postings read.
    static let postingsPerWordLookUp = 32

    /// What reading a candidate's distances from its forward list costs, in postings read (a
    /// binary search per ordinal; a city with its aliases has dozens).
    static let postingsPerDistanceRead = 16

    /// What reading and verifying a candidate costs, in postings read (``completionPostingsFactor``'s
    /// estimate, less its merge's saving).
    static let postingsPerCandidateRead = 128

    /// Keystrokes whose typo'd partial word's completions the rank walk noted instead of the
    /// words' postings (``walkCompletesForLess(candidates:words:postings:)``; for tests).
    static let typoCompletionsByWalk = Atomic<Int>(0)

    /// Candidates up to which those with a word starting with a typo'd partial word exactly are
    /// listed through the forward index (10–15 ns each) however many postings the word's prefix has.
    static let exactPartialByForwardLimit = 8192

    /// Lists made so (for tests: a path only its speed would otherwise show).
    static let exactPartialsByForward = Atomic<Int>(0)

    /// Lists of candidates with a word starting with the partial word that took the candidates
    /// with every complete word spelled exactly as known members, because one of those words
    /// starts with it (for tests).
    static let exactPartialsFromCompleteWords = Atomic<Int>(0)

    /// Candidates past which a typo'd partial word's matching words are listed (a walk of the term
    /// trie, then their posting counts) to narrow the candidates, to take completions from their
    /// postings, and to track open completion words.
    static let typoWalkAlways = 2048

    /// Candidates past which the words are listed when they could narrow the candidates, i.e. when
    /// the heavy regions of the walk (found without listing a word) have few postings. Verifying a
    /// candidate costs a few microseconds (edit automata over its words), so a few hundred already
    /// cost more than listing a few words ("librus-prettytab" verified 1,946 "librust" documents in
    /// 4 ms), but not more than listing many: "glib" within one edit is every word under "lib".
    static let typoWalkMinimum = 256

    /// Candidates from which typo'd words are measured through the forward index
    /// (``OrdinalDistances``): mapping a word's matches costs a look-up each.
    static let ordinalDistancesMinimum = 64

    /// A partial word's walk regions are mapped to ordinal ranges (two counts along `terms` each)
    /// only when there are at least this many candidates a region.
    static let candidatesPerMappedRegion = 8

    /// Sets ``ordinalDistances`` for the walk when some typo'd word's distances would otherwise
    /// be computed by its automaton over each candidate's words: complete words with typos
    /// (``WordOrdinals``, kept per generation, so a word typed once is mapped once) and a partial
    /// word with typos whose distance nothing else implies (its regions, mapped per keystroke when
    /// they are few for the candidates).
    private mutating func prepareOrdinalDistances(candidates: Int, everyCompleteWordExact: Bool, in txn: borrowing ReadTransaction) throws {
        guard candidates >= Self.ordinalDistancesMinimum, generation.schema.forward != nil else { return }
        var words: [WordOrdinals?] = Array(repeating: nil, count: query.complete.count)
        if !everyCompleteWordExact {
            for (index, word) in query.complete.enumerated() where word.budget > 0 {
                words[index] = try generation.wordOrdinals(word, in: txn)
            }
        }
        var partialRanges: [(range: Range<UInt32>, distance: Int)]?
        if let partial = query.partial, partial.budget > 0, partialDistanceAtMost == nil {
            partialRanges = try generation.nameOrdinalRanges(ofPartial: partial, atMost: candidates / Self.candidatesPerMappedRegion, in: txn)
        }
        guard partialRanges != nil || words.contains(where: { $0 != nil }) else { return }
        ordinalDistances = OrdinalDistances(words: words, partial: partialRanges)
        candidateCompleteDistances = Array(repeating: OrdinalDistances.none, count: words.count)
    }

    /// Most documents read up front as possible startsWith matches (and at most one in 16 of the
    /// candidates): past it, the walk in rank order finds them as it goes.
    static let startsWithLimit = 512

    /// When more titles than ``startsWithLimit`` start with the text, the walk reads this many
    /// candidates first; if the entries are not settled by then, it lists up to
    /// ``lateStartsWithLimit`` of those titles after all (a key-only range of the `titles` index,
    /// tens of nanoseconds a title, against a document read apiece for the walk). "Camakee
    /// Camakee s" on the synthetic 1M catalog read 981 of its 259,326 candidates to find ten such
    /// titles (0.6 ms), where "Camakee Camakee" finds them among its first few.
    static let startsWithProbe = 64
    static let lateStartsWithLimit = 4096
    /// Listings made so (for tests).
    static let lateStartsWithListings = Atomic<Int>(0)

    /// Enters the documents of `possible` (that may start with the typed text, in any order) that
    /// are among the sorted `candidates` and whose title does start with it, and returns them,
    /// ascending. They are taken in ascending order (``forEachAscending(_:first:_:)``): once the
    /// entries are full of typo-free startsWith matches, a later base document cannot enter (base
    /// numbers are rank order; exact titles, which would, are entered already), so the rest of the
    /// base's are neither sorted nor read, only the delta's. Each is galloped into `candidates`
    /// from the one before: no intersection of the whole listing ("thou s" lists 4,096 titles and
    /// enters ten). Completions are not noted here: the walk notes them in document order, meeting
    /// these documents again.
    private mutating func enterStartsWith(_ possible: [UInt32], among candidates: [UInt32], _ acc: inout SuggestAccumulator,
                                          in txn: borrowing ReadTransaction) throws -> [UInt32] {
        var entered: [UInt32] = []
        let wanted = acc.wantsCompletions
        acc.wantsCompletions = false
        defer { acc.wantsCompletions = wanted }
        // Nothing is known of these documents but that they are candidates (the walk's knowledge
        // of the document it read last must not carry over).
        candidateExactness = .unknown
        candidateDistancesKnown = false
        let base = generation.baseCount
        var index = 0  // in `candidates`, at or before the next document's place
        var baseSettled = false
        // False once no later document of the order can enter.
        func enter(_ docnum: UInt32) throws -> Bool {
            index = gallop(candidates, to: docnum, from: index)
            guard index < candidates.count else { return false }
            guard candidates[index] == docnum else { return true }
            if docnum < base, acc.entries.isFull, let worst = acc.entries.worst, worst.typos == 0, worst.startsWith {
                baseSettled = true
                return false
            }
            guard let doc = try generation.document(docnum, in: txn), query.startsWith(doc.sortTitle) else { return true }
            try consider(doc, &acc, filtersHold: true)
            entered.append(docnum)
            return true
        }
        var order = possible
        try forEachAscending(&order) { try enter($0) }
        if baseSettled {
            // The delta's, numbered after every base document (so after all entered so far).
            var delta = order.filter { $0 >= base }
            sortDocuments(&delta)
            for docnum in delta where try !enter(docnum) { break }
        }
        // Every document that could start with the text is entered or cannot enter.
        acc.startsWithPossible = false
        return entered
    }

    /// A partial word's postings narrow the candidates when they number at most this many times the
    /// candidates: decoding and intersecting a posting costs a few nanoseconds, verifying a
    /// candidate document about a microsecond.
    static let narrowingFactor = 4

    /// Completions come from the partial word's postings (``completeTypoWords``) when these number
    /// at most this many times the candidates: merging a posting costs a few nanoseconds,
    /// verifying a candidate about a microsecond, and the merge stops at each word's first good
    /// entry, where the walk in rank order cannot stop until enough completions are final (with a
    /// typo'd partial word, often not before the end of the candidates). At 32, "peke Cama" on
    /// the synthetic 1M catalog read its candidates to the end (4.6 ms); at 256 it takes 150 µs,
    /// and `typeahead bench` moved no class the other way beyond noise.
    static let completionPostingsFactor = 256

    /// Whether some document of sorted `docs` has `term` as a name word (base or delta).
    private func occurs(_ term: ArraySlice<UInt8>, in docs: [UInt32], scanned: inout Int, _ txn: borrowing ReadTransaction) throws -> Bool {
        if let value = try txn.get(generation.schema.terms, term) {
            var cursor = try PostingCursor(value)
            while let doc = cursor.current {
                scanned += 1
                if contains(docs, doc) { return true }
                try cursor.advance()
            }
        }
        var delta: [UInt32] = []
        try generation.appendDeltaPostings(of: term, includeDescription: false, to: &delta, in: txn)
        return delta.contains { contains(docs, $0) }
    }

    /// Reads, verifies and ranks `candidates` (sorted) in document order, skipping the rest of the
    /// base segment once nothing later can change the answer.
    /// `entered` documents (ascending) have their entries recorded already.
    /// `narrowingBy`: an exact partial word whose postings may narrow the candidates left once
    /// ``narrowingProbe`` of them were read without settling the answer.
    /// `partialOrdinals`: the exact partial word's ordinal range, when the forward index has it.
    /// `exactness`: what every candidate is known to have exactly, when no `pass` says it of each
    /// (the first pass's members: ``TypoPass/firstPassExactness(exactComplete:exactPartial:)``).
    private mutating func rank(_ candidates: [UInt32], _ acc: inout SuggestAccumulator, filtersHold: Bool,
                               entered: [UInt32] = [], startsWithLate: Bool = false, completionLimit: Int, narrowingBy narrowing: PrefixNarrowing? = nil,
                               pass: TypoPass? = nil, exactness: TypoPass.Exactness = .unknown, partialOrdinals: Range<UInt32>? = nil,
                               in txn: borrowing ReadTransaction) throws {
        let base = generation.baseCount
        defer { candidateExactness = .unknown; candidateDistancesKnown = false }
        // A base candidate without a name word that starts with the exact partial word cannot
        // match: its forward list (``ForwardIndex``) says so without reading it. Not while the
        // partial word's distance is implied (``partialDistanceAtMost``): then every one matches.
        let prefix = filtersHold && partialDistanceAtMost == nil ? partialOrdinals : nil
        let readsDistances = filtersHold && ordinalDistances != nil
        // One reader for both uses (it keeps the chunk last read).
        var forward = prefix != nil || readsDistances ? generation.forwardReader() : nil
        var candidates = candidates
        var pass = pass
        var entered = entered
        var startsWithProbe = startsWithLate ? Self.startsWithProbe : -1
        var index = 0
        var read = 0
        var last: CandidateKey?
        var probe = narrowing == nil ? Int.max : Self.narrowingProbe
        var matched = 0
        // Once the entries are settled, a candidate can change only the completions, and only by a
        // word the partial word matches whose completion is not final yet (``noteFinalWords``):
        // one whose words are all final is passed over on its forward list, unread. "r-cr" on
        // Debian: its 1,100 "r-cran-…" candidates offer "cran" again and again, while the other
        // words starting "cr" that complete the answer sit far down the rank order. The partial
        // word's words are known by ordinal when it is exact (`prefix`) or when its typo matches
        // are mapped to ranges (``OrdinalDistances``).
        var finalOrdinals: [UInt32] = []
        let typoRanges = prefix == nil && readsDistances && ordinalDistances!.readsPartial && query.partial != nil
        let tracksFinalWords = (prefix != nil || typoRanges) && acc.wantsCompletions
        var passedOver = 0
        defer { if passedOver > 0 { Self.candidatesWithFinalWordsPassedOver.add(passedOver, ordering: .relaxed) } }
        var rejectedUnread = 0
        defer { if rejectedUnread > 0 { Self.candidatesRejectedByForwardDistances.add(rejectedUnread, ordering: .relaxed) } }
        while index < candidates.count {
            if index == probe {
                // The probe's matches estimate how much more the walk would read.
                probe = Int.max
                let left = candidates.count - index
                let walkWouldRead = matched == 0 ? left : min(left, Self.matchesToSettle * Self.narrowingProbe / matched)
                // All the candidates are narrowed, not a copy of those left (half a million
                // numbers copied for "Camakee b"); the walk goes on from the first one not read.
                if let narrowing, left > Self.narrowingProbe,
                   let narrowed = try narrowed(candidates, by: narrowing, walkWouldRead: walkWouldRead, forwardTests: prefix != nil, in: txn) {
                    index = gallop(narrowed, to: candidates[index], from: 0)
                    candidates = narrowed
                    continue
                }
            }
            try checkStop(&read)
            let docnum = candidates[index]
            if docnum >= base {
                candidateExactness = .unknown  // delta candidates are verified whole
                candidateDistancesKnown = false
                try rankDelta(candidates[index...], &acc, filtersHold: filtersHold, entered: entered, completionLimit: completionLimit,
                              pass: &pass, read: &read, in: txn)
                return
            }
            if acc.isSettled(completionLimit: completionLimit, after: last) {
                // Skip to the delta documents.
                var low = index, high = candidates.count
                while low < high {
                    let mid = (low + high) / 2
                    if candidates[mid] < base { low = mid + 1 } else { high = mid }
                }
                index = low
                continue
            }
            index += 1
            var known = exactness
            if pass != nil {
                known = pass!.exactness(of: docnum)
                if known.bound != pass!.typos { continue }
            }
            let entriesSettled = tracksFinalWords && acc.entriesSettled(after: last)
            if let prefix {
                if try forward!.hasOrdinal(in: prefix, notIn: entriesSettled ? finalOrdinals : [], docnum, txn) == false {
                    if entriesSettled, !finalOrdinals.isEmpty { passedOver += 1 }
                    continue
                }
            } else if entriesSettled {
                if try forward!.hasOrdinal(where: { ordinalDistances!.partialMatches($0) }, notIn: finalOrdinals, docnum, txn) == false {
                    if !finalOrdinals.isEmpty { passedOver += 1 }
                    continue
                }
            }
            candidateExactness = filtersHold ? known : .unknown
            candidateDistancesKnown = false
            // Only when some distance is not known already (the first pass needs none). Read
            // before the document: a candidate its forward list proves unmatched is not read at
            // all (`typos(of:filtersHold:)` would reject it on these distances alone).
            if readsDistances, forward != nil, ordinalDistances!.readsPartial && !known.partialWord
                || ordinalDistances!.readsSomeWord && !known.completeWords && !completeWordsHoldExactly {
                candidateDistancesKnown = try ordinalDistances!.read(docnum, &forward!, txn, complete: &candidateCompleteDistances,
                                                                     partial: &candidatePartialDistance)
                if partialDistanceRead && candidatePartialDistance < 0 {
                    // No name word the partial word matches: `typos(of:filtersHold:)` would reject
                    // it on this alone. (Complete words need no such test: the candidates are their
                    // postings.) "python3-libt" on Debian walks the 4,274 candidates with "python3"
                    // (the typo'd "libt" matches too many words to narrow them), most without such
                    // a word; reading each record to find that was over half the keystroke.
                    // `last` stays at the last candidate read: the walk settles no earlier than
                    // it would have, and no document it skips could have entered.
                    rejectedUnread += 1
                    continue
                }
            }
            guard let doc = try generation.document(docnum, in: txn) else { continue }
            last = CandidateKey(typos: 0, field: 0, startsWith: false, weight: doc.weight, sortTitle: doc.sortTitle, id: doc.id)
            if try consider(doc, &acc, filtersHold: filtersHold, entryKnown: !entered.isEmpty && contains(entered, docnum)) {
                matched += 1
            }
            startsWithProbe -= 1
            if startsWithProbe == 0, acc.startsWithPossible, !acc.entriesSettled(after: last),
               let possible = try startsWithCandidates(comparedWith: candidates.count, limit: Self.lateStartsWithLimit, in: txn) {
                Self.lateStartsWithListings.add(1, ordering: .relaxed)
                entered = union(entered, try enterStartsWith(possible, among: candidates, &acc, in: txn))
            }
            if entriesSettled, acc.wantsCompletions {
                try noteFinalWords(of: doc, prefix: prefix, acc, forward: &forward!, into: &finalOrdinals, txn)
            }
        }
    }

    /// Candidates the walk left unread, their forward lists showing no word the partial word
    /// matches (for tests).
    static let candidatesRejectedByForwardDistances = Atomic<Int>(0)

    /// Candidates passed over by ``noteFinalWords``' ordinals (with those that have no word the
    /// partial word matches at all, once some word is final): tests check that the rule is what
    /// they test.
    static let candidatesWithFinalWordsPassedOver = Atomic<Int>(0)

    /// Adds to `final` the ordinals of `doc`'s name words that the partial word matches (those in
    /// `prefix`, the exact partial word's range, else in the typo'd one's mapped ranges) whose
    /// completion is final: noted from an entry with no more typos than any unread candidate can
    /// have (`acc.bestTypos`), which no later base document can better, as it ranks after that
    /// entry with at least as many typos. Only base documents are passed over by these ordinals;
    /// the delta is read as before.
    ///
    /// A document's distinct matching words, in byte order, are its matching ordinals, in order
    /// (ordinals number the name words in byte order, ``ForwardIndex``; the exact partial word's
    /// are its prefix's range, a typo'd one's are its walk's regions, the same automaton's
    /// matches), so they are paired without looking an ordinal up. Were the counts ever to
    /// differ, nothing is added: that only reads more.
    private mutating func noteFinalWords(of doc: DocumentView, prefix: Range<UInt32>?, _ acc: SuggestAccumulator,
                                         forward: inout ForwardIndex.Reader, into final: inout [UInt32],
                                         _ txn: borrowing ReadTransaction) throws {
        var ordinals: [UInt32] = []
        guard try forward.forEachOrdinal(doc.docnum, txn, { ordinal in
            if prefix?.contains(ordinal) ?? ordinalDistances!.partialMatches(ordinal) { ordinals.append(ordinal) }
        }) else { return }
        var words: [Bytes] = []
        for list in [doc.sortTitle, doc.aliasWords] {
            for word in WordList(bytes: list) where query.partial!.distance(to: word) != nil { words.append(word) }
        }
        words.sort { $0.lexicographicallyPrecedes($1) }
        var distinct = 0
        for word in words where distinct == 0 || !words[distinct - 1].elementsEqual(word) {
            words[distinct] = word
            distinct += 1
        }
        guard distinct == ordinals.count else { return }
        for (ordinal, word) in zip(ordinals, words.prefix(distinct)) where !final.contains(ordinal) {
            guard let index = word.withUnsafeBytes({ acc.completions.index(of: $0) }),
                  acc.completions.entries[index].value.key.typos <= acc.bestTypos else { continue }
            final.append(ordinal)
        }
    }

    /// Reads, verifies and ranks the delta candidates (`docs`, ascending, every one a delta
    /// number), heaviest first, until nothing lighter can change the answer.
    ///
    /// Why: delta documents are numbered as they arrived, not in rank order, so they used to be
    /// read whole. With a fifth of cities re-weighted, "San F" read the 2,000 delta documents with
    /// "san" (7.6 ms). Their weights are the snapshot's ``DeltaWeights`` (or read from the records' heads,
    /// ``Generation/documentWeight(_:in:)``, while those are built),
    /// without decoding or verifying them; then the documents are read by weight, descending.
    ///
    /// Every unread one then has at most the weight `w` of the next, and at least the pass's
    /// typos: its entry ranks no better than (typos, inexact, `startsWithPossible`, `w`), and its
    /// completions no better than (the partial word's best distance, typos, `w`). Where the weight
    /// changes (ties are broken by sortTitle and id, which weights alone do not give), the walk stops
    /// once the entries are full of keys ranking before that, and enough completions do too
    /// (``finalCompletions(_:before:typos:weight:atLeast:)``): nothing unread can enter, nor improve
    /// a word that ranks before it (its entry would rank after it).
    private mutating func rankDelta(_ docs: ArraySlice<UInt32>, _ acc: inout SuggestAccumulator, filtersHold: Bool, entered: [UInt32],
                                    completionLimit: Int, pass: inout TypoPass?, read: inout Int,
                                    in txn: borrowing ReadTransaction) throws {
        // The snapshot's weights when built (a bit test and a load each), else each record's head.
        let weights = try generation.deltaWeights(reads: docs.count, in: txn)
        /// Reads one member, heaviest first; false once nothing lighter can change the answer.
        func visit(_ docnum: UInt32, weight: UInt64, runWeight: inout UInt64?, _ context: inout SuggestContext) throws -> Bool {
            if weight != runWeight {
                runWeight = weight
                if Self.deltaSettled(acc, weight: weight, completionLimit: completionLimit) { return false }
            }
            try context.checkStop(&read)
            guard let doc = try context.generation.document(docnum, in: txn) else { return true }
            try context.consider(doc, &acc, filtersHold: filtersHold, entryKnown: !entered.isEmpty && contains(entered, docnum))
            return true
        }
        var runWeight: UInt64?
        // Many members: marked, then met in the snapshot's rank order of the whole delta, which the
        // walk leaves once settled, instead of sorted ("Camakee Ca" with a fifth of the synthetic 1M
        // catalog re-weighted: 100,000 delta candidates, sorted on every keystroke, 5 ms).
        if let weights, docs.count * Self.deltaOrderDensity >= weights.count {
            var members = DocumentBitmap(spanning: weights.count)
            for docnum in docs where docnum >= weights.first {
                if pass != nil, !pass!.contains(docnum) { continue }
                members.insert(docnum - weights.first)
            }
            for docnum in weights.order where members.contains(docnum - weights.first) {
                guard try visit(docnum, weight: weights.weight(of: docnum) ?? 0, runWeight: &runWeight, &self) else { return }
            }
            return
        }
        if let weights {
            // Fewer: their places in the rank order, sorted as numbers (a radix sort; sorting
            // (weight, number) pairs through a closure was half of this walk on Debian with a
            // fifth re-weighted).
            var places: [UInt32] = []
            places.reserveCapacity(docs.count)
            for docnum in docs {
                if pass != nil, !pass!.contains(docnum) { continue }
                try checkStop(&read)
                if let place = weights.place(of: docnum) { places.append(place) }
            }
            sortDocuments(&places)
            for place in places {
                let docnum = weights.order[Int(place)]
                guard try visit(docnum, weight: weights.weight(of: docnum) ?? 0, runWeight: &runWeight, &self) else { return }
            }
            return
        }
        var members: [(weight: UInt64, docnum: UInt32)] = []
        members.reserveCapacity(docs.count)
        for docnum in docs {
            if pass != nil, !pass!.contains(docnum) { continue }
            try checkStop(&read)
            guard let weight = try generation.documentWeight(docnum, in: txn) else { continue }
            members.append((weight, docnum))
        }
        members.sort { $0.weight != $1.weight ? $0.weight > $1.weight : $0.docnum < $1.docnum }
        for (weight, docnum) in members {
            guard try visit(docnum, weight: weight, runWeight: &runWeight, &self) else { return }
        }
    }

    /// Delta candidates, as a share of the delta (one in this many at least), from which they are
    /// met in the delta's rank order (``DeltaWeights/order``) rather than sorted.
    static let deltaOrderDensity = 16

    /// Whether no candidate of at most `weight` (and at least the pass's typos) can change the
    /// entries or the completions (see ``rankDelta(_:_:filtersHold:entered:completionLimit:pass:read:in:)``).
    private static func deltaSettled(_ acc: SuggestAccumulator, weight: UInt64, completionLimit: Int) -> Bool {
        if acc.entries.limit > 0 {
            guard acc.entries.isFull, let worst = acc.entries.worst,
                  ranksBeforeInexact(worst, typos: acc.bestTypos, startsWith: acc.startsWithPossible, weight: weight) else { return false }
        }
        return !acc.wantsCompletions
            || finalCompletions(acc, before: acc.bestPartialDistance, typos: acc.bestTypos, weight: weight, atLeast: completionLimit)
    }

    /// A superset of the base documents whose title starts with the typed text, in no particular
    /// order (``enterStartsWith(_:among:_:in:)`` sorts what it reads); nil when they are too many
    /// to list. From the `titles` index: the documents whose title starts with
    /// the typed text itself, one key range (``Generation/documents(withTitlePrefix:atMost:in:)``).
    /// Without it (a generation written before it), the documents whose first title word starts
    /// with the first typed word: the heavy trie node's startsWith list when it is complete, else,
    /// for a light prefix, its few postings.
    ///
    /// Listing them pays only when they are few among the `candidates`: where many candidates start
    /// with the text, the walk in rank order fills the entries with them soon anyway, and the
    /// listing would read a long key range for nothing.
    private func startsWithCandidates(comparedWith candidates: Int, limit cap: Int = startsWithLimit,
                                      in txn: borrowing ReadTransaction) throws -> [UInt32]? {
        if generation.schema.titles != nil {
            let limit = min(cap, max(16, candidates / 16))
            guard query.partial == nil, !query.complete.isEmpty else {
                return try generation.documents(withTitlePrefix: query.startsWithPrefix, atMost: limit, in: txn)
            }
            // Complete words only ("lu "): a title starts with them when it is them, or goes on
            // after a space ("lu bagnu"), not when its word goes on ("luanda"): two key ranges
            // (the title, then 0x00, the document number; or the title, then a space), which
            // a title key keeps whole up to its cut.
            // A title is keyed once: the ranges hold different documents.
            guard query.startsWithPrefix.count < TitleKey.maximumTitleBytes,
                  let exact = try generation.documents(withTitlePrefix: query.startsWithPrefix + [0x00], atMost: limit, in: txn),
                  let longer = try generation.documents(withTitlePrefix: query.startsWithPrefix + [0x20], atMost: limit - exact.count, in: txn)
            else { return nil }
            return exact + longer
        }
        guard let first = query.complete.first?.bytes ?? query.partial?.bytes else { return nil }
        if let node = try generation.heavyNode(first, in: txn) {
            return node.startsWithTruncated ? nil : node.startsWith
        }
        var docs: [UInt32] = []
        try txn.withCursor(generation.schema.terms) { cursor in
            var entry = try cursor.seek(atLeast: first)
            while let (key, value) = entry, key.hasPrefix(first) {
                var postings = try PostingCursor(value)
                while let doc = postings.current {
                    docs.append(doc)
                    try postings.advance()
                }
                entry = try cursor.nextKey()
            }
        }
        sortUnique(&docs)
        return docs
    }
}
