import Index
import Wire

// Requests: wire message ⇄ Index request. Message → Index validates (enums, limits, token kinds)
// and throws `IndexError` (`.invalidArgument`, naming the proto field); Index → message cannot fail
// and writes every setting explicitly (limits, dedupe, typos), so a forwarded request never depends
// on the receiver's defaults.

extension SearchToken {
    /// Validates the kind's name (``SearchToken/Kind``: "category", or an attribute key of 1 to
    /// 64 bytes of `[a-z0-9_-]`) and the value (1 to 256 bytes). Whether the collection takes an
    /// attribute kind (declared it filterable) is the index's check, which knows the generation.
    public init(_ message: Typeahead_V1_SearchToken, field: String = "token") throws(IndexError) {
        guard let kind = SearchToken.Kind(rawValue: message.kind) else {
            throw invalid("\(field).kind", "\"\(message.kind.prefix(80))\" is not a token kind (\"category\", or a filterable "
                          + "attribute: 1 to \(SearchToken.Kind.maximumNameBytes) bytes of [a-z0-9_-])")
        }
        guard !message.value.isEmpty, message.value.utf8.count <= SearchToken.maximumValueBytes else {
            throw invalid("\(field).value", "must be 1 to \(SearchToken.maximumValueBytes) bytes, got \(message.value.utf8.count)")
        }
        self.init(kind: kind, value: message.value)
    }
}

extension Typeahead_V1_SearchToken {
    public init(_ token: SearchToken) {
        self.init(kind: token.kind.rawValue, value: token.value)
    }
}

extension TypoMode {
    /// `TYPOS_UNSPECIFIED` is auto; values this schema does not know are refused.
    public init(_ message: Typeahead_V1_Typos, field: String = "typos") throws(IndexError) {
        switch message {
        case .unspecified, .auto: self = .auto
        case .off: self = .off
        case .unrecognized(let value): throw invalid(field, "\(value) is not a Typos value")
        }
    }
}

extension Typeahead_V1_Typos {
    public init(_ mode: TypoMode) {
        switch mode {
        case .auto: self = .auto
        case .off: self = .off
        }
    }
}

extension SuggestRequest {
    /// The Index request for a wire request. `session` and `revision` are not part of it (the
    /// caller echoes them, see `Typeahead_V1_SuggestResponse.init(_:session:revision:shards:)`);
    /// `session` is checked here (at most 128 bytes) so that one place validates the whole message.
    public init(_ message: Typeahead_V1_SuggestRequest) throws(IndexError) {
        let tokens = try validatedTokens(message.tokens)
        try checkText(message.text)
        guard message.session.utf8.count <= WireLimits.maximumSessionBytes else {
            throw invalid("session", "at most \(WireLimits.maximumSessionBytes) bytes, got \(message.session.utf8.count)")
        }
        var limits = SuggestLimits()
        if let given = message.limits {
            func limit(_ value: UInt32?, _ name: String, default fallback: Int) throws(IndexError) -> Int {
                guard let value else { return fallback }
                guard value <= UInt32(SuggestLimits.maximum) else {
                    throw invalid("limits.\(name)", "must be 0 to \(SuggestLimits.maximum), got \(value)")
                }
                return Int(value)
            }
            limits.entries = try limit(given.entries, "entries", default: limits.entries)
            limits.categories = try limit(given.categories, "categories", default: limits.categories)
            limits.completions = try limit(given.completions, "completions", default: limits.completions)
        }
        self.init(text: message.text, tokens: tokens, limits: limits, typos: try TypoMode(message.typos),
                  dedupe: message.dedupe ?? true)
    }
}

extension Typeahead_V1_SuggestRequest {
    public init(_ request: SuggestRequest, session: String = "", revision: UInt64 = 0) {
        self.init(
            text: request.text,
            tokens: request.tokens.map(Typeahead_V1_SearchToken.init),
            limits: Typeahead_V1_SuggestLimits(entries: UInt32(clamping: request.limits.entries),
                                               categories: UInt32(clamping: request.limits.categories),
                                               completions: UInt32(clamping: request.limits.completions)),
            typos: Typeahead_V1_Typos(request.typos),
            dedupe: request.dedupe,
            session: session,
            revision: revision)
    }
}

extension SearchRequest.Sort {
    /// `SORT_UNSPECIFIED` is relevance; values this schema does not know are refused.
    public init(_ message: Typeahead_V1_SearchRequest.Sort) throws(IndexError) {
        switch message {
        case .unspecified, .relevance: self = .relevance
        case .weight: self = .weight
        case .unrecognized(let value): throw invalid("sort", "\(value) is not a Sort value")
        }
    }
}

extension Typeahead_V1_SearchRequest.Sort {
    public init(_ sort: SearchRequest.Sort) {
        switch sort {
        case .relevance: self = .relevance
        case .weight: self = .weight
        }
    }
}

extension SearchRequest {
    /// The Index request for a wire request: page_size 0 means 20, otherwise 1 to 100; an empty
    /// page_token means the first page.
    public init(_ message: Typeahead_V1_SearchRequest) throws(IndexError) {
        let tokens = try validatedTokens(message.tokens)
        try checkText(message.text)
        let pageSize = message.pageSize == 0 ? WireLimits.defaultPageSize : Int(message.pageSize)
        guard pageSize <= SearchRequest.maximumPageSize else {
            throw invalid("page_size", "must be 1 to \(SearchRequest.maximumPageSize), got \(message.pageSize)")
        }
        guard message.pageToken.utf8.count <= WireLimits.maximumPageTokenBytes else {
            throw invalid("page_token", "at most \(WireLimits.maximumPageTokenBytes) bytes, got \(message.pageToken.utf8.count)")
        }
        self.init(text: message.text, tokens: tokens, pageSize: pageSize,
                  pageToken: message.pageToken.isEmpty ? nil : message.pageToken,
                  sort: try Sort(message.sort), facets: message.facets ?? true, typos: try TypoMode(message.typos))
    }
}

extension Typeahead_V1_SearchRequest {
    public init(_ request: SearchRequest) {
        self.init(
            text: request.text,
            tokens: request.tokens.map(Typeahead_V1_SearchToken.init),
            pageSize: UInt32(clamping: request.pageSize),
            pageToken: request.pageToken ?? "",
            sort: Sort(request.sort),
            facets: request.facets,
            typos: Typeahead_V1_Typos(request.typos))
    }
}

private func validatedTokens(_ tokens: [Typeahead_V1_SearchToken]) throws(IndexError) -> [SearchToken] {
    guard tokens.count <= WireLimits.maximumTokens else {
        throw invalid("tokens", "at most \(WireLimits.maximumTokens) tokens, got \(tokens.count)")
    }
    var result: [SearchToken] = []
    result.reserveCapacity(tokens.count)
    for (i, token) in tokens.enumerated() {
        result.append(try SearchToken(token, field: "tokens[\(i)]"))
    }
    return result
}

private func checkText(_ text: String) throws(IndexError) {
    guard text.utf8.count <= WireLimits.maximumTextBytes else {
        throw invalid("text", "at most \(WireLimits.maximumTextBytes) bytes, got \(text.utf8.count)")
    }
}
