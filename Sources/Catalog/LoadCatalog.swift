/// What `loadCatalog` does with invalid lines.
public enum InvalidLinePolicy: Sendable, Hashable {
    /// Any invalid line makes the whole catalog fail with a `CatalogValidationError`.
    case strict
    /// Invalid lines are left out and returned as errors next to the valid entries.
    case skipInvalid
}

/// Reads and validates a whole catalog file ("-" for standard input).
///
/// With `.strict`, throws `CatalogValidationError` if any line is invalid, listing the first
/// `maximumReported` invalid lines and the total count; the whole file is still read, so that the
/// count is right. With `.skipInvalid`, returns the valid entries and every error. Throws
/// `CatalogIOError` if the file cannot be opened or read.
///
/// Lines are parsed on every core (``CatalogReader/nextBatch(maximumLines:threads:)``), in
/// batches of what the reader has buffered; the result is what reading line by line gives.
///
/// Memory: all entries, plus what `CatalogReader` needs. In strict mode the entries are released
/// as soon as one line is invalid.
///
/// Complexity: O(size of the file).
///
/// `progress` is called after each batch with what has been read so far and the file's size
/// (nil for standard input or a pipe): a command's progress line.
///
/// Example:
/// ```swift
/// let (entries, errors, summary) = try loadCatalog(path: "shop.jsonl", policy: .skipInvalid)
/// for error in errors { print(error) }        // line 9: field "weight": expected …
/// print("\(entries.count) of \(summary.lines) lines loaded")
/// ```
public func loadCatalog(
    path: String, policy: InvalidLinePolicy, limits: CatalogLimits = .init(), maximumReported: Int = 20,
    progress: ((_ read: CatalogSummary, _ totalBytes: Int?) -> Void)? = nil
) throws -> (entries: [CatalogEntry], errors: [CatalogLineError], summary: CatalogSummary) {
    let stream = try CatalogStream(path: path, policy: policy, limits: limits,
                                   maximumReported: policy == .skipInvalid ? nil : maximumReported, progress: progress)
    var entries: [CatalogEntry] = []
    while let batch = try stream.nextBatch() { entries += batch }
    return (entries, stream.errors, stream.summary)
}

/// A catalog read batch by batch under an ``InvalidLinePolicy``: what ``loadCatalog`` reads whole,
/// for a caller that indexes as it reads and so never holds the whole catalog (`typeahead index`).
///
/// With `.strict`, the first invalid line ends the entries: ``nextBatch()`` reads on to the end, so
/// that the count is right, then throws `CatalogValidationError` listing the first
/// `maximumReported` invalid lines. With `.skipInvalid`, invalid lines are left out and kept in
/// ``errors`` (the first `maximumReported` of them; every one when it is nil).
///
/// Lines are parsed on every core (``CatalogReader/nextBatch(maximumLines:threads:)``).
/// Memory: one batch of entries, the reported errors, and what `CatalogReader` needs.
///
/// Example:
/// ```swift
/// let stream = try CatalogStream(path: "shop.jsonl", policy: .skipInvalid)
/// while let batch = try stream.nextBatch() { index(batch) }
/// print("\(stream.totalErrors) invalid lines, first: \(stream.errors.first.map(String.init(describing:)) ?? "none")")
/// ```
public final class CatalogStream {
    public let policy: InvalidLinePolicy
    /// The invalid lines kept (see the type's description), in line order.
    public private(set) var errors: [CatalogLineError] = []
    /// Invalid lines read so far, kept or not.
    public private(set) var totalErrors = 0
    private let reader: CatalogReader
    private let maximumReported: Int?
    private let progress: ((_ read: CatalogSummary, _ totalBytes: Int?) -> Void)?

    /// Opens the catalog file `path` ("-" for standard input); throws `CatalogIOError` if it cannot.
    /// `progress` is called after each batch with what has been read so far and the file's size
    /// (nil for standard input or a pipe).
    public init(path: String, policy: InvalidLinePolicy, limits: CatalogLimits = .init(), maximumReported: Int? = 20,
                progress: ((_ read: CatalogSummary, _ totalBytes: Int?) -> Void)? = nil) throws {
        reader = try CatalogReader(path: path, limits: limits)
        self.policy = policy
        self.maximumReported = maximumReported
        self.progress = progress
    }

    /// What has been read so far.
    public var summary: CatalogSummary { reader.summary }

    /// The next valid entries (never an empty batch), or nil at the end of the catalog. Throws
    /// `CatalogValidationError` at the end of a strict read that met invalid lines, and
    /// `CatalogIOError` if reading fails.
    public func nextBatch() throws -> [CatalogEntry]? {
        while let batch = try reader.nextBatch() {
            var entries: [CatalogEntry] = []
            entries.reserveCapacity(batch.count)
            for result in batch {
                switch result {
                case .success(let entry):
                    if policy == .skipInvalid || totalErrors == 0 { entries.append(entry) }
                case .failure(let error):
                    totalErrors += 1
                    if policy == .strict { entries = [] }
                    if errors.count < maximumReported ?? .max { errors.append(error) }
                }
            }
            progress?(reader.summary, reader.sizeHint)
            if policy == .strict && totalErrors > 0 { continue }
            if !entries.isEmpty { return entries }
        }
        if policy == .strict && totalErrors > 0 {
            throw CatalogValidationError(errors: errors, totalErrors: totalErrors)
        }
        return nil
    }
}
