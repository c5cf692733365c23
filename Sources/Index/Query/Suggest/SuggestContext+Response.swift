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
                guard let doc = try acc.knownDocument(best.docnum) ?? generation.document(best.docnum, in: txn) else { continue }
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
            if presented, response.completions.count > 1 {
                let completions = response.completions
                if let order = PresentedCompletionOrder.order(
                    count: completions.count,
                    sameRun: { completions[$0].typos == completions[$1].typos && completions[$0].best.id == completions[$1].best.id },
                    isTitleWord: { index in
                        guard let title = completions[index].best.sortTitle else { return false }
                        return completions[index].withTerm { PresentedCompletionOrder.isWord($0, of: title) }
                    }) {
                    response.completions = order.map { completions[$0] }
                }
            }
        }
        if query.partial != nil, request.limits.categories > 0 {
            let limit = presented ? request.limits.categories : SuggestResponse.maximumShardCategories
            let chips = try categorySuggestions(acc, first: limit, replacementText: presented ? query.parsed.textBeforePartial : "", in: txn)
            response.categoriesTruncated = !presented && chips.total > limit
            response.categories = chips.first
        }
        return response
    }

    /// The first `limit` chips of every kind in one list, by (typos, count descending, kind bytes,
    /// value bytes) (Semantics.md), and how many there are; chips already among the tokens are
    /// left out.
    ///
    /// Only the first are made into ``CategorySuggestion``s, after ranking: a one-letter word on
    /// a catalog of places matches hundreds of chips, and sorting them as suggestions (four
    /// strings each, retained and released at every move) was most of such a keystroke. A few
    /// wanted (a client's three) are selected by insertion, with one comparison for most chips.
    private func categorySuggestions(_ acc: SuggestAccumulator, first limit: Int, replacementText: String,
                                     in txn: borrowing ReadTransaction) throws -> (first: [CategorySuggestion], total: Int) {
        let selected = Set(query.tokens)
        var chips: [RankedChip] = []
        chips.reserveCapacity(matchingCategories.count)
        for (token, typos) in matchingCategories where !selected.contains(token) {
            let count: Int
            if let counts = acc.categoryCounts {
                count = counts[token] ?? 0
            } else if query.complete.isEmpty && query.tokens.isEmpty {
                count = try generation.chipCount(token, in: txn)
            } else {
                count = 0  // unreachable: counts are gathered whenever the rest of the query filters
            }
            if count > 0 { chips.append(RankedChip(typos: typos, count: count, token: token)) }
        }
        let total = chips.count
        if total > limit && limit <= Self.selectedChips {
            var top: [RankedChip] = []
            top.reserveCapacity(limit + 1)
            for chip in chips where top.count < limit || chip.precedes(top[top.count - 1]) {
                var index = top.count
                while index > 0 && chip.precedes(top[index - 1]) { index -= 1 }
                top.insert(chip, at: index)
                if top.count > limit { top.removeLast() }
            }
            chips = top
        } else {
            chips.sort { $0.precedes($1) }
            if chips.count > limit { chips.removeLast(chips.count - limit) }
        }
        let first = chips.map { chip in
            CategorySuggestion(name: chip.token.value, count: chip.count, token: chip.token, replacementText: replacementText, typos: chip.typos)
        }
        return (first, total)
    }

    /// Up to this many chips wanted are selected by insertion rather than by sorting them all.
    private static var selectedChips: Int { 16 }

    /// A chip while it is ranked: its facts, without the suggestion's strings.
    private struct RankedChip {
        var typos: Int
        var count: Int
        var token: SearchToken

        /// ``ChipOrder`` (a chip's name is its token's value).
        func precedes(_ other: RankedChip) -> Bool {
            ChipOrder.precedes(typos: typos, count: count, kind: UTF8Key(token.kind.rawValue), name: UTF8Key(token.value),
                               before: other.typos, count: other.count, kind: UTF8Key(other.token.kind.rawValue),
                               name: UTF8Key(other.token.value))
        }
    }
}
