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

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    static func invalidArgument(_ message: String) -> IndexError { IndexError(.invalidArgument, message) }
    static func corrupt(_ message: String) -> IndexError { IndexError(.dataLoss, "index data is corrupt: \(message)") }
}
