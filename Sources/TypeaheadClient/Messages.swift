import Foundation

// The JSON forms of the typeahead.v1 messages a client sends and reads (`proto/typeahead/v1/
// typeahead.proto`, proto3's JSON mapping: lowerCamelCase names, uint64 as a string or a number).
// Fields a client does not need are left out; unknown fields in answers are ignored, so a newer
// server stays readable.
//
// Why not the `Wire` module's generated messages: they come with the server's JSON reader, which
// is yajl (a C library from Debian), and this library must build from Foundation alone, on Apple
// platforms as on Linux. So these few types mirror the proto by hand, and Codable reads them.

/// A chip in the search field that filters what is searched (SwiftUI's search token).
public struct SearchToken: Codable, Sendable, Hashable, Identifiable {
    /// What the token filters on: `category`, or an attribute the collection declares filterable
    /// (`DescribeResponse` lists a collection's kinds).
    public var kind: String
    /// The exact value, as written in the catalog.
    public var value: String

    public init(kind: String, value: String) {
        self.kind = kind
        self.value = value
    }

    /// `kind:value`, unique among a field's tokens (what `searchable(text:tokens:)` needs).
    public var id: String { kind + ":" + value }

    /// A token keeping only entries of `name`.
    public static func category(_ name: String) -> SearchToken { SearchToken(kind: "category", value: name) }
}

/// How many of each section a Suggest answer holds.
public struct SuggestLimits: Codable, Sendable, Hashable {
    public var entries: Int
    public var categories: Int
    public var completions: Int

    public init(entries: Int = 10, categories: Int = 3, completions: Int = 5) {
        self.entries = entries
        self.categories = categories
        self.completions = completions
    }
}

/// A keystroke's request: the field's text (complete words and the partial word being typed) and
/// its tokens. `session` and `revision` let the server and the client tell keystrokes apart.
/// `collection` or `scope` (not both) say what is searched: nil, the server's default collection;
/// a scope (a coordinator's, ``TypeaheadClient/describe()`` lists them) answers in `sections`.
public struct SuggestRequest: Encodable, Sendable, Hashable {
    public var text: String
    public var tokens: [SearchToken]
    public var limits: SuggestLimits
    public var session: String?
    public var revision: UInt64?
    public var collection: String?
    public var scope: String?

    public init(text: String, tokens: [SearchToken] = [], limits: SuggestLimits = .init(), session: String? = nil, revision: UInt64? = nil,
                collection: String? = nil, scope: String? = nil) {
        self.text = text
        self.tokens = tokens
        self.limits = limits
        self.session = session
        self.revision = revision
        self.collection = collection
        self.scope = scope
    }

    enum CodingKeys: String, CodingKey { case text, tokens, limits, session, revision, collection, scope }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(text, forKey: .text)
        try container.encode(tokens, forKey: .tokens)
        try container.encode(limits, forKey: .limits)
        try container.encodeIfPresent(session, forKey: .session)
        // uint64 travels as a string in proto3 JSON.
        try container.encodeIfPresent(revision.map(String.init), forKey: .revision)
        try container.encodeIfPresent(collection, forKey: .collection)
        try container.encodeIfPresent(scope, forKey: .scope)
    }
}

/// A highlighted range of a title, in UTF-16 code units (what `NSRange` and `AttributedString`
/// conversions use).
public struct Highlight: Codable, Sendable, Hashable {
    public var start: Int
    public var end: Int
}

/// One entry of a catalog, as an answer shows it.
public struct EntryHit: Codable, Sendable, Hashable, Identifiable {
    public var id: String
    public var title: String
    public var categories: [String]
    public var weight: UInt64
    public var attributes: [String: String]
    /// The text the field takes when this suggestion is chosen (`.searchCompletion`).
    public var completion: String
    public var highlights: [Highlight]

    enum CodingKeys: String, CodingKey { case id, title, categories, weight, attributes, completion, highlights }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        categories = try container.decodeIfPresent([String].self, forKey: .categories) ?? []
        weight = try container.decodeUInt64(forKey: .weight) ?? 0
        attributes = try container.decodeIfPresent([String: String].self, forKey: .attributes) ?? [:]
        completion = try container.decodeIfPresent(String.self, forKey: .completion) ?? title
        highlights = try container.decodeIfPresent([Highlight].self, forKey: .highlights) ?? []
    }
}

/// A token the person may add ("filter by Shoes", or an attribute value: "color: Red"), with the
/// text the field keeps once it is added. `token.kind` says which; `name` is the token's value.
public struct TokenSuggestion: Codable, Sendable, Hashable {
    public var name: String
    public var count: Int
    public var token: SearchToken
    /// The field's text after the token is added (the words that named the category removed).
    public var replacementText: String

    enum CodingKeys: String, CodingKey { case name, count, token, replacementText }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        count = try container.decodeIfPresent(Int.self, forKey: .count) ?? 0
        token = try container.decode(SearchToken.self, forKey: .token)
        replacementText = try container.decodeIfPresent(String.self, forKey: .replacementText) ?? ""
    }
}

/// A completion of the field's text ("red Shoes" for "red sh").
public struct Completion: Codable, Sendable, Hashable {
    public var text: String
}

/// Which shards answered: a coordinator may answer with some shards missing.
public struct ShardStatus: Codable, Sendable, Hashable {
    public var total: Int
    public var succeeded: Int
    public var failed: Int
    public var failedShards: [String]

    enum CodingKeys: String, CodingKey { case total, succeeded, failed, failedShards }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        total = try container.decodeIfPresent(Int.self, forKey: .total) ?? 0
        succeeded = try container.decodeIfPresent(Int.self, forKey: .succeeded) ?? 0
        failed = try container.decodeIfPresent(Int.self, forKey: .failed) ?? 0
        failedShards = try container.decodeIfPresent([String].self, forKey: .failedShards) ?? []
    }
}

/// What the field shows for a keystroke.
public struct SuggestResponse: Decodable, Sendable, Hashable {
    public var entries: [EntryHit]
    public var categories: [TokenSuggestion]
    public var completions: [Completion]
    public var session: String
    /// The revision of the request this answers.
    public var revision: UInt64
    public var shards: ShardStatus?
    /// A scoped request's answer: one section per collection of the scope, in its order (then
    /// `entries` and `categories` are empty and `completions` merge the sections'). Empty otherwise.
    public var sections: [SuggestSection]

    enum CodingKeys: String, CodingKey { case entries, categories, completions, session, revision, shards, sections }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        entries = try container.decodeIfPresent([EntryHit].self, forKey: .entries) ?? []
        categories = try container.decodeIfPresent([TokenSuggestion].self, forKey: .categories) ?? []
        completions = try container.decodeIfPresent([Completion].self, forKey: .completions) ?? []
        session = try container.decodeIfPresent(String.self, forKey: .session) ?? ""
        revision = try container.decodeUInt64(forKey: .revision) ?? 0
        shards = try container.decodeIfPresent(ShardStatus.self, forKey: .shards)
        sections = try container.decodeIfPresent([SuggestSection].self, forKey: .sections) ?? []
    }
}

/// A submitted search (`onSubmit(of: .search)`), one page at a time.
public struct SearchRequest: Encodable, Sendable, Hashable {
    public var text: String
    public var tokens: [SearchToken]
    public var pageSize: Int
    /// The previous page's `nextPageToken`; nil for the first page.
    public var pageToken: String?
    /// What is searched, as ``SuggestRequest/collection``.
    public var collection: String?
    /// A scope: the first page of each of its collections, in `sections` (page a section with a
    /// request naming its collection and its `nextPageToken`).
    public var scope: String?

    public init(text: String, tokens: [SearchToken] = [], pageSize: Int = 20, pageToken: String? = nil, collection: String? = nil,
                scope: String? = nil) {
        self.text = text
        self.tokens = tokens
        self.pageSize = pageSize
        self.pageToken = pageToken
        self.collection = collection
        self.scope = scope
    }
}

/// How many results of a search fall in a category.
public struct Facet: Codable, Sendable, Hashable {
    public var name: String
    public var count: Int
}

/// One page of results.
public struct SearchResponse: Decodable, Sendable, Hashable {
    public var hits: [EntryHit]
    /// Every result of the search, on every page.
    public var totalHits: Int
    public var facets: [Facet]
    /// Empty on the last page.
    public var nextPageToken: String
    public var shards: ShardStatus?
    /// A scoped request's answer: one section per collection of the scope. Empty otherwise.
    public var sections: [SearchSection]

    enum CodingKeys: String, CodingKey { case hits, totalHits, facets, nextPageToken, shards, sections }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        hits = try container.decodeIfPresent([EntryHit].self, forKey: .hits) ?? []
        totalHits = try container.decodeIfPresent(Int.self, forKey: .totalHits) ?? 0
        facets = try container.decodeIfPresent([Facet].self, forKey: .facets) ?? []
        nextPageToken = try container.decodeIfPresent(String.self, forKey: .nextPageToken) ?? ""
        shards = try container.decodeIfPresent(ShardStatus.self, forKey: .shards)
        sections = try container.decodeIfPresent([SearchSection].self, forKey: .sections) ?? []
    }
}

extension KeyedDecodingContainer {
    /// A uint64 as proto3 JSON writes it: a string of digits, or a number.
    func decodeUInt64(forKey key: Key) throws -> UInt64? {
        if let text = try? decodeIfPresent(String.self, forKey: key) {
            guard let value = UInt64(text) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not a uint64: \(text)")
            }
            return value
        }
        return try decodeIfPresent(UInt64.self, forKey: key)
    }
}
