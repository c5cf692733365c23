import Storage
import Analysis

/// A request turned into query words, validated.
struct PreparedQuery {
    let parsed: ParsedQuery
    var complete: [QueryWord]
    var partial: QueryWord?
    /// Distinct tokens.
    let tokens: [SearchToken]
    /// The tokens as bytes, to check documents against.
    let tokenFilters: [TokenFilter]
    /// The bytes a title must start with to rank as "starts with the typed text".
    let startsWithPrefix: [UInt8]

    /// Longest text accepted, in UTF-8 bytes: a search field never needs more.
    static let maximumTextBytes = 4096
    static let maximumTokens = 32

    init(text: String, tokens: [SearchToken], typos: TypoMode, analyzer: Analyzer) throws(IndexError) {
        guard text.utf8.count <= Self.maximumTextBytes else {
            throw .invalidArgument("text is \(text.utf8.count) bytes; the limit is \(Self.maximumTextBytes)")
        }
        guard tokens.count <= Self.maximumTokens else {
            throw .invalidArgument("\(tokens.count) tokens; the limit is \(Self.maximumTokens)")
        }
        parsed = analyzer.parseQuery(text)
        complete = parsed.completeWords.map { QueryWord($0, isPartial: false, typos: typos) }
        partial = parsed.partialWord.map { QueryWord($0, isPartial: true, typos: typos) }
        var seen = Set<SearchToken>()
        self.tokens = tokens.filter { seen.insert($0).inserted }
        tokenFilters = self.tokens.map(TokenFilter.init)
        var prefix = Array(parsed.completeWords.joined(separator: " ").utf8)
        if let partial = parsed.partialWord {
            if !prefix.isEmpty { prefix.append(0x20) }
            prefix.append(contentsOf: partial.utf8)
        }
        startsWithPrefix = prefix
    }

    /// Refuses a token of a kind the generation does not take: neither "category" nor one of its
    /// `filterable` attributes (sorted).
    static func checkKinds(_ tokens: [SearchToken], filterable: [String]) throws(IndexError) {
        for (index, token) in tokens.enumerated() where !token.kind.isCategory && !filterable.contains(token.kind.rawValue) {
            let known = (["category"] + filterable).map { "\"\($0)\"" }.joined(separator: ", ")
            throw .invalidArgument("tokens[\(index)].kind: \"\(token.kind)\" is not a token kind of this collection "
                                   + "(known: \(known); an attribute is a kind once declared filterable)")
        }
    }

    var hasWords: Bool { !complete.isEmpty || partial != nil }

    /// Whether `sortTitle` is the typed words, the partial word taken as complete (the exact tier
    /// of Semantics.md): it is then ``startsWithPrefix`` itself.
    func isExact(_ sortTitle: Bytes) -> Bool {
        hasWords && sortTitle.count == startsWithPrefix.count && sortTitle.hasPrefix(startsWithPrefix)
    }

    /// Whether `sortTitle` starts with the typed words (see Semantics.md).
    func startsWith(_ sortTitle: Bytes) -> Bool {
        if !hasWords { return true }
        guard sortTitle.count >= startsWithPrefix.count, sortTitle.hasPrefix(startsWithPrefix) else { return false }
        if partial != nil { return true }
        return sortTitle.count == startsWithPrefix.count || sortTitle[startsWithPrefix.count] == 0x20
    }
}
