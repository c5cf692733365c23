/// A half-open range of UTF-16 code units in a title: the unit Swift's `NSRange` and JavaScript
/// strings use, so clients can apply it directly.
public struct Highlight: Sendable, Hashable {
    public var start: Int
    public var end: Int
    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }
}

/// One entry in a suggest or search response.
public struct EntryHit: Sendable, Hashable {
    public var id: String
    public var title: String
    public var categories: [String]
    public var weight: UInt64
    /// Sorted by key.
    public var attributes: [Attribute]
    /// The text the field takes when this suggestion is chosen: the entry's title.
    public var completion: String
    /// Ranges of the title that query words matched, sorted, non-overlapping.
    public var highlights: [Highlight]
    /// The key this hit was ranked by; shards return it so that a coordinator merges exactly.
    public var rank: RankKey

    public init(id: String, title: String, categories: [String], weight: UInt64, attributes: [Attribute],
                completion: String, highlights: [Highlight], rank: RankKey) {
        self.id = id
        self.title = title
        self.categories = categories
        self.weight = weight
        self.attributes = attributes
        self.completion = completion
        self.highlights = highlights
        self.rank = rank
    }
}

/// A key/value attribute returned with hits (an image name, a price).
public struct Attribute: Sendable, Hashable, Comparable {
    public var key: String
    public var value: String
    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
    public static func < (a: Attribute, b: Attribute) -> Bool { (a.key, a.value) < (b.key, b.value) }
}

/// A token chip whose name matches the partial word: a category, or a value of a filterable
/// attribute (``token`` says which kind). Choosing it turns the typing into a chip.
public struct CategorySuggestion: Sendable, Hashable {
    /// The category's name, or the attribute's value (the token's value).
    public var name: String
    /// Entries that match the rest of the query (complete words and tokens) carrying the token.
    public var count: Int
    /// The token to add when chosen.
    public var token: SearchToken
    /// The field text with the partial word removed.
    public var replacementText: String
    /// Edits needed for the partial word to match the name (ranks first).
    public var typos: Int

    public init(name: String, count: Int, token: SearchToken, replacementText: String, typos: Int) {
        self.name = name
        self.count = count
        self.token = token
        self.replacementText = replacementText
        self.typos = typos
    }
}

/// A query completion: the typed complete words followed by the completed partial word.
public struct QueryCompletion: Sendable, Hashable {
    /// The field text with the partial word replaced by the completed word, as written in the
    /// best entry that contains it (empty in a ``ResponseForm/shardPart`` answer).
    public var text: String
    /// How the completed word is written in its best entry: what replaces the partial word.
    public var spelling: String
    /// The completed word, analysed (folded); distinct within a response.
    public var term: String
    /// Edits between the partial word and the nearest prefix of `term`.
    public var typos: Int
    /// The rank key of the best matching entry that contains `term`.
    public var best: RankKey

    public init(text: String, spelling: String, term: String, typos: Int, best: RankKey) {
        self.text = text
        self.spelling = spelling
        self.term = term
        self.typos = typos
        self.best = best
    }
}

/// The answer to a ``SuggestRequest``.
public struct SuggestResponse: Sendable, Hashable {
    /// Most categories a ``ResponseForm/shardPart`` answer lists (it is not cut to the limit).
    public static let maximumShardCategories = 1000

    public var entries: [EntryHit]
    public var categories: [CategorySuggestion]
    public var completions: [QueryCompletion]
    /// A ``ResponseForm/shardPart`` answer matched more than ``maximumShardCategories`` categories
    /// and lists only the first of them in chip order.
    public var categoriesTruncated: Bool

    public init(entries: [EntryHit] = [], categories: [CategorySuggestion] = [], completions: [QueryCompletion] = [],
                categoriesTruncated: Bool = false) {
        self.entries = entries
        self.categories = categories
        self.completions = completions
        self.categoriesTruncated = categoriesTruncated
    }
}

/// What a query answers with: a client's presented answer, or one shard's part of a cluster's.
///
/// A cluster answer must equal the answer of one node holding the whole catalog. Shards therefore
/// answer with facts only — rank keys, word spellings, per-shard counts — and a coordinator merges
/// them and presents the result for the client's text with ``Presenter``, the same code a node uses
/// for its own presented answers.
public enum ResponseForm: Sendable, Hashable {
    /// What a client sees: completion strings, replacement texts and highlights, every section cut
    /// to the request's limits.
    case presented
    /// One shard's part of a merged answer: hits without `completion` and `highlights`,
    /// completions with `spelling` but no `text`, categories without `replacementText`; and
    /// every matching category with its count in this shard, not cut to `limits.categories` (a
    /// chip's total is only known once every shard's count is added), up to
    /// ``SuggestResponse/maximumShardCategories``.
    case shardPart
}

/// A category and how many matching entries carry it.
public struct Facet: Sendable, Hashable {
    public var name: String
    public var count: Int
    public init(name: String, count: Int) {
        self.name = name
        self.count = count
    }
}

/// The answer to a ``SearchRequest``.
public struct SearchResponse: Sendable, Hashable {
    public var hits: [EntryHit]
    /// Exact number of matching entries.
    public var totalHits: Int
    /// Every category of the matching entries, by count descending then name.
    public var facets: [Facet]
    /// Pass back as `pageToken` for the next page; nil on the last page.
    public var nextPageToken: String?

    public init(hits: [EntryHit] = [], totalHits: Int = 0, facets: [Facet] = [], nextPageToken: String? = nil) {
        self.hits = hits
        self.totalHits = totalHits
        self.facets = facets
        self.nextPageToken = nextPageToken
    }
}
