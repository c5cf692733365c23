import Analysis
import Storage

/// Answers a ``SuggestRequest`` against one generation, exactly as Semantics.md defines it.
///
/// The engine prepares a ``SuggestContext`` and tries its ``plans`` in order; the first that
/// proves its answer exact gives the matches, which the context turns into the response. The
/// plans live in `Suggest/Plans/`, one a file:
/// - ``TriePlan``: one partial word with a heavy trie node: its lists instead of its subtree;
/// - ``TypoFreePlan``: the same query without typos, when typo-free matches fill every section;
/// - ``AllEntriesPlan``, ``PartialWordPlan``, ``GeneralPlan``: the exact plans, one for each shape
///   of query (no words; one partial word; complete words or tokens), always conclusive.
struct SuggestEngine {
    let generation: Generation
    let analyzer: Analyzer
    /// Polled between candidates; true stops the query with `IndexError.Code.cancelled`.
    var shouldStop: (@Sendable () -> Bool)? = nil
    /// A client's presented answer, or one shard's part of a merged answer.
    var form: ResponseForm = .presented

    /// Shortcuts first, then the exact plans.
    static let plans: [any SuggestPlan.Type] = [TriePlan.self, TypoFreePlan.self] + exactPlans
    /// Between them they answer every query, exactly.
    static let exactPlans: [any SuggestPlan.Type] = [AllEntriesPlan.self, PartialWordPlan.self, GeneralPlan.self]

    func suggest(_ request: SuggestRequest, in txn: borrowing ReadTransaction) throws -> SuggestAnswer {
        var context = try prepare(request, in: txn)
        for plan in Self.plans {
            if let accumulator = try plan.evaluate(&context, in: txn).accumulator {
                var answer = try context.respond(accumulator, in: txn)
                answer.plan = plan.kind
                return answer
            }
        }
        throw IndexError(.internal, "no suggest plan answered \"\(request.text)\"")
    }

    private func prepare(_ request: SuggestRequest, in txn: borrowing ReadTransaction) throws -> SuggestContext {
        try Self.validate(request.limits)
        let query = try PreparedQuery(text: request.text, tokens: request.tokens, typos: request.typos, analyzer: analyzer)
        try PreparedQuery.checkKinds(query.tokens, filterable: generation.filterable)
        var matchingCategories: [SearchToken: Int] = [:]
        if let partial = query.partial, request.limits.categories > 0 {
            matchingCategories = try generation.categories(matching: partial, in: txn)
        }
        return SuggestContext(generation: generation, analyzer: analyzer, request: request, query: consume query,
                              deleted: try generation.deletedSet(in: txn), matchingCategories: matchingCategories,
                              shouldStop: shouldStop, form: form)
    }

    /// The first exact plan's matches for the context's query (nil only if none applies, which
    /// ``exactPlans`` rule out).
    static func evaluateExactly(_ context: inout SuggestContext, in txn: borrowing ReadTransaction) throws -> SuggestAccumulator? {
        for plan in exactPlans {
            if let accumulator = try plan.evaluate(&context, in: txn).accumulator { return accumulator }
        }
        return nil
    }

    /// One check a limit, not a loop over an array of them: that array was an allocation on
    /// every keystroke.
    static func validate(_ limits: SuggestLimits) throws(IndexError) {
        try validate("entries", limits.entries)
        try validate("categories", limits.categories)
        try validate("completions", limits.completions)
    }

    private static func validate(_ name: StaticString, _ value: Int) throws(IndexError) {
        guard (0...SuggestLimits.maximum).contains(value) else {
            throw .invalidArgument("limits.\(name) must be between 0 and \(SuggestLimits.maximum), got \(value)")
        }
    }
}
