/// A query a search key restricts: its tokens, to which the key's are added.
///
/// Tokens only narrow (an entry must carry every one), so a request made with a key sees at most
/// what the key's tokens allow, whatever tokens it adds; it cannot take one away, since the key's
/// are added after the request is read.
public protocol TokenFiltered {
    var tokens: [Typeahead_V1_SearchToken] { get set }
}

extension TokenFiltered {
    /// The request with `key`'s tokens added, none twice (itself without a key).
    public func restricted(to key: SearchKey?) -> Self {
        guard let key else { return self }
        return forcing(key.tokens)
    }

    /// The request with `forced` added, none twice: a search key's tokens, and a scope's fixed
    /// tokens on each collection it covers (the same narrowing, so the same code).
    public func forcing(_ forced: [Typeahead_V1_SearchToken]) -> Self {
        guard !forced.isEmpty else { return self }
        var request = self
        request.tokens += forced.filter { token in !tokens.contains { $0.kind == token.kind && $0.value == token.value } }
        return request
    }
}

extension Typeahead_V1_SuggestRequest: TokenFiltered {}
extension Typeahead_V1_SearchRequest: TokenFiltered {}
