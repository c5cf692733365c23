/// Validates one catalog line and returns its entry, its error, or nil for a blank line.
///
/// `bytes` is the line's UTF-8 text without its newline (a trailing "\n" and a "\r" before it are
/// tolerated and ignored). Any `Collection<UInt8>` works: `[UInt8]`, `ArraySlice<UInt8>`,
/// `Data`, or `"…".utf8`; contiguous ones are read in place, others are copied once. A line made
/// only of spaces, tabs and CRs is blank. `line` is only used to label the error.
///
/// Uniqueness of ids is a property of a whole catalog and is checked by `CatalogReader`, not here.
///
/// Complexity: O(length of the line). Each call sets up a yajl parser (a handful of small
/// allocations); to parse many lines, use `CatalogReader`, which keeps one.
///
/// Example:
/// ```swift
/// let result = parseCatalogLine(#"{"id":"1","title":"Garden Hose 15 m","weight":7}"#.utf8, line: 1)
/// // .success(CatalogEntry(id: "1", title: "Garden Hose 15 m", weight: 7))
/// parseCatalogLine(#"{"title":"x"}"#.utf8, line: 4)
/// // .failure(line 4: missing required field "id")
/// ```
public func parseCatalogLine(
    _ bytes: some Collection<UInt8>, line: Int, limits: CatalogLimits = .init()
) -> Result<CatalogEntry, CatalogLineError>? {
    let parser = JSONLineParser(limits: limits)
    let outcome =
        bytes.withContiguousStorageIfAvailable { parser.parse($0) }
        ?? Array(bytes).withUnsafeBufferPointer { parser.parse($0) }
    switch outcome {
    case .blank: return nil
    case .entry(let entry, _, _): return .success(entry)
    case .invalid(let reason): return .failure(CatalogLineError(line: line, reason: reason))
    }
}
