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

    func suggest(_ request: SuggestRequest, in txn: borrowing ReadTransaction) throws -> SuggestResponse {
        try Self.validate(request.limits)
        var query = try PreparedQuery(text: request.text, tokens: request.tokens, typos: request.typos, analyzer: analyzer)
        let hasDeletions = try generation.hasDeletions(in: txn)

        var accumulator: Accumulator
        if let viaTrie = try trySuggestViaTrie(&query, request, hasDeletions: hasDeletions, in: txn) {
            accumulator = viaTrie
        } else {
            accumulator = try evaluateGenerally(&query, request, hasDeletions: hasDeletions, in: txn)
        }
        return try respond(query, request, accumulator, in: txn)
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

        mutating func noteCompletion(_ word: [UInt8], distance: Int, key: CandidateKey, docnum: UInt32) {
            if let existing = completions[word] {
                if existing.distance < distance || (existing.distance == distance && !(key < existing.key)) { return }
            }
            completions[word] = (distance, key, docnum)
        }
    }

    /// Verifies one document against the whole query and records it.
    private func consider(_ doc: DocumentView, _ query: inout PreparedQuery, _ acc: inout Accumulator) throws {
        for category in query.tokenCategories {
            guard try doc.hasCategory(category) else { return }
        }
        var typos = 0
        for i in query.complete.indices {
            guard let d = bestNameDistance(&query.complete[i], doc) else { return }
            typos += d
        }
        if acc.categoryCounts != nil {
            try doc.forEachCategory { category in
                acc.categoryCounts![Array(category), default: 0] += 1
                return true
            }
        }
        if query.partial != nil {
            guard let d = bestNameDistance(&query.partial!, doc) else { return }
            typos += d
        }
        let key = CandidateKey(typos: typos, field: 0, startsWith: query.startsWith(doc.sortTitle),
                               weight: doc.weight, sortTitle: doc.sortTitle, id: doc.id)
        acc.entries.insert(key, docnum: doc.docnum, title: doc.title)
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

    /// A completion's order is its best entry's rank key without startsWith (Semantics.md).
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

    private func trySuggestViaTrie(_ query: inout PreparedQuery, _ request: SuggestRequest, hasDeletions: Bool,
                                   in txn: borrowing ReadTransaction) throws -> Accumulator? {
        guard query.complete.isEmpty, query.tokens.isEmpty, let partial = query.partial,
              let node = try generation.heavyNode(partial.bytes, in: txn) else { return nil }
        var acc = newAccumulator(query, request, countCategories: false)
        let typosPossible = partial.budget > 0

        // Delta documents: every one that matches, verified like any candidate.
        var deltaDocs: [UInt32] = []
        for (term, _) in try deltaTerms(matching: partial, in: txn) {
            try appendDeltaPostings(of: term, to: &deltaDocs, in: txn)
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
        for docnum in node.startsWith {
            if hasDeletions, try generation.isDeleted(docnum, in: txn) { continue }
            guard let doc = try generation.document(docnum, in: txn) else { continue }
            let key = baseKey(doc, startsWith: true)
            if acc.entries.isFull, let worst = acc.entries.worst, !(key < worst) { break }
            acc.entries.insert(key, docnum: docnum, title: doc.title)
        }
        if !node.startsWithTruncated {
            let listed = Set(node.startsWith)
            for docnum in node.all where !listed.contains(docnum) {
                if hasDeletions, try generation.isDeleted(docnum, in: txn) { continue }
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
            if hasDeletions, try generation.isDeleted(listed.best, in: txn) { return nil }
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

    private func deltaTerms(matching word: QueryWord, in txn: borrowing ReadTransaction) throws -> [(term: [UInt8], distance: Int)] {
        try txn.withCursor(generation.schema.deltaTerms) { cursor in
            if word.budget == 0 {
                return try TermWalk.keys(&cursor, withPrefix: word.bytes).map { ($0, 0) }
            }
            var automaton = word.termAutomaton
            return try TermWalk.matches(&cursor, automaton: &automaton)
        }
    }

    private func appendDeltaPostings(of term: [UInt8], to docs: inout [UInt32], in txn: borrowing ReadTransaction) throws {
        try txn.withCursor(generation.schema.deltaTerms) { cursor in
            var entry = try cursor.seek(term)
            while let value = entry?.value {
                if value.count == 5, value[4] == 0 { docs.append(value.loadBigEndian(UInt32.self, at: 0)) }
                entry = try cursor.nextDuplicate()
            }
        }
    }

    // MARK: The general plan

    private enum Driver {
        case word([(term: [UInt8], distance: Int)])
        case token([UInt8])
        case everything
    }

    private func evaluateGenerally(_ query: inout PreparedQuery, _ request: SuggestRequest, hasDeletions: Bool,
                                   in txn: borrowing ReadTransaction) throws -> Accumulator {
        // Category counts need every entry matching the rest of the query, so when categories are
        // wanted (and some category name matches the partial word) the partial word cannot drive
        // unless it is the only filter there is.
        var matchingCategories: [[UInt8]: Int] = [:]
        if let partial = query.partial, request.limits.categories > 0 {
            matchingCategories = try generation.categories(matching: partial, in: txn)
        }
        let restIsEverything = query.complete.isEmpty && query.tokens.isEmpty
        let countCategories = !matchingCategories.isEmpty && !restIsEverything
        var acc = newAccumulator(query, request, countCategories: countCategories)

        // Choose the driver with the fewest postings.
        var best: (cost: Int, driver: Driver)?
        func offer(_ cost: Int, _ driver: Driver) {
            if best == nil || cost < best!.cost { best = (cost, driver) }
        }
        for word in query.complete {
            let terms = try generation.terms(matching: word, in: txn)
            var cost = 0
            for (term, _) in terms { cost += try generation.postingCount(of: term, includeDescription: false, in: txn) }
            offer(cost, .word(terms))
        }
        for token in query.tokens {
            let term = Schema.tokenTerm(token)
            offer(try generation.postingCount(of: term, includeDescription: false, in: txn), .token(term))
        }
        if let partial = query.partial, !countCategories, best == nil || best!.cost > 0 {
            let terms = try generation.terms(matching: partial, in: txn)
            var cost = 0
            for (term, _) in terms {
                cost += try generation.postingCount(of: term, includeDescription: false, in: txn)
                if let current = best, cost >= current.cost { break }
            }
            offer(cost, .word(terms))
        }

        var candidates: [UInt32] = []
        switch best?.driver ?? .everything {
        case .word(let terms):
            for (term, _) in terms {
                try generation.appendPostings(of: term, includeDescription: false, to: &candidates, in: txn)
            }
        case .token(let term):
            try generation.appendPostings(of: term, includeDescription: false, to: &candidates, in: txn)
        case .everything:
            try evaluateAll(&query, &acc, hasDeletions: hasDeletions, in: txn)
            return acc
        }
        sortUnique(&candidates)
        // Without query words every match ties on typos and startsWith, so base documents (numbered
        // in static rank order) can stop as soon as the entries are full.
        let canStopEarly = !query.hasWords && !countCategories
        for docnum in candidates {
            if canStopEarly, docnum < generation.baseCount, acc.entries.isFull { continue }
            if hasDeletions, try generation.isDeleted(docnum, in: txn) { continue }
            guard let doc = try generation.document(docnum, in: txn) else { continue }
            try consider(doc, &query, &acc)
        }
        return acc
    }

    /// No words and no tokens: every entry matches with the same typos and startsWith, so base
    /// documents (numbered in rank order) are read only until the entries are full; every delta
    /// document is read.
    private func evaluateAll(_ query: inout PreparedQuery, _ acc: inout Accumulator, hasDeletions: Bool,
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
                let deleted = hasDeletions ? try generation.isDeleted(docnum, in: txn) : false
                if !deleted {
                    try consider(try DocumentView(docnum: docnum, record: value), &query, &acc)
                }
                entry = try cursor.next()
            }
        }
    }

    // MARK: The response

    private func respond(_ query: PreparedQuery, _ request: SuggestRequest, _ acc: Accumulator,
                         in txn: borrowing ReadTransaction) throws -> SuggestResponse {
        var response = SuggestResponse()
        for item in acc.entries.items {
            guard let doc = try generation.document(item.docnum, in: txn) else { continue }
            response.entries.append(try HitBuilder.hit(doc, key: item.key, words: query.complete + (query.partial.map { [$0] } ?? []),
                                                       analyzer: analyzer))
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
                let entry = try doc.materialize()
                let termString = String(decoding: term, as: UTF8.self)
                let spelling = HitBuilder.spelling(of: termString, in: entry, analyzer: analyzer) ?? termString
                response.completions.append(QueryCompletion(text: query.parsed.textBeforePartial + spelling, term: termString,
                                                            typos: best.distance, best: best.key.rankKey()))
            }
        }
        if let partial = query.partial, request.limits.categories > 0 {
            response.categories = try categorySuggestions(partial, query, acc, in: txn).prefix(request.limits.categories).map { $0 }
        }
        return response
    }

    private func categorySuggestions(_ partial: QueryWord, _ query: PreparedQuery, _ acc: Accumulator,
                                     in txn: borrowing ReadTransaction) throws -> [CategorySuggestion] {
        let matching = try generation.categories(matching: partial, in: txn)
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
            return CategorySuggestion(name: name, count: item.count, token: .category(name),
                                      replacementText: query.parsed.textBeforePartial, typos: item.typos)
        }
    }
}
