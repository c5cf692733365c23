import Foundation

// The JSON forms of a scoped (federated) answer's sections and of Describe
// (`proto/typeahead/v1/typeahead.proto`): what a client builds a scope picker, a prompt and a
// sectioned suggestion list from (SwiftUI's `searchScopes`, Spotlight's "Apps" and "Documents").

/// One collection's part of a scoped Suggest answer.
public struct SuggestSection: Decodable, Sendable, Hashable {
    public var collection: String
    public var entries: [EntryHit]
    public var categories: [TokenSuggestion]
    public var completions: [Completion]
    public var shards: ShardStatus?
    /// Set only when the collection failed as a whole (its shards then count 0 answered).
    public var error: SectionError?

    enum CodingKeys: String, CodingKey { case collection, entries, categories, completions, shards, error }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        collection = try container.decodeIfPresent(String.self, forKey: .collection) ?? ""
        entries = try container.decodeIfPresent([EntryHit].self, forKey: .entries) ?? []
        categories = try container.decodeIfPresent([TokenSuggestion].self, forKey: .categories) ?? []
        completions = try container.decodeIfPresent([Completion].self, forKey: .completions) ?? []
        shards = try container.decodeIfPresent(ShardStatus.self, forKey: .shards)
        error = try container.decodeIfPresent(SectionError.self, forKey: .error)
    }
}

/// One collection's first page of a scoped Search answer.
public struct SearchSection: Decodable, Sendable, Hashable {
    public var collection: String
    public var hits: [EntryHit]
    public var totalHits: Int
    public var facets: [Facet]
    /// Send with a ``SearchRequest`` naming ``collection`` for its next page; empty on its last.
    public var nextPageToken: String
    public var shards: ShardStatus?
    /// Set only when the collection failed as a whole (no hits, total 0).
    public var error: SectionError?

    enum CodingKeys: String, CodingKey { case collection, hits, totalHits, facets, nextPageToken, shards, error }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        collection = try container.decodeIfPresent(String.self, forKey: .collection) ?? ""
        hits = try container.decodeIfPresent([EntryHit].self, forKey: .hits) ?? []
        totalHits = try container.decodeIfPresent(Int.self, forKey: .totalHits) ?? 0
        facets = try container.decodeIfPresent([Facet].self, forKey: .facets) ?? []
        nextPageToken = try container.decodeIfPresent(String.self, forKey: .nextPageToken) ?? ""
        shards = try container.decodeIfPresent(ShardStatus.self, forKey: .shards)
        error = try container.decodeIfPresent(SectionError.self, forKey: .error)
    }
}

/// What a server offers (``TypeaheadClient/describe()``): scopes for a picker, collections, the
/// default prompt.
///
/// ```swift
/// let offered = try await client.describe()
/// let prompt = offered.scopes.first?.prompt ?? offered.defaultPrompt   // "Departments and products"
/// ```
public struct DescribeResponse: Decodable, Sendable, Hashable {
    /// A scope a request may name: what a scope picker shows and the field's prompt while picked.
    public struct Scope: Decodable, Sendable, Hashable, Identifiable {
        public var name: String
        public var label: String
        public var prompt: String
        public var collections: [String]
        public var tokens: [SearchToken]
        public var id: String { name }

        enum CodingKeys: String, CodingKey { case name, label, prompt, collections, tokens }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            label = try container.decodeIfPresent(String.self, forKey: .label) ?? name
            prompt = try container.decodeIfPresent(String.self, forKey: .prompt) ?? ""
            collections = try container.decodeIfPresent([String].self, forKey: .collections) ?? []
            tokens = try container.decodeIfPresent([SearchToken].self, forKey: .tokens) ?? []
        }
    }

    /// A collection served: its size and the token kinds its requests take.
    public struct Collection: Decodable, Sendable, Hashable {
        public var name: String
        public var entries: UInt64
        public var tokenKinds: [String]

        enum CodingKeys: String, CodingKey { case name, entries, tokenKinds }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            entries = try container.decodeUInt64(forKey: .entries) ?? 0
            tokenKinds = try container.decodeIfPresent([String].self, forKey: .tokenKinds) ?? []
        }
    }

    public var scopes: [Scope]
    public var collections: [Collection]
    public var defaultCollection: String
    /// The field's prompt with no scope picked.
    public var defaultPrompt: String

    enum CodingKeys: String, CodingKey { case scopes, collections, defaultCollection, defaultPrompt }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        scopes = try container.decodeIfPresent([Scope].self, forKey: .scopes) ?? []
        collections = try container.decodeIfPresent([Collection].self, forKey: .collections) ?? []
        defaultCollection = try container.decodeIfPresent(String.self, forKey: .defaultCollection) ?? ""
        defaultPrompt = try container.decodeIfPresent(String.self, forKey: .defaultPrompt) ?? ""
    }
}

/// Describe's request: no fields.
struct DescribeRequest: Encodable {}
