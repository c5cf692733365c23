// The brute-force reference implementation of suggest and search: the oracle the real index is
// compared against in ExactnessTests.
//
// It is written directly from Sources/Index/Semantics.md, as plainly as possible: every query
// scans every entry, computes every edit distance with `EditDistance`, and sorts everything.
// It deliberately uses nothing of the index's internals — only the Analysis module's public
// API, `CatalogEntry`, and the index's public request/response types — so that a bug in the
// index cannot be mirrored here. Even the rank order is written out again (`referencePrecedes`)
// instead of using `RankKey.<`.
//
// Strings compare as UTF-8 bytes everywhere (equality included): Swift's `==` on `String` is
// canonical equivalence, which would treat "café" (NFC) and "cafe\u{301}" (NFD) as equal.

import Analysis
import Catalog
import Index
import TestSupport

struct ReferenceIndex {
    /// One entry with its analysed fields, computed once when the entry is stored.
    struct Document {
        var entry: CatalogEntry
        /// `analyzer.words(in: title)`: terms with where they stand in the title.
        var titleWords: [Word]
        /// T: the title's terms.
        var titleTerms: [String]
        /// A: the terms of every alias (in alias order).
        var aliasTerms: [String]
        /// D: the description's terms.
        var descriptionTerms: [String]
        /// N = T ∪ A (as a list; duplicates are harmless for minimum distances).
        var nameTerms: [String]
        /// T joined by single spaces.
        var sortTitle: String
        /// The entry's categories with byte-identical duplicates removed, first kept.
        var categories: [String]
        /// The tokens it carries (Semantics.md, "Tokens"): a category token per category, and a
        /// token per filterable attribute whose value is 1 to 256 bytes.
        var tokens: [SearchToken]
    }

    /// The attribute keys declared filterable.
    let filterable: [String]

    private let analyzer = Analyzer()
    /// Keyed by the id's UTF-8 bytes.
    private var documents: [[UInt8]: Document] = [:]
    /// Memoised edit distances. Distances are pure functions of their inputs; caching them only
    /// saves time (the reference is run in debug builds on hundreds of queries).
    private let cache = DistanceCache()

    init(entries: [CatalogEntry], filterable: [String] = []) {
        self.filterable = filterable
        upsert(entries)
    }

    /// Adds or replaces entries by id; within one batch a later entry wins.
    mutating func upsert(_ entries: [CatalogEntry]) {
        for entry in entries {
            documents[Array(entry.id.utf8)] = makeDocument(entry)
        }
    }

    /// Removes entries by id; unknown ids are ignored.
    mutating func delete(ids: [String]) {
        for id in ids {
            documents[Array(id.utf8)] = nil
        }
    }

    var entries: [CatalogEntry] {
        documents.values.map(\.entry)
    }

    var count: Int { documents.count }

    private func makeDocument(_ entry: CatalogEntry) -> Document {
        let titleWords = analyzer.words(in: entry.title)
        let titleTerms = titleWords.map(\.term)
        var aliasTerms: [String] = []
        for alias in entry.aliases {
            aliasTerms += analyzer.terms(in: alias)
        }
        let descriptionTerms = entry.description.map { analyzer.terms(in: $0) } ?? []
        var categories: [String] = []
        for category in entry.categories where !categories.contains(where: { bytesEqual($0, category) }) {
            categories.append(category)
        }
        var tokens = categories.map { SearchToken(kind: .category, value: $0) }
        for (key, value) in entry.attributes where filterable.contains(where: { bytesEqual($0, key) }) {
            if value.utf8.count >= 1 && value.utf8.count <= 256 { tokens.append(SearchToken(kind: .init(key), value: value)) }
        }
        return Document(entry: entry, titleWords: titleWords, titleTerms: titleTerms,
                        aliasTerms: aliasTerms, descriptionTerms: descriptionTerms,
                        nameTerms: titleTerms + aliasTerms,
                        sortTitle: titleTerms.joined(separator: " "), categories: categories, tokens: tokens)
    }

    // MARK: - Query words

    /// One query word with how it is compared: complete words by `dist`, the partial word by
    /// `pdist`, each within its own budget.
    private struct QueryWord {
        var term: String
        var isPartial: Bool
        var budget: Int
    }

    private func queryWords(_ parsed: ParsedQuery, typos: TypoMode) -> [QueryWord] {
        func budget(_ term: String) -> Int {
            typos == .off ? 0 : EditDistance.budget(forLength: term.unicodeScalars.count)
        }
        var words = parsed.completeWords.map { QueryWord(term: $0, isPartial: false, budget: budget($0)) }
        if let p = parsed.partialWord {
            words.append(QueryWord(term: p, isPartial: true, budget: budget(p)))
        }
        return words
    }

    /// `dist(q, w)` for a complete word, `pdist(q, w)` for the partial word, when it is within
    /// the word's budget; nil when it is not.
    ///
    /// Two shortcuts that only save time, both obviously exact: with a budget of 0 the distance
    /// is 0 exactly when the words are equal (`dist`) or `q` is a prefix of `w` (`pdist`; terms
    /// are NFC, so a byte prefix is a scalar prefix); and a distance is at least the difference
    /// in length (`dist`), or the amount by which `q` is longer than `w` (`pdist`).
    private func distance(_ q: QueryWord, _ w: String) -> Int? {
        if q.budget == 0 {
            let exact = q.isPartial ? bytesHavePrefix(w, q.term) : bytesEqual(w, q.term)
            return exact ? 0 : nil
        }
        let lengthQ = q.term.unicodeScalars.count
        let lengthW = w.unicodeScalars.count
        let lowerBound = q.isPartial ? lengthQ - lengthW : abs(lengthQ - lengthW)
        if lowerBound > q.budget { return nil }
        let d = q.isPartial ? cache.prefixDistance(q.term, w) : cache.distance(q.term, w)
        return EditDistance.admits(d, budget: q.budget, query: q.term, word: w) ? d : nil
    }

    /// The smallest distance from `q` to any of `words`, if one is within budget.
    private func bestDistance(_ q: QueryWord, among words: [String]) -> Int? {
        var best: Int? = nil
        for w in words {
            if let d = distance(q, w), best == nil || d < best! {
                best = d
            }
        }
        return best
    }

    private func carriesEveryToken(_ doc: Document, _ tokens: [SearchToken]) -> Bool {
        for token in tokens where !doc.tokens.contains(where: { tokensEqual($0, token) }) { return false }
        return true
    }

    /// Semantics.md, `startsWith(e)`.
    private func startsWith(_ doc: Document, _ parsed: ParsedQuery) -> Bool {
        let c = parsed.completeWords
        let s = c.joined(separator: " ")
        if let p = parsed.partialWord {
            let prefix = c.isEmpty ? p : s + " " + p
            return bytesHavePrefix(doc.sortTitle, prefix)
        }
        if c.isEmpty { return true }
        return bytesEqual(doc.sortTitle, s) || bytesHavePrefix(doc.sortTitle, s + " ")
    }

    /// Semantics.md, `exact(e)`: the whole analysed title is the typed words.
    private func isExact(_ doc: Document, _ parsed: ParsedQuery) -> Bool {
        let words = parsed.completeWords + (parsed.partialWord.map { [$0] } ?? [])
        return !words.isEmpty && bytesEqual(doc.sortTitle, words.joined(separator: " "))
    }

    /// Title word ranges that some query word matches within its budget, in title order.
    private func highlights(_ doc: Document, _ words: [QueryWord]) -> [Highlight] {
        var result: [Highlight] = []
        for word in doc.titleWords {
            if words.contains(where: { distance($0, word.term) != nil }) {
                result.append(Highlight(start: word.utf16Range.lowerBound, end: word.utf16Range.upperBound))
            }
        }
        return result
    }

    private func hit(_ doc: Document, words: [QueryWord], rank: RankKey) -> EntryHit {
        let attributes = doc.entry.attributes
            .map { Attribute(key: $0.key, value: $0.value) }
            .sorted { bytesPrecede($0.key, $1.key) }
        return EntryHit(id: doc.entry.id, title: doc.entry.title, categories: doc.categories,
                        weight: doc.entry.weight, attributes: attributes, completion: doc.entry.title,
                        highlights: highlights(doc, words), rank: rank)
    }

    // MARK: - Suggest

    /// Total suggest typos of `doc` if it matches every query word over its name words.
    private func suggestTypos(_ doc: Document, _ words: [QueryWord]) -> Int? {
        var typos = 0
        for q in words {
            guard let d = bestDistance(q, among: doc.nameTerms) else { return nil }
            typos += d
        }
        return typos
    }

    func suggest(_ request: SuggestRequest) -> SuggestResponse {
        let parsed = analyzer.parseQuery(request.text)
        let words = queryWords(parsed, typos: request.typos)

        // Every matching entry with its rank key.
        var matches: [(doc: Document, key: RankKey)] = []
        for doc in documents.values {
            guard carriesEveryToken(doc, request.tokens), let typos = suggestTypos(doc, words) else { continue }
            let key = RankKey(typos: typos, field: 0, exact: isExact(doc, parsed), startsWith: startsWith(doc, parsed),
                              weight: doc.entry.weight, sortTitle: doc.sortTitle, id: doc.entry.id)
            matches.append((doc, key))
        }
        matches.sort { referencePrecedes($0.key, $1.key) }

        // Entries.
        var entries: [EntryHit] = []
        // Dedupe: what the person sees, the title and the (distinct) categories, byte for byte.
        var kept: [(title: String, categories: [String])] = []
        for match in matches {
            if entries.count >= request.limits.entries { break }
            if request.dedupe {
                let title = match.doc.entry.title, categories = match.doc.categories
                if kept.contains(where: { bytesEqual($0.title, title) && $0.categories.count == categories.count
                                          && zip($0.categories, categories).allSatisfy { bytesEqual($0, $1) } }) { continue }
                kept.append((title, categories))
            }
            entries.append(hit(match.doc, words: words, rank: match.key))
        }

        guard let partial = words.last, partial.isPartial else {
            return SuggestResponse(entries: entries, categories: [], completions: [])
        }

        // Completions: every name word of every matching entry within the partial word's
        // budget; a word keeps its smallest (d, entry key without exact and startsWith). That
        // key is the rank key with exact set to false and startsWith to true (which is also what
        // the response reports as `best`).
        var candidates: [(term: String, d: Int, key: RankKey, doc: Document)] = []
        var candidateIndex: [[UInt8]: Int] = [:]   // term bytes → position in `candidates`
        for match in matches {
            var key = match.key
            key.exact = false
            key.startsWith = true
            for w in match.doc.nameTerms where offersCompletion(match.doc, w) {
                guard let d = distance(partial, w) else { continue }
                if let i = candidateIndex[Array(w.utf8)] {
                    let old = candidates[i]
                    if d < old.d || (d == old.d && referencePrecedes(key, old.key)) {
                        candidates[i] = (w, d, key, match.doc)
                    }
                } else {
                    candidateIndex[Array(w.utf8)] = candidates.count
                    candidates.append((w, d, key, match.doc))
                }
            }
        }
        candidates.sort { a, b in
            if a.d != b.d { return a.d < b.d }
            if !rankKeysEqual(a.key, b.key) { return referencePrecedes(a.key, b.key) }
            return bytesPrecede(a.term, b.term)
        }
        var completions: [QueryCompletion] = []
        // Presented: within a run of the same d and best entry, the best entry's title words first.
        var chosen = Array(candidates.prefix(max(0, request.limits.completions)))
        do {
            var runs: [[(term: String, d: Int, key: RankKey, doc: Document)]] = []
            for candidate in chosen {
                if let last = runs.last?.last, last.d == candidate.d, bytesEqual(last.key.id, candidate.key.id) {
                    runs[runs.count - 1].append(candidate)
                } else {
                    runs.append([candidate])
                }
            }
            chosen = runs.flatMap { run in
                run.filter { c in c.doc.titleTerms.contains { bytesEqual($0, c.term) } }
                    + run.filter { c in !c.doc.titleTerms.contains { bytesEqual($0, c.term) } }
            }
        }
        for candidate in chosen {
            let spelling = originalSpelling(of: candidate.term, in: candidate.doc.entry)
            completions.append(QueryCompletion(text: parsed.textBeforePartial + spelling, spelling: spelling,
                                               term: candidate.term, typos: candidate.d,
                                               best: candidate.key))
        }

        // Chips: every token (of any entry: categories and filterable attribute values) not
        // already a token of the request whose value has a word within the partial word's
        // budget, counted over entries that carry it, carry every token and match every complete
        // word (the partial word is ignored).
        let completeWords = words.filter { !$0.isPartial }
        var allTokens: [SearchToken] = []
        for doc in documents.values {
            for t in doc.tokens where !allTokens.contains(where: { tokensEqual($0, t) }) {
                allTokens.append(t)
            }
        }
        let counted = documents.values.filter { carriesEveryToken($0, request.tokens) && suggestTypos($0, completeWords) != nil }
        var categories: [CategorySuggestion] = []
        for t in allTokens {
            if request.tokens.contains(where: { tokensEqual($0, t) }) { continue }
            guard let typos = bestDistance(partial, among: analyzer.terms(in: t.value)) else { continue }
            let count = counted.filter { doc in doc.tokens.contains(where: { tokensEqual($0, t) }) }.count
            if count == 0 { continue }
            categories.append(CategorySuggestion(name: t.value, count: count, token: t,
                                                 replacementText: parsed.textBeforePartial, typos: typos))
        }
        categories.sort { a, b in
            if a.typos != b.typos { return a.typos < b.typos }
            if a.count != b.count { return a.count > b.count }
            if !bytesEqual(a.token.kind.rawValue, b.token.kind.rawValue) { return bytesPrecede(a.token.kind.rawValue, b.token.kind.rawValue) }
            return bytesPrecede(a.name, b.name)
        }
        return SuggestResponse(entries: entries,
                               categories: Array(categories.prefix(max(0, request.limits.categories))),
                               completions: completions)
    }

    /// Whether `doc` offers name term `w` as a completion: a title term, or an alias term that
    /// spells no title term another way (Semantics.md).
    private func offersCompletion(_ doc: Document, _ w: String) -> Bool {
        if doc.titleTerms.contains(where: { bytesEqual($0, w) }) { return true }
        return !doc.titleTerms.contains { EditDistance.isSpellingVariant(w, of: $0) }
    }

    /// The original spelling of term `w`: the first word of the title, then of each alias in
    /// order, whose term is `w`.
    private func originalSpelling(of w: String, in entry: CatalogEntry) -> String {
        for text in [entry.title] + entry.aliases {
            for word in analyzer.words(in: text) where bytesEqual(word.term, w) {
                let start = String.Index(utf16Offset: word.utf16Range.lowerBound, in: text)
                let end = String.Index(utf16Offset: word.utf16Range.upperBound, in: text)
                return String(text[start..<end])
            }
        }
        preconditionFailure("completion term \(w.debugDescription) is not a name word of \(entry.id)")
    }

    // MARK: - Search

    /// Every match in full order, the number of matches, and the facets (empty unless
    /// `request.facets`). `pageSize` and `pageToken` are ignored.
    func searchAll(_ request: SearchRequest) -> (hits: [EntryHit], totalHits: Int, facets: [Facet]) {
        let parsed = analyzer.parseQuery(request.text)
        let words = queryWords(parsed, typos: request.typos)

        var matches: [(doc: Document, key: RankKey)] = []
        documents: for doc in documents.values {
            guard carriesEveryToken(doc, request.tokens) else { continue }
            var typos = 0
            var field = 0
            for q in words {
                // The lexicographically smallest (distance, field) over matching words.
                var best: (d: Int, f: Int)? = nil
                for (f, terms) in [doc.titleTerms, doc.aliasTerms, doc.descriptionTerms].enumerated() {
                    guard let d = bestDistance(q, among: terms) else { continue }
                    if best == nil || d < best!.d || (d == best!.d && f < best!.f) {
                        best = (d, f)
                    }
                }
                guard let found = best else { continue documents }
                typos += found.d
                field += found.f
            }
            let key: RankKey
            switch request.sort {
            case .relevance:
                key = RankKey(typos: typos, field: field, exact: isExact(doc, parsed), startsWith: startsWith(doc, parsed),
                              weight: doc.entry.weight, sortTitle: "", id: doc.entry.id)
            case .weight:
                key = RankKey(typos: 0, field: 0, startsWith: true, weight: doc.entry.weight,
                              sortTitle: "", id: doc.entry.id)
            }
            matches.append((doc, key))
        }
        matches.sort { referencePrecedes($0.key, $1.key) }
        let hits = matches.map { hit($0.doc, words: words, rank: $0.key) }

        var facets: [Facet] = []
        if request.facets {
            var position: [[UInt8]: Int] = [:]   // category bytes → index in `facets`
            for match in matches {
                for k in match.doc.categories {
                    if let i = position[Array(k.utf8)] {
                        facets[i].count += 1
                    } else {
                        position[Array(k.utf8)] = facets.count
                        facets.append(Facet(name: k, count: 1))
                    }
                }
            }
            facets.sort { a, b in
                if a.count != b.count { return a.count > b.count }
                return bytesPrecede(a.name, b.name)
            }
        }
        return (hits, matches.count, facets)
    }
}

// MARK: - Order and byte comparisons

/// The rank order of Semantics.md written out again: typos ascending, field ascending, exact
/// first, startsWith first, weight descending, sortTitle bytes ascending, id bytes ascending.
func referencePrecedes(_ a: RankKey, _ b: RankKey) -> Bool {
    if a.typos != b.typos { return a.typos < b.typos }
    if a.field != b.field { return a.field < b.field }
    if a.exact != b.exact { return a.exact && !b.exact }
    if a.startsWith != b.startsWith { return a.startsWith && !b.startsWith }
    if a.weight != b.weight { return a.weight > b.weight }
    if !bytesEqual(a.sortTitle, b.sortTitle) { return bytesPrecede(a.sortTitle, b.sortTitle) }
    return bytesPrecede(a.id, b.id)
}

func rankKeysEqual(_ a: RankKey, _ b: RankKey) -> Bool {
    a.typos == b.typos && a.field == b.field && a.exact == b.exact && a.startsWith == b.startsWith && a.weight == b.weight
        && bytesEqual(a.sortTitle, b.sortTitle) && bytesEqual(a.id, b.id)
}

/// Same kind and same value bytes.
func tokensEqual(_ a: SearchToken, _ b: SearchToken) -> Bool {
    bytesEqual(a.kind.rawValue, b.kind.rawValue) && bytesEqual(a.value, b.value)
}

func bytesPrecede(_ a: String, _ b: String) -> Bool {
    a.utf8.lexicographicallyPrecedes(b.utf8)
}

func bytesHavePrefix(_ s: String, _ prefix: String) -> Bool {
    s.utf8.starts(with: prefix.utf8)
}

/// Memoised `EditDistance` results. Terms are NFC (analysed), so `String` keys are safe here.
final class DistanceCache {
    private struct Key: Hashable {
        var a: String
        var b: String
        var prefix: Bool
    }
    private var values: [Key: Int] = [:]

    func distance(_ a: String, _ b: String) -> Int {
        lookup(Key(a: a, b: b, prefix: false)) { EditDistance.distance(a, b) }
    }

    func prefixDistance(_ a: String, _ b: String) -> Int {
        lookup(Key(a: a, b: b, prefix: true)) { EditDistance.prefixDistance(a, b) }
    }

    private func lookup(_ key: Key, _ compute: () -> Int) -> Int {
        if let v = values[key] { return v }
        if values.count > 2_000_000 { values.removeAll(keepingCapacity: true) }
        let v = compute()
        values[key] = v
        return v
    }
}
