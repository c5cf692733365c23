import Wire

/// One RPC the node serves: its path, where it runs, who may call it, and its handler over raw
/// message bytes (so the routing table needs no generics).
struct Method: Sendable {
    enum Placement: Sendable {
        /// On the connection's event loop: microsecond work (suggest, health).
        case inline
        /// On the bounded read pool: searches and other reads that may take milliseconds.
        case readPool
        /// On the single writer queue: every change to the index, in order.
        case writer
    }

    enum Access: Sendable {
        case read
        case admin
    }

    let path: String
    let placement: Placement
    let access: Access
    /// Whether the request is a stream of messages (client streaming); otherwise exactly one.
    let clientStreaming: Bool
    let handle: @Sendable (_ messages: [ArraySlice<UInt8>], CallContext) throws -> [UInt8]

    /// A unary method from typed request and response messages.
    static func unary<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: ProtoMethod<Request, Response>, placement: Placement, access: Access,
        _ body: @escaping @Sendable (Request, CallContext) throws -> Response
    ) -> Method {
        Method(path: method.path, placement: placement, access: access, clientStreaming: false) { messages, context in
            guard messages.count == 1 else {
                throw GRPCStatus(.invalidArgument, "\(method.path) takes exactly one request message, got \(messages.count)")
            }
            let request = try Self.decode(Request.self, messages[0])
            return try body(request, context).serializedBytes()
        }
    }

    /// A client-streaming method: every message of the request, then one response.
    static func clientStream<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: ProtoMethod<Request, Response>, placement: Placement, access: Access,
        _ body: @escaping @Sendable ([Request], CallContext) throws -> Response
    ) -> Method {
        Method(path: method.path, placement: placement, access: access, clientStreaming: true) { messages, context in
            let requests = try messages.map { message throws(GRPCStatus) in try Self.decode(Request.self, message) }
            return try body(requests, context).serializedBytes()
        }
    }

    static func decode<M: ProtoMessage>(_ type: M.Type, _ bytes: ArraySlice<UInt8>) throws(GRPCStatus) -> M {
        do {
            return try bytes.withUnsafeBytes { raw throws(ProtoError) in try M(serializedBuffer: raw) }
        } catch {
            throw GRPCStatus(describing: error)
        }
    }
}
