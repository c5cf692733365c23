internal import CNghttp2
#if canImport(Glibc)
import Glibc
#endif

/// An error returned by nghttp2 (a negative `nghttp2_error` code) together with the function that
/// returned it, e.g. `nghttp2_session_mem_recv: Received bad client magic byte string (-903)`.
public struct HTTP2SessionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The nghttp2 library error code (negative).
    public let code: Int32
    /// The nghttp2 function or the session operation that failed.
    public let operation: String

    public init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
    }

    public var description: String { "\(operation): \(String(cString: nghttp2_strerror(code))) (\(code))" }

    /// The peer did not start with the HTTP/2 connection preface (e.g. it spoke HTTP/1.1 or garbage).
    public var isBadPreface: Bool { code == NGHTTP2_ERR_BAD_CLIENT_MAGIC.rawValue }

    /// The stream is unknown or already closed: a late write for a stream the peer reset.
    public var isStreamClosed: Bool {
        code == NGHTTP2_ERR_STREAM_CLOSED.rawValue || code == NGHTTP2_ERR_INVALID_ARGUMENT.rawValue
            || code == NGHTTP2_ERR_STREAM_SHUT_WR.rawValue
    }
}

/// A failed system call: `errno` and the function, e.g. `connect: Connection refused (errno 111)`.
public struct HTTP2SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `errno` value.
    public let code: Int32
    /// The system call (or the operation that wraps it).
    public let function: String

    public init(code: Int32, function: String) {
        self.code = code
        self.function = function
    }

    public var description: String { "\(function): \(String(cString: strerror(code))) (errno \(code))" }
}

/// Errors of ``HTTP2Client`` operations. The `code` says what happened; `errorCode` carries the
/// HTTP/2 code when a stream was reset or the connection went away with GOAWAY; `cause` the
/// underlying system or session error, if any.
public struct HTTP2ClientError: Error, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Sendable { case connectFailed, connectionClosed, closedLocally, streamReset, cancelled, responseRejected, notConnected }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// Resolving or connecting failed.
        public static let connectFailed = Code(.connectFailed)
        /// The connection closed (EOF, error or GOAWAY) before the response completed.
        public static let connectionClosed = Code(.connectionClosed)
        /// This client closed the connection (``HTTP2ClientConnection/forceClose()``) before the
        /// response completed: a decision of the caller's, which says nothing new about the server.
        public static let closedLocally = Code(.closedLocally)
        /// The server reset the stream (see `errorCode`); `REFUSED_STREAM` means it was not processed
        /// and is safe to retry.
        public static let streamReset = Code(.streamReset)
        /// The caller cancelled the request.
        public static let cancelled = Code(.cancelled)
        /// The response exceeded a configured limit (see the message).
        public static let responseRejected = Code(.responseRejected)
        /// The request was sent on a connection that is closed or closing.
        public static let notConnected = Code(.notConnected)
        public var description: String { base.rawValue }
    }

    public var code: Code
    public var message: String
    public var errorCode: HTTP2ErrorCode?
    public var cause: (any Error & Sendable)?

    public init(code: Code, message: String, errorCode: HTTP2ErrorCode? = nil, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.errorCode = errorCode
        self.cause = cause
    }

    public var description: String {
        var text = "\(code): \(message)"
        if let errorCode { text += " [\(errorCode)]" }
        if let cause { text += " (\(cause))" }
        return text
    }
}
