import Storage

/// No words and no tokens (an empty field, perhaps with a scope): every entry matches alike.
enum AllEntriesPlan: SuggestPlan {
    static let kind = SuggestPlanKind.allEntries

    static func evaluate(_ context: inout SuggestContext, in txn: borrowing ReadTransaction) throws -> PlanOutcome {
        guard !context.query.hasWords, context.query.tokens.isEmpty else { return .unproven }
        var acc = try context.newAccumulator(countCategories: false, in: txn)
        try context.evaluateAll(&acc, in: txn)
        return .exact(acc)
    }
}

extension SuggestContext {
    /// No words and no tokens: every entry matches with the same typos and startsWith, so base
    /// documents (numbered in rank order) are read only until the entries are full; every delta
    /// document is read.
    fileprivate mutating func evaluateAll(_ acc: inout SuggestAccumulator, in txn: borrowing ReadTransaction) throws {
        let base = generation.baseCount
        let schema = generation.schema
        try txn.withCursor(schema.docs) { cursor in
            var entry = try cursor.first()
            while let (key, value) = entry {
                let docnum = schema.documentNumber(key)
                if docnum < base, acc.entries.isFull || acc.entries.limit == 0 {
                    entry = try cursor.seek(atLeast: schema.documentKey(base))
                    continue
                }
                if !(try deleted?.contains(docnum, in: txn) ?? false) {
                    try consider(try DocumentView(docnum: docnum, record: value, keys: generation.attributeKeys), &acc)
                }
                entry = try cursor.next()
            }
        }
    }
}
