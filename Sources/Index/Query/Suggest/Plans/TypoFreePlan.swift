import Storage
import Synchronization

/// Every match that needs a typo ranks after every match that needs none, in entries and in
/// completions alike. So when the typo-free matches already fill every section, typos cannot
/// change the answer and the expensive expansion of query words into similar terms is skipped.
/// Category counts are the exception: they count typo matches of complete words too, so the
/// shortcut holds for them only when no complete word may have typos.
enum TypoFreePlan: SuggestPlan {
    static let kind = SuggestPlanKind.typoFree

    /// Queries this plan left at once because too few words start with the partial word (for
    /// tests: a path only its speed would otherwise show).
    static let skippedForFewWords = Atomic<Int>(0)

    static func evaluate(_ context: inout SuggestContext, in txn: borrowing ReadTransaction) throws -> PlanOutcome {
        // Asked of the context's words in place: most keystrokes have no word that may have
        // typos, and leave here without a copy of the query or an array of its words.
        guard context.query.complete.contains(where: { $0.budget > 0 }) || context.query.partial.map({ $0.budget > 0 }) == true else {
            return .unproven
        }
        let query = context.query
        // Counted categories include typo matches of complete words: then this shortcut can never
        // be taken, so do not pay for trying.
        let countsCategories = !context.matchingCategories.isEmpty && !(query.complete.isEmpty && query.tokens.isEmpty)
        if countsCategories && query.complete.contains(where: { $0.budget > 0 }) { return .unproven }
        // Typo-free matches pass the exact complete words and tokens: when fewer documents do than
        // entries are wanted, they cannot fill the entries, so do not pay for trying. (The list
        // is the one the exact general plan reads first, kept per snapshot.)
        let entries = context.request.limits.entries
        if entries > 0, !query.complete.isEmpty || !query.tokens.isEmpty,
           let docs = try context.generation.filteredDocuments(words: query.complete.map { $0.withoutTypos() }, tokens: query.tokens,
                                                               includeDescription: false, in: txn).docs,
           docs.count < entries {
            return .unproven
        }
        // Typo-free completions are words under the typed prefix, one a word: with fewer such
        // words (base and delta, description-only ones too: an upper bound) than completions
        // wanted, they cannot fill the section ("dicti" on Debian has four: its typo-free
        // answer, 130 µs, was computed and thrown away on every keystroke of a longer word).
        if let partial = query.partial, context.request.limits.completions > 0,
           try context.generation.prefixTerms(partial.bytes, atMost: context.request.limits.completions - 1, in: txn) != nil {
            skippedForFewWords.add(1, ordering: .relaxed)
            return .unproven
        }
        var exact = context
        exact.query.complete = query.complete.map { $0.withoutTypos() }
        exact.query.partial = query.partial?.withoutTypos()
        guard let acc = try SuggestEngine.evaluateExactly(&exact, in: txn) else { return .unproven }
        guard acc.entries.isFull || acc.entries.limit == 0 else { return .unproven }
        guard !acc.wantsCompletions || acc.completions.count >= context.request.limits.completions else { return .unproven }
        guard acc.categoryCounts == nil || query.complete.allSatisfy({ $0.budget == 0 }) else { return .unproven }
        return .exact(acc)
    }
}
