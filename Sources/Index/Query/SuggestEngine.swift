import Analysis
import Storage

/// Answers a ``SuggestRequest`` against one generation, exactly as Semantics.md defines it.
///
/// Two plans, one answer:
/// - **Trie plan** (one partial word, no tokens, no complete words): the heavy trie node of the
///   prefix lists the best base documents below it, so a one-letter prefix over a million entries
///   reads two short lists instead of its subtree. Delta documents are evaluated directly. The plan
///   proves its answer exact (every listed result ranks before anything the lists leave out) or
///   gives up and the general plan runs.
/// - **General plan**: the cheapest query word or token drives — its postings are the candidates —
///   and every candidate is verified against the whole query from its stored words.
struct SuggestEngine {
    let generation: Generation
    let analyzer: Analyzer
    /// Polled between candidates; true stops the query with `IndexError.Code.cancelled`.
    var shouldStop: (@Sendable () -> Bool)? = nil
    /// A client's presented answer, or one shard's part of a merged answer.
    var form: ResponseForm = .presented

    /// Reading candidates is where time goes, so that is where a stop request is honoured
    /// (every 256 documents: the check is cheap, but not free).
    @inline(__always)
    func checkStop(_ counter: inout Int) throws {
        counter &+= 1
        if counter & 255 == 0, let shouldStop, shouldStop() {
            throw IndexError(.cancelled, "the query was stopped before it finished")
        }
    }

    func suggest(_ request: SuggestRequest, in txn: borrowing ReadTransaction) throws -> SuggestResponse {
        try Self.validate(request.limits)
        var query = try PreparedQuery(text: request.text, tokens: request.tokens, typos: request.typos, analyzer: analyzer)
        let deleted = try generation.deletedSet(in: txn)

        var matchingCategories: [[UInt8]: Int] = [:]
        if let partial = query.partial, request.limits.categories > 0 {
            matchingCategories = try generation.categories(matching: partial, in: txn)
        }

        var accumulator: Accumulator
        if let viaTrie = try trySuggestViaTrie(&query, request, deleted: deleted, in: txn) {
            accumulator = viaTrie
        } else if let exact = try suggestWithoutTypos(query, request, matchingCategories, deleted: deleted, in: txn) {
            accumulator = exact
        } else {
            accumulator = try evaluateGenerally(&query, request, matchingCategories, deleted: deleted, in: txn)
        }
        return try respond(query, request, accumulator, matchingCategories, in: txn)
    }

    /// Every match that needs a typo ranks after every match that needs none, in entries and in
    /// completions alike. So when the typo-free matches already fill every section, typos cannot
    /// change the answer and the expensive expansion of query words into similar terms is skipped.
    /// Category counts are the exception: they count typo matches of complete words too, so the
    /// shortcut holds for them only when no complete word may have typos.
    private func suggestWithoutTypos(_ query: PreparedQuery, _ request: SuggestRequest, _ matchingCategories: [[UInt8]: Int],
                                     deleted: DeletedSet?, in txn: borrowing ReadTransaction) throws -> Accumulator? {
        let words = query.complete + (query.partial.map { [$0] } ?? [])
        guard words.contains(where: { $0.budget > 0 }) else { return nil }
        // Counted categories include typo matches of complete words: then this shortcut can never
        // be taken, so do not pay for trying.
        let countsCategories = !matchingCategories.isEmpty && !(query.complete.isEmpty && query.tokens.isEmpty)
        if countsCategories && query.complete.contains(where: { $0.budget > 0 }) { return nil }
        var exact = query
        exact.complete = query.complete.map { $0.withoutTypos() }
        exact.partial = query.partial?.withoutTypos()
        let acc = try evaluateGenerally(&exact, request, matchingCategories, deleted: deleted, in: txn)
        guard acc.entries.isFull || acc.entries.limit == 0 else { return nil }
        guard !acc.wantsCompletions || acc.completions.count >= request.limits.completions else { return nil }
        guard acc.categoryCounts == nil || query.complete.allSatisfy({ $0.budget == 0 }) else { return nil }
        return acc
    }

    static func validate(_ limits: SuggestLimits) throws(IndexError) {
        for (name, value) in [("entries", limits.entries), ("categories", limits.categories), ("completions", limits.completions)] {
            guard (0...SuggestLimits.maximum).contains(value) else {
                throw .invalidArgument("limits.\(name) must be between 0 and \(SuggestLimits.maximum), got \(value)")
            }
        }
    }

    // MARK: Accumulating matches

    /// What evaluation gathers: the best entries, the best entry of every completion word, and
    /// per-category counts of the rest of the query.
    struct Accumulator {
        var entries: TopCandidates
        var completions: [[UInt8]: (distance: Int, key: CandidateKey, docnum: UInt32)] = [:]
        var wantsCompletions: Bool
        /// Non-nil when counting categories of entries matching the complete words and tokens.
        var categoryCounts: [[UInt8]: Int]?

        mutating func noteCompletion(_ term: Bytes, distance: Int, key: CandidateKey, docnum: UInt32) {
            noteCompletion(Array(term), distance: distance, key: key, docnum: docnum)
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
        var openWords: [[UInt8]: Int]?
        var openByDistance: [Int] = []
        var finalChecks = 0

        mutating func noteCompletion(_ word: [UInt8], distance: Int, key: CandidateKey, docnum: UInt32) {
            if openWords != nil, key.typos == bestTypos, let d = openWords!.removeValue(forKey: word) {
                openByDistance[d] -= 1
            }
            let existing = completions[word]
            if let existing {
                if existing.distance < distance || (existing.distance == distance && !(key < existing.key)) { return }
            }
            let wasPerfect = existing.map { isPerfect($0.distance, $0.key) } ?? false
            if !wasPerfect && isPerfect(distance, key) { perfectCompletions += 1 }
            completions[word] = (distance, key, docnum)
        }

        /// A word at the smallest distance whose entry has the fewest typos possible is final as
        /// soon as it is seen: later entries in static order can only be less popular.
        private func isPerfect(_ distance: Int, _ key: CandidateKey) -> Bool {
            distance == bestPartialDistance && key.typos == bestTypos
        }

        /// True when no base document later in rank order can change entries or completions:
        /// the entries are full of matches in the best class there is, and as many completions
        /// in the best class as wanted are known.
        mutating func isSettled(completionLimit: Int) -> Bool {
            if entries.limit > 0 {
                // `bestTypos` is a lower bound of every unread candidate's typos.
                guard entries.isFull, let worst = entries.worst,
                      worst.typos < bestTypos || (worst.typos == bestTypos && (worst.startsWith || !startsWithPossible))
                else { return false }
            }
            return !wantsCompletions || perfectCompletions >= completionLimit || completionsFinal(limit: completionLimit)
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
            for value in completions.values
            where value.distance < nearestOpen || (value.distance == nearestOpen && value.key.typos <= bestTypos) {
                safe += 1
                if safe >= limit { return true }
            }
            return false
        }

        /// Starts tracking open words (see ``openWords``); `words` are name terms with distances.
        mutating func trackOpenWords(_ words: [(term: [UInt8], distance: Int)]) {
            var open: [[UInt8]: Int] = [:]
            var byDistance: [Int] = []
            for (term, distance) in words {
                if open.updateValue(distance, forKey: term) != nil { continue }
                while byDistance.count <= distance { byDistance.append(0) }
                byDistance[distance] += 1
            }
            openWords = open
            openByDistance = byDistance
        }
    }

    /// Verifies one document against the whole query and records it.
    ///
    /// - Parameter filtersHold: the caller knows the tokens and complete words match (the document
    ///   came from their postings), so only typo counts of complete words need computing.
    /// - Parameter entryKnown: its entry was recorded already (read early as a possible
    ///   startsWith match): only its completions are noted now.
    func consider(_ doc: DocumentView, _ query: inout PreparedQuery, _ acc: inout Accumulator,
                  filtersHold: Bool = false, entryKnown: Bool = false) throws {
        if !filtersHold {
            for category in query.tokenCategories {
                guard try doc.hasCategory(category) else { return }
            }
        }
        var typos = 0
        for i in query.complete.indices where !filtersHold || query.complete[i].budget > 0 {
            guard let d = bestNameDistance(&query.complete[i], doc) else { return }
            typos += d
        }
        if query.partial != nil {
            guard let d = bestNameDistance(&query.partial!, doc) else { return }
            typos += d
        }
        if !entryKnown {
            let key = CandidateKey(typos: typos, field: 0, startsWith: query.startsWith(doc.sortTitle),
                                   weight: doc.weight, sortTitle: doc.sortTitle, id: doc.id)
            acc.entries.insert(key, docnum: doc.docnum, title: doc.title)
        }
        if acc.wantsCompletions, query.partial != nil {
            let completionKey = Self.completionKey(doc, typos: typos)
            for list in [doc.sortTitle, doc.aliasWords] {
                for word in WordList(bytes: list) {
                    if let d = query.partial!.distance(to: word) {
                        acc.noteCompletion(word, distance: d, key: completionKey, docnum: doc.docnum)
                    }
                }
            }
        }
    }

    /// A completion's best entry is its best match by rank key without startsWith (Semantics.md).
    static func completionKey(_ doc: DocumentView, typos: Int) -> CandidateKey {
        CandidateKey(typos: typos, field: 0, startsWith: true, weight: doc.weight, sortTitle: doc.sortTitle, id: doc.id)
    }

    private func bestNameDistance(_ word: inout QueryWord, _ doc: DocumentView) -> Int? {
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

    private func newAccumulator(_ query: PreparedQuery, _ request: SuggestRequest, countCategories: Bool) -> Accumulator {
        Accumulator(entries: TopCandidates(limit: request.limits.entries, dedupe: request.dedupe),
                    wantsCompletions: query.partial != nil && request.limits.completions > 0,
                    categoryCounts: countCategories ? [:] : nil)
    }

    // MARK: The trie plan

    private func trySuggestViaTrie(_ query: inout PreparedQuery, _ request: SuggestRequest, deleted: DeletedSet?,
                                   in txn: borrowing ReadTransaction) throws -> Accumulator? {
        guard query.complete.isEmpty, query.tokens.isEmpty, let partial = query.partial,
              let node = try generation.heavyNode(partial.bytes, in: txn) else { return nil }
        var acc = newAccumulator(query, request, countCategories: false)
        let typosPossible = partial.budget > 0

        // Delta documents: every one that matches, verified like any candidate.
        var deltaDocs: [UInt32] = []
        for (term, _) in try generation.deltaTerms(matching: partial, in: txn) {
            try generation.appendDeltaPostings(of: term, includeDescription: false, to: &deltaDocs, in: txn)
        }
        sortUnique(&deltaDocs)
        for docnum in deltaDocs {
            guard let doc = try generation.document(docnum, in: txn) else { continue }
            try consider(doc, &query, &acc)
        }

        // Base entries, in rank order: the startsWith list, then (only if that list is complete,
        // since otherwise unlisted startsWith documents outrank every other one) the rest of `all`.
        // Listed documents contain a word starting with the partial word: no typos, no verification.
        func baseKey(_ doc: DocumentView, startsWith: Bool) -> CandidateKey {
            CandidateKey(typos: 0, field: 0, startsWith: startsWith, weight: doc.weight, sortTitle: doc.sortTitle, id: doc.id)
        }
        for docnum in node.startsWith where acc.entries.limit > 0 {
            if let deleted, try deleted.contains(docnum, in: txn) { continue }
            guard let doc = try generation.document(docnum, in: txn) else { continue }
            let key = baseKey(doc, startsWith: true)
            if acc.entries.isFull, let worst = acc.entries.worst, !(key < worst) { break }
            acc.entries.insert(key, docnum: docnum, title: doc.title)
        }
        if !node.startsWithTruncated && acc.entries.limit > 0 {
            // Both lists hold at most `listSize` documents: a linear look-up beats hashing them.
            for docnum in node.all where !node.startsWith.contains(docnum) {
                if let deleted, try deleted.contains(docnum, in: txn) { continue }
                guard let doc = try generation.document(docnum, in: txn) else { continue }
                let key = baseKey(doc, startsWith: false)
                if acc.entries.isFull, let worst = acc.entries.worst, !(key < worst) { break }
                acc.entries.insert(key, docnum: docnum, title: doc.title)
            }
        }

        // Everything the lists leave out ranks after a bound: unlisted startsWith documents after the
        // last listed one, other unlisted documents after the last of `all`, and base documents that
        // match only with typos after every typo-free match. The answer is exact when every entry
        // returned ranks within the bounds and, if anything is left out, the entries are full.
        var bound: CandidateKey?
        if node.startsWithTruncated, let last = node.startsWith.last, let doc = try generation.document(last, in: txn) {
            bound = baseKey(doc, startsWith: true)
        } else if node.allTruncated, let last = node.all.last, let doc = try generation.document(last, in: txn) {
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
        // document. The first `limit` of them, merged with the delta's, decide the answer.
        guard acc.wantsCompletions else { return acc }
        let wanted = request.limits.completions
        var completionBound: CandidateKey?
        for (index, listed) in node.completions.prefix(wanted).enumerated() {
            if let deleted, try deleted.contains(listed.best, in: txn) { return nil }
            guard let doc = try generation.document(listed.best, in: txn) else { return nil }
            let key = Self.completionKey(doc, typos: 0)
            acc.noteCompletion(listed.term, distance: 0, key: key, docnum: listed.best)
            if index == min(wanted, node.completions.count) - 1 { completionBound = key }
        }
        let completionsHidden = node.completionsTruncated || typosPossible
        if completionsHidden {
            let ranked = acc.completions.values.sorted { a, b in
                a.distance != b.distance ? a.distance < b.distance : a.key < b.key
            }
            guard ranked.count >= wanted else { return nil }
            for item in ranked.prefix(wanted) {
                guard item.distance == 0 else { return nil }
                if node.completionsTruncated, let completionBound, completionBound < item.key { return nil }
            }
        }
        return acc
    }

    // MARK: The general plan

    /// The general plan. Candidates come from postings alone: the complete words' and tokens'
    /// posting lists are intersected (cheapest first), so a document that fails a filter is never
    /// read. Category counts are intersections of that set with each category's postings. Only then
    /// are documents read, in document-number order — which for the base segment is rank order —
    /// to verify the partial word and rank; once the answer is settled the rest of the base is
    /// skipped (delta documents, not in rank order, are always read).
    private func evaluateGenerally(_ query: inout PreparedQuery, _ request: SuggestRequest, _ matchingCategories: [[UInt8]: Int],
                                   deleted: DeletedSet?, in txn: borrowing ReadTransaction) throws -> Accumulator {
        let restIsEverything = query.complete.isEmpty && query.tokens.isEmpty
        let countCategories = !matchingCategories.isEmpty && !restIsEverything
        var acc = newAccumulator(query, request, countCategories: countCategories)
        if restIsEverything && query.partial == nil {
            try evaluateAll(&query, &acc, deleted: deleted, in: txn)
            return acc
        }

        // 1. The rest of the query (complete words and tokens) as a sorted list of documents.
        let (rest, nearest) = try generation.filteredDocuments(words: query.complete, tokens: query.tokens,
                                                               includeDescription: false, deleted: deleted, in: txn)
        for distance in nearest {
            acc.bestTypos += distance
            if distance > 0 { acc.startsWithPossible = false }
        }
        if let partial = query.partial, partial.budget > 0, try !generation.hasNameTerm(withPrefix: partial.bytes, in: txn) {
            acc.bestTypos += 1
            acc.bestPartialDistance = 1
            acc.startsWithPossible = false
        }

        // 2. Category counts: |rest ∩ category|.
        if countCategories, let rest {
            var counts: [[UInt8]: Int] = [:]
            for name in matchingCategories.keys {
                let term = Schema.tokenTerm(.category(String(decoding: name, as: UTF8.self)))
                counts[name] = intersectionCount(rest, try generation.documents(of: [term], includeDescription: false, in: txn))
            }
            acc.categoryCounts = counts
        }

        // 3. Candidates for the whole query, verified and ranked in document order.
        let completionLimit = request.limits.completions
        guard let rest else {
            try evaluatePartialOnly(&query, &acc, deleted: deleted, completionLimit: completionLimit, in: txn)
            return acc
        }
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
        // An exact partial word with few postings narrows the candidates by intersection, so a
        // common complete word ("new …") does not mean reading every document that has it.
        var candidates = rest
        if let terms = partialTerms {
            var postings = 0
            for term in terms where postings <= Self.narrowingFactor * rest.count {
                postings += try generation.postingCount(of: term, includeDescription: false, in: txn)
            }
            if postings <= Self.narrowingFactor * rest.count {
                candidates = intersect(rest, try generation.documents(of: terms, includeDescription: false, in: txn))
            }
        }
        // Likewise a typo'd partial word: its matching words (a term walk, worth it only for a large
        // `rest`) narrow the candidates when they have few postings ("camakee sholfumastgro" reads
        // the documents of the rare word, not the 500,000 of the common one).
        var typoMatches: [(term: [UInt8], distance: Int)]?
        if let partial = query.partial, partial.budget > 0, rest.count > 2048 {
            let matches = try generation.terms(matching: partial, in: txn)
            typoMatches = matches
            var postings = 0
            for (term, _) in matches where postings <= Self.narrowingFactor * rest.count {
                postings += try generation.postingCount(of: term, includeDescription: false, in: txn)
            }
            if postings <= Self.narrowingFactor * rest.count {
                candidates = intersect(rest, try generation.documents(of: matches.map(\.term), includeDescription: false, in: txn))
            }
        }
        // Completions settle only when enough of them are final. Without typos in the partial word
        // enough final ones are usually there early; with typos, few words are near the typed one
        // and some may never co-occur with the complete words, so reading would go on to the end
        // of `rest`. Knowing every word a completion could be lets the walk stop once none that is
        // still open could enter (see `Accumulator.trackOpenWords`); bounded by the number of words.
        if acc.wantsCompletions, let typoMatches, candidates.count > 2048 {
            var words: [(term: [UInt8], distance: Int)] = []
            var known = typoMatches.count <= 4096
            var scanned = 0  // postings read by `occurs`, bounded: past the bound tracking gives up
            for (term, distance) in typoMatches where known {
                // A word that no candidate has can never be a completion: leave it out, or it would
                // stay open to the end.
                guard try occurs(term, in: candidates, scanned: &scanned, txn) else { continue }
                words.append((term, distance))
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
        var entered: Set<UInt32> = []
        if acc.startsWithPossible, acc.entries.limit > 0, let possible = try startsWithCandidates(query, in: txn) {
            let wanted = acc.wantsCompletions
            acc.wantsCompletions = false  // completions are noted in document order, below
            for docnum in intersect(candidates, possible) {
                guard let doc = try generation.document(docnum, in: txn), query.startsWith(doc.sortTitle) else { continue }
                try consider(doc, &query, &acc, filtersHold: true)
                entered.insert(docnum)
            }
            acc.wantsCompletions = wanted
            acc.startsWithPossible = false
        }
        // Candidates are read in passes by a lower bound of their typos, each pass in document
        // (= rank) order, so that a pass's matches come best-first and the walk can settle inside
        // it: a candidate without every complete word spelled exactly has at least one typo, and
        // one without a word starting with the typed partial word exactly has at least one more.
        // Often the answer settles in the first pass and the rest is never read.
        var exactComplete: [UInt32]?
        if query.complete.contains(where: { $0.budget > 0 }) {
            exactComplete = try generation.filteredDocuments(words: query.complete.map { $0.withoutTypos() }, tokens: query.tokens,
                                                             includeDescription: false, deleted: deleted, in: txn).docs ?? []
        }
        var exactPartial: [UInt32]?
        if let partial = query.partial, partial.budget > 0, acc.bestPartialDistance == 0,
           let terms = try generation.prefixTerms(partial.bytes, atMost: 256, in: txn) {
            var postings = 0
            for term in terms where postings <= Self.narrowingFactor * candidates.count {
                postings += try generation.postingCount(of: term, includeDescription: false, in: txn)
            }
            if postings <= Self.narrowingFactor * candidates.count {
                exactPartial = try generation.documents(of: terms, includeDescription: false, in: txn)
            }
        }
        let passes = Self.passes(candidates, exactComplete: exactComplete, exactPartial: exactPartial)
        let bestTypos = acc.bestTypos
        for (typos, docs) in passes.enumerated() where !docs.isEmpty {
            acc.bestTypos = max(bestTypos, typos)
            // A title that starts with the typed text has every typed word exactly.
            if typos > 0 { acc.startsWithPossible = false }
            try rank(docs, &query, &acc, filtersHold: true, entered: entered, completionLimit: completionLimit, in: txn)
        }
        if let completionTerms {
            acc.wantsCompletions = true
            try completeWithin(rest, terms: completionTerms, limit: completionLimit, into: &acc, in: txn)
        }
        return acc
    }

    /// `candidates` split by the least typos each can have: 0, 1 or 2 (missing from
    /// `exactComplete` and from `exactPartial` each cost one; a nil list costs nothing).
    static func passes(_ candidates: [UInt32], exactComplete: [UInt32]?, exactPartial: [UInt32]?) -> [[UInt32]] {
        guard exactComplete != nil || exactPartial != nil else { return [candidates] }
        var passes: [[UInt32]] = [[], [], []]
        var i = 0, j = 0
        for doc in candidates {
            var typos = 0
            if let list = exactComplete {
                while i < list.count, list[i] < doc { i += 1 }
                if i == list.count || list[i] != doc { typos += 1 }
            }
            if let list = exactPartial {
                while j < list.count, list[j] < doc { j += 1 }
                if j == list.count || list[j] != doc { typos += 1 }
            }
            passes[typos].append(doc)
        }
        return passes
    }

    /// A partial word's postings narrow the candidates when they number at most this many times the
    /// candidates: decoding and intersecting a posting costs a few nanoseconds, verifying a
    /// candidate document about a microsecond.
    static let narrowingFactor = 4

    /// Whether some document of sorted `docs` has `term` as a name word (base or delta).
    private func occurs(_ term: [UInt8], in docs: [UInt32], scanned: inout Int, _ txn: borrowing ReadTransaction) throws -> Bool {
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

    /// Completions when every match is typo-free: each word's best entry is its first document in
    /// `rest` (base numbers are rank order; delta documents are compared by key).
    private func completeWithin(_ rest: [UInt32], terms: [[UInt8]], limit: Int, into acc: inout Accumulator,
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

    /// Reads, verifies and ranks `candidates` (sorted) in document order, skipping the rest of the
    /// base segment once nothing later can change the answer.
    /// `entered` documents have their entries recorded already.
    private func rank(_ candidates: [UInt32], _ query: inout PreparedQuery, _ acc: inout Accumulator, filtersHold: Bool,
                      entered: Set<UInt32> = [], completionLimit: Int,
                      in txn: borrowing ReadTransaction) throws {
        let base = generation.baseCount
        var index = 0
        var read = 0
        while index < candidates.count {
            try checkStop(&read)
            let docnum = candidates[index]
            if docnum < base, acc.isSettled(completionLimit: completionLimit) {
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
            guard let doc = try generation.document(docnum, in: txn) else { continue }
            try consider(doc, &query, &acc, filtersHold: filtersHold, entryKnown: !entered.isEmpty && entered.contains(docnum))
        }
    }

    /// The base documents whose first title word starts with the first typed word (a superset of
    /// those whose title starts with the typed text), sorted; nil when they are too many to list.
    /// From the heavy trie node's startsWith list when it is complete, else, for a light prefix,
    /// from its few postings.
    private func startsWithCandidates(_ query: PreparedQuery, in txn: borrowing ReadTransaction) throws -> [UInt32]? {
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

    /// No words and no tokens: every entry matches with the same typos and startsWith, so base
    /// documents (numbered in rank order) are read only until the entries are full; every delta
    /// document is read.
    private func evaluateAll(_ query: inout PreparedQuery, _ acc: inout Accumulator, deleted: DeletedSet?,
                             in txn: borrowing ReadTransaction) throws {
        let base = generation.baseCount
        try txn.withCursor(generation.schema.docs) { cursor in
            var entry = try cursor.first()
            while let (key, value) = entry {
                let docnum = key.loadBigEndian(UInt32.self, at: 0)
                if docnum < base, acc.entries.isFull || acc.entries.limit == 0 {
                    entry = try cursor.seek(atLeast: base)
                    continue
                }
                if !(try deleted?.contains(docnum, in: txn) ?? false) {
                    try consider(try DocumentView(docnum: docnum, record: value), &query, &acc)
                }
                entry = try cursor.next()
            }
        }
    }

    // MARK: The response

    private func respond(_ query: PreparedQuery, _ request: SuggestRequest, _ acc: Accumulator,
                         _ matchingCategories: [[UInt8]: Int], in txn: borrowing ReadTransaction) throws -> SuggestResponse {
        var response = SuggestResponse()
        var words = query.complete + (query.partial.map { [$0] } ?? [])
        let presenter = form == .presented ? Presenter(query, analyzer: analyzer) : nil
        response.entries.reserveCapacity(acc.entries.items.count)
        for item in acc.entries.items {
            guard let doc = try generation.document(item.docnum, in: txn) else { continue }
            response.entries.append(try HitBuilder.hit(doc, key: item.key, words: &words, form: form))
        }
        if acc.wantsCompletions {
            let ranked = acc.completions.sorted { a, b in
                if a.value.distance != b.value.distance { return a.value.distance < b.value.distance }
                if a.value.key < b.value.key { return true }
                if b.value.key < a.value.key { return false }
                return a.key.lexicographicallyPrecedes(b.key)
            }
            for (term, best) in ranked.prefix(request.limits.completions) {
                guard let doc = try generation.document(best.docnum, in: txn) else { continue }
                let termString = String(decoding: term, as: UTF8.self)
                let spelling = try HitBuilder.spelling(of: term, in: doc, analyzer: analyzer) ?? termString
                response.completions.append(QueryCompletion(text: presenter?.completionText(spelling: spelling) ?? "",
                                                            spelling: spelling, term: termString,
                                                            typos: best.distance, best: best.key.rankKey()))
            }
        }
        if query.partial != nil, request.limits.categories > 0 {
            var categories = try categorySuggestions(matchingCategories, query, acc, in: txn)
            let limit = form == .presented ? request.limits.categories : SuggestResponse.maximumShardCategories
            if categories.count > limit {
                response.categoriesTruncated = form == .shardPart
                categories.removeLast(categories.count - limit)
            }
            if let presenter {
                for index in categories.indices { presenter.present(&categories[index]) }
            }
            response.categories = categories
        }
        return response
    }

    private func categorySuggestions(_ matching: [[UInt8]: Int], _ query: PreparedQuery, _ acc: Accumulator,
                                     in txn: borrowing ReadTransaction) throws -> [CategorySuggestion] {
        let selected = Set(query.tokenCategories)
        var suggestions: [(name: [UInt8], typos: Int, count: Int)] = []
        for (name, typos) in matching where !selected.contains(name) {
            let count: Int
            if let counts = acc.categoryCounts {
                count = counts[name] ?? 0
            } else if query.complete.isEmpty && query.tokens.isEmpty {
                count = try generation.categoryCount(name, in: txn)
            } else {
                count = 0  // unreachable: counts are gathered whenever the rest of the query filters
            }
            if count > 0 { suggestions.append((name, typos, count)) }
        }
        suggestions.sort { a, b in
            if a.typos != b.typos { return a.typos < b.typos }
            if a.count != b.count { return a.count > b.count }
            return a.name.lexicographicallyPrecedes(b.name)
        }
        return suggestions.map { item in
            let name = String(decoding: item.name, as: UTF8.self)
            return CategorySuggestion(name: name, count: item.count, token: .category(name), replacementText: "",
                                      typos: item.typos)
        }
    }
}
