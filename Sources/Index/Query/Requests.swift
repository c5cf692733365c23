/// What a search field sends on every keystroke.
///
/// Mirrors SwiftUI's `searchable`: `text` is the field's text (complete words plus the word being
/// typed), `tokens` are the chips the person picked (they filter), and the limits say how many of
/// each section to return.
///
/// ```swift
/// let request = SuggestRequest(text: "red iph", tokens: [.category("Phones")])
/// let response = try shard.suggest(request)
/// ```
public struct SuggestRequest: Sendable, Hashable {
    /// The field text, as typed. If it ends in a word character, its last word is partial.
    public var text: String
    /// Filters: an entry must carry every token.
    public var tokens: [SearchToken]
    /// How many entries, categories and completions to return.
    public var limits: SuggestLimits
    /// Whether query words of 4 or more characters may match with edits.
    public var typos: TypoMode
    /// Whether entries with identical completion text collapse to the best one.
    public var dedupe: Bool

    public init(text: String, tokens: [SearchToken] = [], limits: SuggestLimits = .init(),
                typos: TypoMode = .auto, dedupe: Bool = true) {
        self.text = text
        self.tokens = tokens
        self.limits = limits
        self.typos = typos
        self.dedupe = dedupe
    }
}

/// Section sizes of a suggest response. Each is at most ``SuggestLimits/maximum``.
public struct SuggestLimits: Sendable, Hashable {
    /// The largest value any section limit may take.
    public static let maximum = 100
    public var entries: Int
    public var categories: Int
    public var completions: Int

    public init(entries: Int = 10, categories: Int = 3, completions: Int = 5) {
        self.entries = entries
        self.categories = categories
        self.completions = completions
    }
}

/// Whether query words may match with edits (Damerau–Levenshtein, optimal string alignment).
///
/// With `.auto`, a word of fewer than 4 characters must match exactly, 4–7 characters allow one
/// edit and 8 or more allow two. For the partial word the distance is to the nearest prefix.
public enum TypoMode: String, Sendable, Hashable, CaseIterable {
    case auto
    case off
}

/// A filter chip: a kind (``Kind/category``, or an attribute a generation declares filterable,
/// such as `color`) and the exact value an entry must carry.
public struct SearchToken: Sendable, Hashable, Comparable {
    /// The longest value a token may have, in bytes; longer attribute values are not indexed.
    public static let maximumValueBytes = 256

    public var kind: Kind
    /// The exact value: the category name, or the attribute's value, as written in the catalog.
    public var value: String

    public init(kind: Kind, value: String) {
        self.kind = kind
        self.value = value
    }

    /// A token that keeps entries of one category.
    public static func category(_ name: String) -> SearchToken {
        SearchToken(kind: .category, value: name)
    }

    /// Tokens compare as bytes: "Café" and "Cafe\u{301}" are different categories.
    public static func == (a: SearchToken, b: SearchToken) -> Bool {
        a.kind == b.kind && a.value.utf8.elementsEqual(b.value.utf8)
    }

    /// The kind's and the value's bytes, as `==` compares them, each in one run: combining them
    /// byte by byte was most of a chip's cost where a walk lists hundreds (a kind name never
    /// holds the 0x00 between the runs, so no two tokens feed the hasher the same bytes).
    public func hash(into hasher: inout Hasher) {
        var kindName = self.kind.rawValue, valueBytes = self.value
        kindName.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(UInt8(0))
        valueBytes.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    public static func < (a: SearchToken, b: SearchToken) -> Bool {
        if a.kind != b.kind { return a.kind < b.kind }
        return a.value.utf8.lexicographicallyPrecedes(b.value.utf8)
    }
}

/// What submit sends: the full search.
public struct SearchRequest: Sendable, Hashable {
    public enum Sort: String, Sendable, Hashable, CaseIterable {
        /// Fewer typos, best field, title starts with the query, higher weight, id.
        case relevance
        /// Higher weight, then id.
        case weight
    }
    /// The largest page size.
    public static let maximumPageSize = 100

    public var text: String
    public var tokens: [SearchToken]
    public var pageSize: Int
    /// The opaque cursor from the previous response's `nextPageToken`; nil for the first page.
    public var pageToken: String?
    public var sort: Sort
    public var facets: Bool
    public var typos: TypoMode
    /// The collection the request reads, by its name: the page tokens of its answers name it, so
    /// a token continues only its own collection (``SearchPages/checkCollection(ofToken:collection:isDefault:)``).
    /// Empty: none named (an index read alone, as `typeahead search --dir` does).
    public var collection: String

    public init(text: String, tokens: [SearchToken] = [], pageSize: Int = 20, pageToken: String? = nil,
                sort: Sort = .relevance, facets: Bool = true, typos: TypoMode = .auto, collection: String = "") {
        self.collection = collection
        self.text = text
        self.tokens = tokens
        self.pageSize = pageSize
        self.pageToken = pageToken
        self.sort = sort
        self.facets = facets
        self.typos = typos
    }
}
