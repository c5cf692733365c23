import Analysis
import Storage

/// Answers a ``SearchRequest`` (submit) against one generation, as Semantics.md defines it.
///
/// Search must count every match (`totalHits`, facets), so it always evaluates the whole match set:
/// the query word or token with the fewest postings drives, and each candidate is verified from its
/// stored words. The page is the best `pageSize` keys after the token's key, kept in a bounded list.
struct SearchEngine {
    let generation: Generation
    let analyzer: Analyzer
    /// Polled every 256 candidates; true stops the query with `IndexError.Code.cancelled`.
    var shouldStop: (@Sendable () -> Bool)? = nil
    /// A client's presented page, or one shard's part of a merged page.
    var form: ResponseForm = .presented

    func search(_ request: SearchRequest, in txn: borrowing ReadTransaction) throws -> SearchResponse {
        guard (1...SearchRequest.maximumPageSize).contains(request.pageSize) else {
            throw IndexError.invalidArgument("pageSize must be between 1 and \(SearchRequest.maximumPageSize), got \(request.pageSize)")
        }
        var query = try PreparedQuery(text: request.text, tokens: request.tokens, typos: request.typos, analyzer: analyzer)
        try PreparedQuery.checkKinds(query.tokens, filterable: generation.filterable)
        let fingerprint = PageToken.fingerprint(of: query, sort: request.sort, typos: request.typos)
        var after: RankKey?
        if let text = request.pageToken, !text.isEmpty {
            let token = try PageToken(decoding: text)
            guard token.fingerprint == fingerprint, token.sort == request.sort else {
                throw IndexError.invalidArgument("pageToken belongs to a different query; start again without it")
            }
            after = token.after
        }
        var words = query.complete + (query.partial.map { [$0] } ?? [])

        // Candidates from postings: the complete words and tokens intersected; the partial word is
        // verified per document unless it is the only word (then its terms' postings are the set).
        let deleted = try generation.deletedSet(in: txn)
        var (candidates, _) = try generation.filteredDocuments(words: query.complete, tokens: query.tokens,
                                                                includeDescription: true, in: txn)
        if candidates == nil, let partial = query.partial {
            var docs = try generation.documents(of: try generation.terms(matching: partial, in: txn).map(\.term),
                                                includeDescription: true, in: txn)
            if let deleted { try deleted.remove(from: &docs, in: txn) }
            candidates = docs
        }
        let filtersHold = !query.complete.isEmpty || !query.tokens.isEmpty
        let documents = try candidates ?? generation.allDocuments(deleted: deleted, in: txn)

        var page = TopCandidates(limit: request.pageSize, dedupe: false)
        var total = 0
        var remaining = 0
        var facets: [[UInt8]: Int] = [:]
        for (position, docnum) in documents.enumerated() {
            if position & 255 == 255, let shouldStop, shouldStop() {
                throw IndexError(.cancelled, "the query was stopped before it finished")
            }
            guard let doc = try generation.document(docnum, in: txn) else { continue }
            guard let key = try evaluate(doc, &query, filtersHold: filtersHold) else { continue }
            total += 1
            if request.facets {
                try doc.forEachCategory { facets[Array($0), default: 0] += 1; return true }
            }
            let ranked = request.sort == .relevance ? key
                : CandidateKey(typos: 0, field: 0, startsWith: true, weight: key.weight, sortTitle: nil, id: key.id)
            if let after, !ranked.isAfter(after) { continue }
            remaining += 1
            try page.insert(ranked, doc)
        }

        var response = SearchResponse(totalHits: total)
        for item in page.items {
            response.hits.append(try HitBuilder.hit(item.doc, key: item.key, words: &words, form: form).materialized())
        }
        if remaining > request.pageSize, let last = page.items.last {
            response.nextPageToken = PageToken(sort: request.sort, fingerprint: fingerprint, after: last.key.rankKey(),
                                               collection: request.collection).encoded()
        }
        response.facets = facets.map { Facet(name: String(decoding: $0.key, as: UTF8.self), count: $0.value) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        return response
    }

    /// The relevance key of a matching document, or nil if it does not match.
    /// - Parameter filtersHold: the document came from the filters' postings, so tokens need no
    ///   check (complete words still do: their field and distance rank the hit).
    private func evaluate(_ doc: DocumentView, _ query: inout PreparedQuery, filtersHold: Bool) throws -> CandidateKey? {
        if !filtersHold {
            for filter in query.tokenFilters {
                guard try doc.carries(filter) else { return nil }
            }
        }
        var typos = 0, field = 0
        for i in query.complete.indices {
            guard let (d, f) = try bestField(&query.complete[i], doc) else { return nil }
            typos += d
            field += f
        }
        if query.partial != nil {
            guard let (d, f) = try bestField(&query.partial!, doc) else { return nil }
            typos += d
            field += f
        }
        return CandidateKey(typos: typos, field: field, exact: query.isExact(doc.sortTitle), startsWith: query.startsWith(doc.sortTitle),
                            weight: doc.weight, sortTitle: nil, id: doc.id)
    }

    /// The smallest (distance, field) of a query word over the title (0), alias (1) and description (2) words.
    private func bestField(_ word: inout QueryWord, _ doc: DocumentView) throws(IndexError) -> (Int, Int)? {
        var best: (Int, Int)?
        for field in 0..<3 {
            // The description's words are read only when the name words leave room for them.
            let list = field == 0 ? doc.sortTitle : field == 1 ? doc.aliasWords : try doc.descriptionWords
            if let d = word.bestDistance(in: list), best == nil || d < best!.0 {
                best = (d, field)
                if d == 0 { break }
            }
        }
        return best
    }
}
