import HTTP2
import Wire

/// A server's methods called from the same process, without sockets, HTTP/2 or gRPC framing: the
/// in-process transport (grpc-swift's `InProcessTransport` plays the same part). The handlers are
/// exactly those an ``RPCServer`` serves, so a coordinator's fan-out, or a test, runs against real
/// nodes' services at the cost of a function call.
///
/// What it keeps of a call over the network: the typed request is decoded from its protobuf
/// bytes (a malformed one is INVALID_ARGUMENT), the handler sees a ``CallContext`` with the
/// deadline, the request id, the event loop the call belongs to and cancellation
/// (``Call/cancel()`` is the caller's RST_STREAM), and the reply is the response's protobuf bytes
/// or a ``GRPCStatus``. What it leaves out: authorization (the caller is this process, trusted as
/// the server itself), the server's metrics and access log, and message size limits (nothing
/// crosses a trust boundary).
///
/// ```swift
/// let node = NodeServer(shard: shard, configuration: configuration)
/// let transport = InProcessTransport(methods: node.methods)
/// transport.call(Typeahead_V1_ShardService.stats, Typeahead_V1_StatsRequest(), on: loop) { result in
///     print(try result.get().currentGeneration)
/// }
/// ```
///
/// Thread safety: `Sendable`; calls may be made from any thread. Replies come on whatever thread
/// the handler replies from (a node answers a suggest inline, a search from its read pool).
public final class InProcessTransport: Sendable {
    private let methods: [String: RPCMethod]

    public init(methods: [RPCMethod]) {
        self.methods = Dictionary(methods.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// One call in flight.
    public struct Call: Sendable {
        let responder: HTTP2Responder

        /// The caller went away: the handler sees the call cancelled (its `shouldStop` turns true,
        /// its cancellation handlers run). A reply may still come; the caller ignores it.
        public func cancel() { responder.cancel() }

        public var isCancelled: Bool { responder.isCancelled }
    }

    /// Calls the method at `path` with its request messages' protobuf bytes (one for a unary
    /// method). `loop` is the loop the call is made from: handlers that continue on "their" loop
    /// (a coordinator's fan-out) continue there. `reply` is called once.
    @discardableResult
    public func call(path: String, messages: [ArraySlice<UInt8>], deadline: ContinuousClock.Instant?, requestID: String,
                     on loop: HTTP2EventLoop, reply: @escaping RPCMethod.Reply<[UInt8]>) -> Call {
        let responder = HTTP2Responder.inProcess(on: loop)
        let call = Call(responder: responder)
        guard let method = methods[path] else {
            reply(.failure(GRPCStatus(.unimplemented, "unknown method \(path)")))
            return call
        }
        if let deadline, ContinuousClock.now >= deadline {
            reply(.failure(GRPCStatus(.deadlineExceeded, "deadline exceeded before the call started")))
            return call
        }
        method.invoke(GRPCMessages(messages), CallContext(identity: .received(requestID), deadline: deadline, responder: responder), reply)
        return call
    }

    /// A typed unary call: the request encoded, the response decoded (a response that does not
    /// decode is INTERNAL: the server broke its own contract).
    @discardableResult
    public func call<Request: ProtoMessage, Response: ProtoMessage>(
        _ method: ProtoMethod<Request, Response>, _ request: Request, deadline: ContinuousClock.Instant? = nil,
        requestID: String = "in-process", on loop: HTTP2EventLoop, reply: @escaping RPCMethod.Reply<Response>
    ) -> Call {
        let bytes = request.serializedBytes()
        return call(path: method.path, messages: [bytes[...]], deadline: deadline, requestID: requestID, on: loop) { result in
            reply(result.flatMap { bytes in
                do throws(GRPCStatus) {
                    return .success(try RPCMethod.decode(Response.self, bytes[...]))
                } catch {
                    return .failure(GRPCStatus(.internal, "\(method.path) answered a message that does not decode: \(error.message)"))
                }
            })
        }
    }
}
