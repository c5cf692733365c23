/// A Suggest answer inside the read transaction that found it: its hits are ``HitView``s of the
/// stored entries, the small sections (completions, categories) are values. Valid only inside the
/// closure of ``Shard/suggest(_:form:generation:shouldStop:answer:)``; ``materialized()`` makes the
/// ``SuggestResponse`` that outlives it.
public struct SuggestAnswer {
    /// In rank order, cut to `limits.entries`.
    public var hits: [HitView] = []
    public var categories: [CategorySuggestion] = []
    public var completions: [QueryCompletion] = []
    /// As ``SuggestResponse/categoriesTruncated``.
    public var categoriesTruncated = false

    init() {}

    public func materialized() throws -> SuggestResponse {
        SuggestResponse(entries: try hits.map { try $0.materialized() }, categories: categories, completions: completions,
                        categoriesTruncated: categoriesTruncated)
    }
}
