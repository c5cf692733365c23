import Analysis
import Storage

/// Turning a plan's matches into the ``SuggestAnswer`` (presented for a client, or as one
/// shard's part of a merged answer).
extension SuggestContext {
    /// The answer for the matches a plan gathered: entries as hits viewed in the map, the best
    /// completions with their spellings, category suggestions with their counts.
    func respond(_ acc: SuggestAccumulator, in txn: borrowing ReadTransaction) throws -> SuggestAnswer {
        let presented = form == .presented
        var response = SuggestAnswer(textBeforePartial: presented ? query.parsed.textBeforePartial : nil)
        var words = query.complete
        if let partial = query.partial { words.append(partial) }
        response.hits.reserveCapacity(acc.entries.items.count)
        for item in acc.entries.items {
            response.hits.append(try HitBuilder.hit(item.doc, key: item.key, words: &words, form: form))
        }
        if acc.wantsCompletions {
            let ranked = acc.rankedCompletions().prefix(request.limits.completions)
            response.completions.reserveCapacity(ranked.count)
            for index in ranked {
                let best = acc.completions.entries[index].value
                // A completion's best entry is often one of the entries: it was read already.
                let entry = acc.entries.items.first { $0.docnum == best.docnum }?.doc
                guard let doc = try entry ?? generation.document(best.docnum, in: txn) else { continue }
                let written = try acc.completions.withTerm(at: index) { try HitBuilder.spelling(of: $0, in: doc, analyzer: analyzer) }
                let term: CompletionView.Text, spelling: CompletionView.Text
                if let written {
                    (term, spelling) = (.stored(written.term), .stored(written.spelling))
                } else {
                    term = .owned(acc.completions.term(at: index))
                    spelling = term
                }
                response.completions.append(CompletionView(term: term, spelling: spelling, typos: best.distance, best: best.key))
            }
        }
        if query.partial != nil, request.limits.categories > 0 {
            var categories = try categorySuggestions(acc, in: txn)
            let limit = presented ? request.limits.categories : SuggestResponse.maximumShardCategories
            if categories.count > limit {
                response.categoriesTruncated = !presented
                categories.removeLast(categories.count - limit)
            }
            if presented {
                for index in categories.indices { categories[index].replacementText = query.parsed.textBeforePartial }
            }
            response.categories = categories
        }
        return response
    }

    /// Chips of every kind in one list, by (typos, count descending, kind bytes, value bytes)
    /// (Semantics.md); chips already among the tokens are left out.
    private func categorySuggestions(_ acc: SuggestAccumulator, in txn: borrowing ReadTransaction) throws -> [CategorySuggestion] {
        let selected = Set(query.tokens)
        var suggestions: [CategorySuggestion] = []
        for (token, typos) in matchingCategories where !selected.contains(token) {
            let count: Int
            if let counts = acc.categoryCounts {
                count = counts[token] ?? 0
            } else if query.complete.isEmpty && query.tokens.isEmpty {
                count = try generation.chipCount(token, in: txn)
            } else {
                count = 0  // unreachable: counts are gathered whenever the rest of the query filters
            }
            if count > 0 {
                suggestions.append(CategorySuggestion(name: token.value, count: count, token: token, replacementText: "", typos: typos))
            }
        }
        suggestions.sort(by: CategorySuggestion.chipOrder)
        return suggestions
    }
}
