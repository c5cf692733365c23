// The Catalog module: reading, validating and writing catalogs in JSON Lines.
//
// A catalog is a text file with one JSON object per line, each describing one suggestible entry:
//
//     {"id":"sku-1","title":"Red Running Shoes","category":"Shoes","weight":120,
//      "aliases":["sneakers"],"description":"Light trail runner","attributes":{"price":"59.90"}}
//
// (shown wrapped here; in a file it is one line). Parts of the module:
//
// - `CatalogEntry` (this file) and `CatalogEntry.jsonLine()` (CatalogEntry+JSON.swift): the model
//   and its canonical encoding; `normalised()` (CatalogEntry+Normalised.swift): the parser's
//   reading of blanks, for entries that come from elsewhere (gRPC upserts).
// - `CatalogLimits`: every size limit the validator enforces, one place to raise them.
// - `parseCatalogLine(_:line:limits:)`: validates one line. Built on `JSONLineParser`
//   (JSONLineParser.swift, the only file that touches yajl) and `EntryBuilder` (a pure-Swift state
//   machine that turns yajl's events into an entry or a precise error).
// - `CatalogReader`: streams a file or standard input with bounded memory and detects duplicate ids.
// - `loadCatalog(path:policy:limits:maximumReported:)`: the whole file, strict or lenient.
// - `SyntheticCatalog`: deterministic generated catalogs for tests and benchmarks.
//
// Quirks worth knowing (numbered so that code comments can refer to them):
// 1. The first problem on a line wins: the line is scanned left to right and the scan stops at the
//    first error, so `{"id":5,` reports the type of "id", not the truncation.
// 2. A known field given twice in one object ("title" twice) is an error; JSON leaves it undefined.
// 3. `null` means "absent" for optional fields and is an error for "id" and "title".
// 4. `\u` escapes that decode to an unpaired surrogate are an error; a high surrogate followed by
//    something other than `\u` is turned into "?" by yajl before we can see it.
// 5. Strings are kept exactly as written (no trimming, no Unicode normalisation): matching is the
//    Analysis module's business, not the catalog's.

/// One suggestible item of a catalog.
///
/// Values are kept as written in the catalog (quirk 5 of the module notes), with the parser's
/// normalisations: blank optional fields are absent (an empty category or alias is left out, an
/// empty description is none) and duplicate categories are removed (first occurrence wins).
/// Entries from elsewhere get the same through ``normalised()``.
///
/// Example:
/// ```swift
/// let entry = CatalogEntry(id: "sku-1", title: "Red Running Shoes", categories: ["Shoes"], weight: 120)
/// print(entry.jsonLine())
/// // {"id":"sku-1","title":"Red Running Shoes","categories":["Shoes"],"weight":120}
/// ```
public struct CatalogEntry: Sendable, Hashable {
    /// Unique within a catalog, non-empty, at most `CatalogLimits.maximumIdBytes` UTF-8 bytes.
    public var id: String
    /// What users see and type; not blank, at most `CatalogLimits.maximumTitleBytes` bytes.
    public var title: String
    /// Distinct, non-empty, in first-seen order (the first is the "primary" category).
    public var categories: [String]
    /// Popularity; higher ranks earlier. At most 2^53 − 1 so that every JSON reader agrees on it.
    public var weight: UInt64
    /// Other names the entry answers to; never empty strings.
    public var aliases: [String]
    /// Optional free text.
    public var description: String?
    /// Free-form string attributes such as `price` or `image`.
    public var attributes: [String: String]

    /// Makes an entry. No validation happens here; `jsonLine()` followed by `parseCatalogLine`
    /// validates.
    public init(
        id: String, title: String, categories: [String] = [], weight: UInt64 = 0,
        aliases: [String] = [], description: String? = nil, attributes: [String: String] = [:]
    ) {
        self.id = id
        self.title = title
        self.categories = categories
        self.weight = weight
        self.aliases = aliases
        self.description = description
        self.attributes = attributes
    }
}
