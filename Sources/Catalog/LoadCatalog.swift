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
    let reader = try CatalogReader(path: path, limits: limits)
    var entries: [CatalogEntry] = []
    var errors: [CatalogLineError] = []
    var totalErrors = 0
    while let batch = try reader.nextBatch() {
        for result in batch {
            switch result {
            case .success(let entry):
                if policy == .skipInvalid || totalErrors == 0 { entries.append(entry) }
            case .failure(let error):
                totalErrors += 1
                switch policy {
                case .skipInvalid:
                    errors.append(error)
                case .strict:
                    if totalErrors == 1 { entries = [] }
                    if errors.count < maximumReported { errors.append(error) }
                }
            }
        }
        progress?(reader.summary, reader.sizeHint)
    }
    if policy == .strict && totalErrors > 0 {
        throw CatalogValidationError(errors: errors, totalErrors: totalErrors)
    }
    return (entries, errors, reader.summary)
}
