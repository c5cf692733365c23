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
        var request = self
        request.tokens += key.tokens.filter { forced in !tokens.contains { $0.kind == forced.kind && $0.value == forced.value } }
        return request
    }
}

extension Typeahead_V1_SuggestRequest: TokenFiltered {}
extension Typeahead_V1_SearchRequest: TokenFiltered {}
