import Index
import Wire

// Responses, client form: Index response → wire message. The client API carries no rank keys,
// term spellings or typo counts (those are in the Shard API's Ranked* messages), so this direction
// is one-way; `Shard+Wire.swift` has the lossless shard form in both directions.

extension Typeahead_V1_Highlight {
    public init(_ highlight: Highlight) {
        self.init(start: UInt32(clamping: highlight.start), end: UInt32(clamping: highlight.end))
    }
}

extension Typeahead_V1_EntryHit {
    /// The hit without its rank key.
    public init(_ hit: EntryHit) {
        var attributes: [String: String] = [:]
        attributes.reserveCapacity(hit.attributes.count)
        for attribute in hit.attributes { attributes[attribute.key] = attribute.value }
        self.init(id: hit.id, title: hit.title, categories: hit.categories, weight: hit.weight,
                  attributes: attributes, completion: hit.completion,
                  highlights: hit.highlights.map(Typeahead_V1_Highlight.init))
    }
}

extension Typeahead_V1_CategorySuggestion {
    /// The chip without its typo count.
    public init(_ category: CategorySuggestion) {
        self.init(name: category.name, count: UInt32(clamping: category.count),
                  token: Typeahead_V1_SearchToken(category.token), replacementText: category.replacementText)
    }
}

extension Typeahead_V1_ShardStatus {
    /// One node answering for itself: one shard, which succeeded, from `generation`.
    public static func singleNode(generation: Int?) -> Typeahead_V1_ShardStatus {
        Typeahead_V1_ShardStatus(total: 1, succeeded: 1, failed: 0, generation: UInt64(generation ?? 0))
    }
}

extension Typeahead_V1_SuggestResponse {
    /// The client's answer: `session` and `revision` echo the request's; `shards` is set by a
    /// coordinator (nil: a node answering directly).
    public init(_ response: SuggestResponse, session: String = "", revision: UInt64 = 0,
                shards: Typeahead_V1_ShardStatus? = nil) {
        self.init(entries: response.entries.map(Typeahead_V1_EntryHit.init),
                  categories: response.categories.map(Typeahead_V1_CategorySuggestion.init),
                  completions: response.completions.map { Typeahead_V1_QueryCompletion(text: $0.text) },
                  session: session, revision: revision, shards: shards)
    }
}

extension Typeahead_V1_Facet {
    public init(_ facet: Facet) {
        self.init(name: facet.name, count: UInt32(clamping: facet.count))
    }
}

extension Typeahead_V1_SearchResponse {
    /// The client's answer; `shards` as in `Typeahead_V1_SuggestResponse.init(_:session:revision:shards:)`.
    public init(_ response: SearchResponse, shards: Typeahead_V1_ShardStatus? = nil) {
        self.init(hits: response.hits.map(Typeahead_V1_EntryHit.init),
                  totalHits: UInt32(clamping: response.totalHits),
                  facets: response.facets.map(Typeahead_V1_Facet.init),
                  nextPageToken: response.nextPageToken ?? "", shards: shards)
    }
}
