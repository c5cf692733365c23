/// Every limit the catalog validator enforces. Exceeding one makes that line invalid, with a
/// message naming the limit and saying it is fixed (the command line does not change it).
///
/// The limits bound the memory and time one line can cost, so that a broken or hostile catalog
/// cannot take the indexer down. Byte limits count UTF-8 bytes of the decoded string (after JSON
/// escapes are resolved), not characters.
///
/// Example:
/// ```swift
/// var limits = CatalogLimits()
/// limits.maximumTitleBytes = 4096
/// let reader = try CatalogReader(path: "catalog.jsonl", limits: limits)
/// ```
public struct CatalogLimits: Sendable, Hashable {
    /// Bytes in one line, without its "\n" (and without a "\r" before it). The reader never holds
    /// more than this plus one read chunk (1 MiB) of a line in memory.
    public var maximumLineBytes = 1 << 20
    /// Bytes in `id`.
    public var maximumIdBytes = 256
    /// Bytes in `title`.
    public var maximumTitleBytes = 1024
    /// Bytes in each category.
    public var maximumCategoryBytes = 256
    /// Number of elements of `categories` (counted before duplicates are removed).
    public var maximumCategories = 32
    /// Number of elements of `aliases` (counted before empty strings are dropped). 4096 rather than
    /// 256: real catalogs have entries with hundreds of legitimate alternate names (the Debian
    /// package `librust-winapi-dev` provides 1,603 virtual packages; Jerusalem has 266 names in
    /// GeoNames); the line limit still bounds the total.
    public var maximumAliases = 4096
    /// Bytes in each alias.
    public var maximumAliasBytes = 1024
    /// Bytes in `description`.
    public var maximumDescriptionBytes = 16384
    /// Number of keys in `attributes`.
    public var maximumAttributes = 64
    /// Bytes in each attribute key.
    public var maximumAttributeKeyBytes = 256
    /// Bytes in each attribute value.
    public var maximumAttributeValueBytes = 4096
    /// Nesting of arrays and objects; the line's top-level object is level 1. Only unknown fields
    /// can nest deeper than 2.
    public var maximumNestingDepth = 32
    /// Largest `weight`: 2^53 − 1, the largest integer every IEEE-754 JSON reader keeps exact.
    public var maximumWeight: UInt64 = (1 << 53) - 1

    /// The default limits.
    public init() {}
}
