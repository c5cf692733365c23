import Catalog
import Index
import Wire

// The Shard API: Index types ⇄ wire messages, lossless in both directions where the Index type can
// be built from outside the module. Message → Index validates what a misbehaving node or
// coordinator could send wrong (missing sub-messages, unknown enum values and token kinds, batch
// limits) and throws `IndexError` (`.invalidArgument`) naming the proto field.

extension Typeahead_V1_RankKey {
    public init(_ key: RankKey) {
        self.init(typos: UInt32(clamping: key.typos), field: UInt32(clamping: key.field), exact: key.exact, startsWith: key.startsWith,
                  weight: key.weight, sortTitle: key.sortTitle, id: key.id)
    }
}

extension RankKey {
    public init(_ message: Typeahead_V1_RankKey) {
        self.init(typos: Int(message.typos), field: Int(message.field), exact: message.exact, startsWith: message.startsWith,
                  weight: message.weight, sortTitle: message.sortTitle, id: message.id)
    }
}

extension Typeahead_V1_RankedEntry {
    public init(_ hit: EntryHit) {
        self.init(hit: Typeahead_V1_EntryHit(hit), rank: Typeahead_V1_RankKey(hit.rank))
    }
}

extension EntryHit {
    /// Attributes come back sorted by key bytes, as the index returns them.
    public init(_ message: Typeahead_V1_RankedEntry, field: String = "entry") throws(IndexError) {
        guard let hit = message.hit else { throw invalid("\(field).hit", "is missing") }
        guard let rank = message.rank else { throw invalid("\(field).rank", "is missing") }
        let attributes = ProtoWriter.sortedKeys(hit.attributes).map { Attribute(key: $0, value: hit.attributes[$0]!) }
        self.init(id: hit.id, title: hit.title, categories: hit.categories, weight: hit.weight,
                  attributes: attributes, completion: hit.completion,
                  highlights: hit.highlights.map { Highlight(start: Int($0.start), end: Int($0.end)) },
                  rank: RankKey(rank))
    }
}

extension Typeahead_V1_RankedCompletion {
    public init(_ completion: QueryCompletion) {
        self.init(text: completion.text, term: completion.term, typos: UInt32(clamping: completion.typos),
                  best: Typeahead_V1_RankKey(completion.best), spelling: completion.spelling)
    }
}

extension QueryCompletion {
    public init(_ message: Typeahead_V1_RankedCompletion, field: String = "completion") throws(IndexError) {
        guard let best = message.best else { throw invalid("\(field).best", "is missing") }
        self.init(text: message.text, spelling: message.spelling, term: message.term, typos: Int(message.typos),
                  best: RankKey(best))
    }
}

extension Typeahead_V1_RankedCategory {
    /// A shard's chip is its facts: name, this shard's count and typos, and for an attribute
    /// value its token (a category chip's is left out: absent means "category", as nodes before
    /// attribute tokens sent it). The replacement text is the coordinator's to present.
    public init(_ category: CategorySuggestion) {
        let token = category.token.kind.isCategory ? nil : Typeahead_V1_SearchToken(category.token)
        self.init(suggestion: Typeahead_V1_CategorySuggestion(name: category.name, count: UInt32(clamping: category.count), token: token),
                  typos: UInt32(clamping: category.typos))
    }
}

extension CategorySuggestion {
    /// The token is the chip's own: its kind (absent: "category") and the chip's name as the
    /// value (a `token` whose value is another is refused); the replacement text is presented
    /// later (``Presenter``), so whatever was sent is kept as is.
    public init(_ message: Typeahead_V1_RankedCategory, field: String = "category") throws(IndexError) {
        guard let suggestion = message.suggestion else { throw invalid("\(field).suggestion", "is missing") }
        guard !suggestion.name.isEmpty else { throw invalid("\(field).suggestion.name", "is empty") }
        var token = SearchToken.category(suggestion.name)
        if let sent = suggestion.token {
            token = try SearchToken(sent, field: "\(field).suggestion.token")
            guard token.value.utf8.elementsEqual(suggestion.name.utf8) else {
                throw invalid("\(field).suggestion.token", "is not the chip's own token (its value is not the chip's name)")
            }
        }
        self.init(name: suggestion.name, count: Int(suggestion.count), token: token,
                  replacementText: suggestion.replacementText, typos: Int(message.typos))
    }
}

extension Typeahead_V1_ShardSuggestResponse {
    /// `generation`: the generation that answered.
    public init(_ response: SuggestResponse, generation: UInt64) {
        self.init(entries: response.entries.map(Typeahead_V1_RankedEntry.init),
                  categories: response.categories.map(Typeahead_V1_RankedCategory.init),
                  completions: response.completions.map(Typeahead_V1_RankedCompletion.init),
                  generation: generation, categoriesTruncated: response.categoriesTruncated, hitsHighlighted: true)
    }
}

extension SuggestResponse {
    /// A shard's answer as the Index type (what the coordinator merges).
    public init(_ message: Typeahead_V1_ShardSuggestResponse) throws(IndexError) {
        var entries: [EntryHit] = []
        entries.reserveCapacity(message.entries.count)
        for (i, entry) in message.entries.enumerated() { entries.append(try EntryHit(entry, field: "entries[\(i)]")) }
        var categories: [CategorySuggestion] = []
        categories.reserveCapacity(message.categories.count)
        for (i, category) in message.categories.enumerated() {
            categories.append(try CategorySuggestion(category, field: "categories[\(i)]"))
        }
        var completions: [QueryCompletion] = []
        completions.reserveCapacity(message.completions.count)
        for (i, completion) in message.completions.enumerated() {
            completions.append(try QueryCompletion(completion, field: "completions[\(i)]"))
        }
        self.init(entries: entries, categories: categories, completions: completions,
                  categoriesTruncated: message.categoriesTruncated)
    }
}

extension Typeahead_V1_ShardSearchResponse {
    /// `generation`: the generation that answered.
    public init(_ response: SearchResponse, generation: UInt64) {
        self.init(hits: response.hits.map(Typeahead_V1_RankedEntry.init),
                  totalHits: UInt32(clamping: response.totalHits),
                  facets: response.facets.map(Typeahead_V1_Facet.init),
                  nextPageToken: response.nextPageToken ?? "", generation: generation)
    }
}

extension SearchResponse {
    /// A shard's page as the Index type.
    public init(_ message: Typeahead_V1_ShardSearchResponse) throws(IndexError) {
        var hits: [EntryHit] = []
        hits.reserveCapacity(message.hits.count)
        for (i, hit) in message.hits.enumerated() { hits.append(try EntryHit(hit, field: "hits[\(i)]")) }
        self.init(hits: hits, totalHits: Int(message.totalHits),
                  facets: message.facets.map { Facet(name: $0.name, count: Int($0.count)) },
                  nextPageToken: message.nextPageToken.isEmpty ? nil : message.nextPageToken)
    }
}

extension Typeahead_V1_Entry {
    public init(_ entry: CatalogEntry) {
        self.init(id: entry.id, title: entry.title, categories: entry.categories, weight: entry.weight,
                  aliases: entry.aliases, description: entry.description, attributes: entry.attributes)
    }
}

extension CatalogEntry {
    /// Read as the catalog parser reads a line (``CatalogEntry/normalised()``): an empty string in
    /// `categories` or `aliases` is left out and an empty `description` is none, as a blank
    /// optional field of a catalog line is absent, so an upsert and a catalog line of the same
    /// values index the same entry. No validation here: `Shard.upsert` and `Shard.buildGeneration`
    /// validate entries (and name the bad one) whatever their source.
    public init(_ message: Typeahead_V1_Entry) {
        self = CatalogEntry(id: message.id, title: message.title, categories: message.categories, weight: message.weight,
                            aliases: message.aliases, description: message.description, attributes: message.attributes).normalised()
    }
}

extension Typeahead_V1_UpsertRequest {
    /// The batch's entries: 1 to 1000.
    public func catalogEntries() throws(IndexError) -> [CatalogEntry] {
        guard (1...WireLimits.maximumBatch).contains(entries.count) else {
            throw invalid("entries", "must hold 1 to \(WireLimits.maximumBatch) entries, got \(entries.count)")
        }
        return entries.map(CatalogEntry.init)
    }
}

extension Typeahead_V1_BuildGenerationRequest {
    /// This message's batch: at most 1000 entries (a message may carry only parameters).
    public func catalogEntries() throws(IndexError) -> [CatalogEntry] {
        guard entries.count <= WireLimits.maximumBatch else {
            throw invalid("entries", "at most \(WireLimits.maximumBatch) entries per message, got \(entries.count)")
        }
        return entries.map(CatalogEntry.init)
    }
}

extension Typeahead_V1_DeleteRequest {
    /// The batch's ids: 1 to 1000, each 1 to 256 bytes.
    public func validatedIDs() throws(IndexError) -> [String] {
        guard (1...WireLimits.maximumBatch).contains(ids.count) else {
            throw invalid("ids", "must hold 1 to \(WireLimits.maximumBatch) ids, got \(ids.count)")
        }
        for (i, id) in ids.enumerated() where id.isEmpty || id.utf8.count > WireLimits.maximumIdBytes {
            throw invalid("ids[\(i)]", "must be 1 to \(WireLimits.maximumIdBytes) bytes, got \(id.utf8.count)")
        }
        return ids
    }
}

extension Typeahead_V1_UpdateSummary {
    public init(_ summary: UpdateSummary) {
        self.init(inserted: UInt32(clamping: summary.inserted), replaced: UInt32(clamping: summary.replaced),
                  deleted: UInt32(clamping: summary.deleted), missing: UInt32(clamping: summary.missing))
    }
}

extension UpdateSummary {
    public init(_ message: Typeahead_V1_UpdateSummary) {
        self.init()
        inserted = Int(message.inserted)
        replaced = Int(message.replaced)
        deleted = Int(message.deleted)
        missing = Int(message.missing)
    }
}

extension Typeahead_V1_IndexParameters {
    public init(_ parameters: IndexParameters) {
        self.init(listSize: UInt32(clamping: parameters.listSize), heavyThreshold: UInt32(clamping: parameters.heavyThreshold),
                  filterableAttributes: parameters.filterableAttributes)
    }
}

extension IndexParameters {
    /// 0 (absent) takes the default; ranges and names are checked by `Shard.buildGeneration`.
    public init(_ message: Typeahead_V1_IndexParameters) {
        let defaults = IndexParameters()
        self.init(listSize: message.listSize == 0 ? defaults.listSize : Int(message.listSize),
                  heavyThreshold: message.heavyThreshold == 0 ? defaults.heavyThreshold : Int(message.heavyThreshold),
                  filterableAttributes: message.filterableAttributes)
    }
}

extension Typeahead_V1_BuildStatistics {
    public init(_ statistics: BuildStatistics) {
        self.init(entries: UInt64(clamping: statistics.entries), terms: UInt64(clamping: statistics.terms),
                  heavyNodes: UInt64(clamping: statistics.heavyNodes), postings: UInt64(clamping: statistics.postings),
                  bytes: UInt64(clamping: statistics.bytes))
    }
}

extension Typeahead_V1_GenerationInfo {
    public init(_ info: GenerationInfo) {
        let state: State = switch info.state {
        case .current: .current
        case .previous: .previous
        case .staged: .staged
        }
        self.init(number: UInt64(clamping: info.number), state: state, entries: UInt64(clamping: info.entries),
                  bytes: UInt64(clamping: info.bytes), build: info.build.map(Typeahead_V1_BuildStatistics.init),
                  label: info.label ?? "")
    }
}

extension Typeahead_V1_UploadInfo {
    public init(_ info: UploadInfo) {
        self.init(generation: UInt64(clamping: info.generation), label: info.label, batches: UInt64(clamping: info.batches),
                  entries: UInt64(clamping: info.entries), bytes: UInt64(clamping: info.bytes))
    }
}

extension Typeahead_V1_AppendUploadRequest {
    /// The batch's entries: 1 to 1000.
    public func catalogEntries() throws(IndexError) -> [CatalogEntry] {
        guard (1...WireLimits.maximumBatch).contains(entries.count) else {
            throw invalid("entries", "must hold 1 to \(WireLimits.maximumBatch) entries, got \(entries.count)")
        }
        return entries.map(CatalogEntry.init)
    }
}
