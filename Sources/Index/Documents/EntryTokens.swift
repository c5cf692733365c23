/// The tokens an entry carries, which the index lists it under (filter pseudo-terms) and counts it
/// in (token chips): one per category, and one per filterable attribute it has, whose value is 1
/// to ``SearchToken/maximumValueBytes`` bytes (no token can name another value). The builder, the
/// updater (adding and removing a document) and so every revision agree through this one rule.
enum EntryTokens {
    static func of(categories: [String], attributes: some Sequence<(key: String, value: String)>,
                   filterable: [String]) -> [SearchToken] {
        var tokens = categories.map(SearchToken.category)
        guard !filterable.isEmpty else { return tokens }
        for (key, value) in attributes where !value.isEmpty && value.utf8.count <= SearchToken.maximumValueBytes {
            // `filterable` holds valid kind names only, so a key found in it is one.
            guard filterable.contains(where: { $0.utf8.elementsEqual(key.utf8) }), let kind = SearchToken.Kind(rawValue: key) else { continue }
            tokens.append(SearchToken(kind: kind, value: value))
        }
        return tokens
    }
}
