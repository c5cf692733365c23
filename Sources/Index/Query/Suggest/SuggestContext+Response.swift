import Analysis
import Storage

/// Turning a plan's matches into the ``SuggestAnswer`` (presented for a client, or as one
/// shard's part of a merged answer).
extension SuggestContext {
    /// The answer for the matches a plan gathered: entries as hits viewed in the map, the best
    /// completions with their spellings, category suggestions with their counts.
    func respond(_ acc: SuggestAccumulator, in txn: borrowing ReadTransaction) throws -> SuggestAnswer {
        var response = SuggestAnswer()
        var words = query.complete + (query.partial.map { [$0] } ?? [])
        let presenter = form == .presented ? Presenter(query, analyzer: analyzer) : nil
        response.hits.reserveCapacity(acc.entries.items.count)
        for item in acc.entries.items {
            response.hits.append(try HitBuilder.hit(item.doc, key: item.key, words: &words, form: form))
        }
        if acc.wantsCompletions {
            for index in acc.rankedCompletions().prefix(request.limits.completions) {
                let best = acc.completions.entries[index].value
                let term = acc.completions.term(at: index)
                // A completion's best entry is often one of the entries: it was read already.
                let entry = acc.entries.items.first { $0.docnum == best.docnum }?.doc
                guard let doc = try entry ?? generation.document(best.docnum, in: txn) else { continue }
                let termString = String(decoding: term, as: UTF8.self)
                let spelling = try HitBuilder.spelling(of: term, in: doc, analyzer: analyzer) ?? termString
                response.completions.append(QueryCompletion(text: presenter?.completionText(spelling: spelling) ?? "",
                                                            spelling: spelling, term: termString,
                                                            typos: best.distance, best: best.key.rankKey()))
            }
        }
        if query.partial != nil, request.limits.categories > 0 {
            var categories = try categorySuggestions(acc, in: txn)
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

    private func categorySuggestions(_ acc: SuggestAccumulator, in txn: borrowing ReadTransaction) throws -> [CategorySuggestion] {
        let selected = Set(query.tokenCategories)
        var suggestions: [(name: [UInt8], typos: Int, count: Int)] = []
        for (name, typos) in matchingCategories where !selected.contains(name) {
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
