/// The request limits `proto/typeahead/v1/*.proto` documents, enforced when a message becomes an
/// Index request (by `WireConversions`). (The Index module checks its own limits again; checking here too gives errors
/// that name the proto field, and refuses what the Index types cannot represent.)
public enum WireLimits {
    /// `SuggestRequest.text`, `SearchRequest.text`: bytes of UTF-8.
    public static let maximumTextBytes = 4096
    /// `tokens`: items.
    public static let maximumTokens = 32
    /// `SearchToken.value`: bytes (a category name's limit).
    public static let maximumTokenValueBytes = 256
    /// `SuggestRequest.session`: bytes.
    public static let maximumSessionBytes = 128
    /// `SearchRequest.page_token`: bytes.
    public static let maximumPageTokenBytes = 2048
    /// `SearchRequest.page_size` when absent (0).
    public static let defaultPageSize = 20
    /// Entries per `UpsertRequest` and per `BuildGenerationRequest`; ids per `DeleteRequest`.
    public static let maximumBatch = 1000
    /// `DeleteRequest.ids`: bytes per id.
    public static let maximumIdBytes = 256
}
