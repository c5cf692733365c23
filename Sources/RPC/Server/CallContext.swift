import HTTP2
import Observability
import Wire

/// The encoding a call's response is written in: protobuf for gRPC, JSON text for the Connect
/// JSON and GET forms.
public enum WireFormat: Sendable, Hashable {
    case protobuf
    case json
}

/// What a method handler knows about its call: its id, its deadline, the format its response is
/// written in, and whether the caller is still there.
///
/// `Sendable`: a handler may carry it to a worker thread or into a fan-out's completions.
public struct CallContext: Sendable {
    /// `x-request-id` as the caller sent it, or a fresh one; logged with every line about the call.
    public var requestID: String { identity.text }
    /// The id as it arrived or was made; rendered as text only when asked for (a log line, a
    /// forwarded call), since most calls never are.
    public let identity: CallIdentity
    /// The caller's deadline (`grpc-timeout`, or `connect-timeout-ms` for JSON), if any.
    public let deadline: ContinuousClock.Instant?
    /// The call's stream: cancellation (RST_STREAM, connection loss, shutdown) shows here.
    public let responder: HTTP2Responder
    /// What the reply's bytes must be (see ``RPCMethod/unaryEncoding(_:access:json:_:)``).
    public let format: WireFormat
    /// The verified search key the call was made with, if any: its tokens must be forced onto
    /// the query (the product's handlers do it; this layer knows no queries).
    public let searchKey: SearchKey?

    public init(requestID: String, deadline: ContinuousClock.Instant?, responder: HTTP2Responder, format: WireFormat = .protobuf,
                searchKey: SearchKey? = nil) {
        self.init(identity: .received(requestID), deadline: deadline, responder: responder, format: format, searchKey: searchKey)
    }

    public init(identity: CallIdentity, deadline: ContinuousClock.Instant?, responder: HTTP2Responder, format: WireFormat = .protobuf,
                searchKey: SearchKey? = nil) {
        self.identity = identity
        self.deadline = deadline
        self.responder = responder
        self.format = format
        self.searchKey = searchKey
    }

    /// True once the caller reset the stream or went away.
    public var isCancelled: Bool { responder.isCancelled }

    /// Throws CANCELLED or DEADLINE_EXCEEDED when the call should stop.
    public func checkAlive() throws(GRPCStatus) {
        if responder.isCancelled { throw GRPCStatus(.cancelled, "the client cancelled the call") }
        if let deadline, ContinuousClock.now >= deadline { throw GRPCStatus(.deadlineExceeded, "deadline exceeded") }
    }

    /// A cheap test the index calls between candidates, so abandoned work stops early.
    public var shouldStop: @Sendable () -> Bool {
        let responder = self.responder
        let deadline = self.deadline
        return { responder.isCancelled || (deadline.map { ContinuousClock.now >= $0 } ?? false) }
    }
}

/// A call's request id: the caller's `x-request-id`, or one made for the call.
public enum CallIdentity: Sendable {
    case received(String)
    case generated(RequestID)

    /// The caller's header if it sent one, else a new id.
    public init(header: String?) {
        self = header.map(CallIdentity.received) ?? .generated(RequestID.next())
    }

    public var text: String {
        switch self {
        case .received(let text): text
        case .generated(let id): id.description
        }
    }
}

extension CallContext {
    /// `message` in the call's ``format``: its protobuf bytes, or its JSON text as `json` writes it
    /// (for handlers that reply encoded, see ``RPCMethod/unaryEncoding(_:access:json:_:)``).
    public func encode<Request, Response>(_ message: Response, json: JSONMapping<Request, Response>) -> [UInt8] {
        switch format {
        case .protobuf: message.serializedBytes()
        case .json: json.response(message)
        }
    }
}
