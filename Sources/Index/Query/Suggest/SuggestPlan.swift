import Storage

/// One way to evaluate a suggest query. A plan either proves that what it gathered is exactly what
/// Semantics.md defines, or says it cannot, and the engine tries the next one; it never answers
/// approximately. Plans that apply to one shape of query (one partial word, complete words, …)
/// answer ``PlanOutcome/unproven`` for the others.
///
/// Adding a plan: a type in `Plans/`, its evaluation in an `extension SuggestContext` of the same
/// file, and its place in ``SuggestEngine/plans`` (cheapest shortcuts first, the exact plans for
/// every shape last). The exactness tests then compare it with the brute-force reference.
protocol SuggestPlan: Sendable {
    /// Its name in answers and metrics.
    static var kind: SuggestPlanKind { get }
    static func evaluate(_ context: inout SuggestContext, in txn: borrowing ReadTransaction) throws -> PlanOutcome
}

enum PlanOutcome {
    /// The matches, proven exact.
    case exact(SuggestAccumulator)
    /// The plan does not apply, or cannot prove its answer.
    case unproven

    init(_ accumulator: SuggestAccumulator?) {
        self = accumulator.map { .exact($0) } ?? .unproven
    }

    var accumulator: SuggestAccumulator? {
        if case .exact(let accumulator) = self { return accumulator }
        return nil
    }
}
