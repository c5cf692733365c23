import Foundation
import JSONTree
import Wire

/// One RPC a server serves: its path, who may call it, its handler, and (for the client-facing
/// methods) its ``JSONMapping``. The handler answers through `reply`, once, from any thread and at
/// any time — right away (a node's suggest), from a worker pool (a node's search), or when the
/// shards of a fan-out have answered (a coordinator).
///
/// ```swift
/// let suggest = RPCMethod.unary(Typeahead_V1_TypeaheadService.suggest, access: .read, json: .suggest) { request, context, reply in
///     reply(.success(answer(request)))
/// }
/// ```
///
/// Each transport decodes the request into the method's typed request and encodes the typed
/// response in its own format: gRPC from and to protobuf, JSON calls (Connect POST, GET) from JSON
/// text or a query string and to JSON text — no call passes through a second format. A handler
/// that can write its response bytes more cheaply than its message type (a node writing hits from
/// its memory map) is registered with ``unaryEncoding(_:access:json:_:)`` and writes them in the
/// call's ``CallContext/format``.
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

    /// A JSON call's request: a POST body, or a GET query string's parameters.
    enum JSONInput {
        case body(JSONNode)
        case query([URLQueryItem])
    }

    /// The JSON side of a method.
    struct JSONEndpoint: Sendable {
        let getPath: String?
        let maximumBodyBytes: Int
        /// Decodes the input and runs the method; the reply carries JSON text.
        let invoke: @Sendable (JSONInput, CallContext, _ reply: @escaping Reply<[UInt8]>) -> Void
    }

    public let path: String
    public let access: Access
    /// Whether the request is a stream of messages (client streaming); otherwise exactly one.
    public let clientStreaming: Bool
    /// The gRPC side: protobuf messages in, one protobuf message out.
    let invoke: @Sendable (_ messages: GRPCMessages, CallContext, _ reply: @escaping Reply<[UInt8]>) -> Void
    let json: JSONEndpoint?

    /// A unary method from typed request and response messages. A request that does not decode is
    /// answered INVALID_ARGUMENT before `body` runs. With a `json` mapping the method also speaks
    /// JSON (and GET, if the mapping has a path).
    public static func unary<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: ProtoMethod<Request, Response>, access: Access, json: JSONMapping<Request, Response>? = nil,
        _ body: @escaping @Sendable (Request, CallContext, _ reply: @escaping Reply<Response>) -> Void
    ) -> RPCMethod {
        unaryEncoding(method, access: access, json: json) { request, context, reply in
            body(request, context) { result in
                reply(result.map { response in
                    switch context.format {
                    case .protobuf: response.serializedBytes()
                    // Only JSON calls, which exist only with a mapping, have the JSON format.
                    case .json: json!.response(response)
                    }
                })
            }
        }
    }

    /// A unary method whose handler replies with the response already encoded in the call's
    /// ``CallContext/format``: protobuf bytes of `Response` for gRPC, its JSON text (as
    /// `json.response` writes it) for JSON calls.
    public static func unaryEncoding<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: ProtoMethod<Request, Response>, access: Access, json: JSONMapping<Request, Response>? = nil,
        _ body: @escaping @Sendable (Request, CallContext, _ reply: @escaping Reply<[UInt8]>) -> Void
    ) -> RPCMethod {
        let endpoint = json.map { mapping in
            JSONEndpoint(getPath: mapping.getPath, maximumBodyBytes: mapping.maximumBodyBytes) { input, context, reply in
                let request: Request
                do throws(GRPCStatus) {
                    switch input {
                    case .body(let object): request = try mapping.request(object)
                    case .query(let items):
                        guard let query = mapping.query else { throw GRPCStatus(.unimplemented, "\(method.path) has no GET form") }
                        request = try query(items)
                    }
                } catch {
                    reply(.failure(error))
                    return
                }
                body(request, context, reply)
            }
        }
        return RPCMethod(path: method.path, access: access, clientStreaming: false, invoke: { messages, context, reply in
            guard let message = messages.single else {
                reply(.failure(GRPCStatus(.invalidArgument, "\(method.path) takes exactly one request message, got \(messages.count)")))
                return
            }
            let request: Request
            do throws(GRPCStatus) { request = try decode(Request.self, message) } catch {
                reply(.failure(error))
                return
            }
            body(request, context, reply)
        }, json: endpoint)
    }

    /// A client-streaming method: every message of the request, then one response (gRPC only).
    public static func clientStream<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: ProtoMethod<Request, Response>, access: Access,
        _ body: @escaping @Sendable ([Request], CallContext, _ reply: @escaping Reply<Response>) -> Void
    ) -> RPCMethod {
        RPCMethod(path: method.path, access: access, clientStreaming: true, invoke: { messages, context, reply in
            let requests: [Request]
            do {
                requests = try messages.map { message throws(GRPCStatus) in try decode(Request.self, message) }
            } catch {
                reply(.failure(GRPCStatus(describing: error)))
                return
            }
            body(requests, context) { reply($0.map { $0.serializedBytes() }) }
        }, json: nil)
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
