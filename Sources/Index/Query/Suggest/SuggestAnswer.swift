/// A Suggest answer inside the read transaction that found it: its hits and completions are views
/// of the stored entries (``HitView``, ``CompletionView``), the category chips are values. Valid
/// only inside the closure of ``Shard/suggest(_:form:generation:shouldStop:answer:)``;
/// ``materialized()`` makes the ``SuggestResponse`` that outlives it.
public struct SuggestAnswer {
    /// In rank order, cut to `limits.entries`.
    public var hits: [HitView] = []
    public var categories: [CategorySuggestion] = []
    /// In rank order, cut to `limits.completions`.
    public var completions: [CompletionView] = []
    /// As ``SuggestResponse/categoriesTruncated``.
    public var categoriesTruncated = false
    /// What a presented completion's text starts with, the field's text up to the partial word
    /// (its `text` is this followed by its spelling); nil in a ``ResponseForm/shardPart`` answer,
    /// whose completions have no text.
    public let textBeforePartial: String?
    /// The plan that proved it (every plan answers exactly; this is for metrics).
    public internal(set) var plan: SuggestPlanKind = .general

    init(textBeforePartial: String?) {
        self.textBeforePartial = textBeforePartial
    }

    public func materialized() throws -> SuggestResponse {
        SuggestResponse(entries: try hits.map { try $0.materialized() }, categories: categories,
                        completions: completions.map { $0.materialized(textBeforePartial: textBeforePartial) },
                        categoriesTruncated: categoriesTruncated)
    }
}
