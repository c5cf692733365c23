import Wire

/// One RPC a server serves: its path, who may call it, and its handler over raw message bytes (so
/// the routing table needs no generics). The handler answers through `reply`, once, from any
/// thread and at any time — right away (a node's suggest), from a worker pool (a node's search), or
/// when the shards of a fan-out have answered (a coordinator).
///
/// ```swift
/// let suggest = RPCMethod.unary(Typeahead_V1_TypeaheadService.suggest, access: .read) { request, context, reply in
///     reply(.success(answer(request)))
/// }
/// ```
public struct RPCMethod: Sendable {
    /// Who may call a method.
    public enum Access: Sendable {
        /// Anyone, unless the server requires a read token.
        case read
        /// Only callers with the admin token (writes, generation changes).
        case admin
    }

    /// Completes a call with its response message or its status.
    public typealias Reply<Response> = @Sendable (Result<Response, GRPCStatus>) -> Void

    public let path: String
    public let access: Access
    /// Whether the request is a stream of messages (client streaming); otherwise exactly one.
    public let clientStreaming: Bool
    let invoke: @Sendable (_ messages: [ArraySlice<UInt8>], CallContext, _ reply: @escaping Reply<[UInt8]>) -> Void

    /// A unary method from typed request and response messages. A request that does not decode is
    /// answered INVALID_ARGUMENT before `body` runs.
    public static func unary<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: ProtoMethod<Request, Response>, access: Access,
        _ body: @escaping @Sendable (Request, CallContext, _ reply: @escaping Reply<Response>) -> Void
    ) -> RPCMethod {
        RPCMethod(path: method.path, access: access, clientStreaming: false) { messages, context, reply in
            guard messages.count == 1 else {
                reply(.failure(GRPCStatus(.invalidArgument, "\(method.path) takes exactly one request message, got \(messages.count)")))
                return
            }
            let request: Request
            do throws(GRPCStatus) { request = try decode(Request.self, messages[0]) } catch {
                reply(.failure(error))
                return
            }
            body(request, context) { reply($0.map { $0.serializedBytes() }) }
        }
    }

    /// A client-streaming method: every message of the request, then one response.
    public static func clientStream<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: ProtoMethod<Request, Response>, access: Access,
        _ body: @escaping @Sendable ([Request], CallContext, _ reply: @escaping Reply<Response>) -> Void
    ) -> RPCMethod {
        RPCMethod(path: method.path, access: access, clientStreaming: true) { messages, context, reply in
            let requests: [Request]
            do {
                requests = try messages.map { message throws(GRPCStatus) in try decode(Request.self, message) }
            } catch {
                reply(.failure(GRPCStatus(describing: error)))
                return
            }
            body(requests, context) { reply($0.map { $0.serializedBytes() }) }
        }
    }

    /// Decodes one message, turning a malformed one into INVALID_ARGUMENT that names the field.
    public static func decode<M: ProtoMessage>(_ type: M.Type, _ bytes: ArraySlice<UInt8>) throws(GRPCStatus) -> M {
        do {
            return try bytes.withUnsafeBytes { raw throws(ProtoError) in try M(serializedBuffer: raw) }
        } catch {
            throw GRPCStatus(describing: error)
        }
    }
}
