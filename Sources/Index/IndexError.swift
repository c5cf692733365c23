import Storage

/// Why an index operation failed.
///
/// `code` is stable and maps one-to-one onto gRPC status codes in the server; `message` says what
/// was wrong and how to fix it.
public struct IndexError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The request was malformed (bad limits, a page token of another query, empty id…).
        case invalidArgument
        /// A named generation or entry does not exist.
        case notFound
        /// The operation is not possible in the index's current state (no active generation…).
        case failedPrecondition
        /// The index files are damaged.
        case dataLoss
        /// Storage failed (disk full, map full, I/O).
        case `internal`
        /// The caller's `shouldStop` asked the query to stop (deadline passed, client gone).
        case cancelled
    }

    /// Why, for the failures a caller acts on (sent as google.rpc.ErrorInfo reasons, domain
    /// "typeahead"; proto/typeahead/v1/shard.proto lists them).
    public enum Reason: String, Sendable, Hashable {
        /// AppendUpload got a batch past the next one: `metadata["expectedBatch"]` is the next.
        case uploadBatchOutOfOrder = "UPLOAD_BATCH_OUT_OF_ORDER"
        /// A Search's page token was issued for another collection (or a scoped Search carried
        /// one): `metadata["issuedFor"]` names the token's collection (absent for a token issued
        /// before tokens named theirs), `metadata["collection"]` or `metadata["scope"]` what the
        /// request named.
        case pageTokenOtherCollection = "PAGE_TOKEN_OTHER_COLLECTION"
    }

    public var code: Code
    public var message: String
    public var reason: Reason?
    /// Facts of the failure, lowerCamelCase keys (with ``reason``).
    public var metadata: [String: String]

    public init(_ code: Code, _ message: String, reason: Reason? = nil, metadata: [String: String] = [:]) {
        self.code = code
        self.message = message
        self.reason = reason
        self.metadata = metadata
    }

    public var description: String { message }

    static func invalidArgument(_ message: String) -> IndexError { IndexError(.invalidArgument, message) }
    static func corrupt(_ message: String) -> IndexError { IndexError(.dataLoss, "index data is corrupt: \(message)") }
}
