import RPC
import Wire

/// `typeahead.v1.Typeahead`, the client-facing service, free of any transport: what a node
/// answers over its shard and a coordinator answers over its shards' ``ShardService``s. Requests
/// are the typed messages; answers are written in the call's ``CallContext/format`` (protobuf for
/// gRPC, JSON text for the Connect and GET forms), because both servers write them straight from
/// their sources (a node from its memory map, a coordinator from its shards' bytes) rather than
/// build a response message to encode. Failures are ``GRPCStatus``es: a code, a message and
/// structured details (`google.rpc.ErrorInfo`).
///
/// ``typeaheadMethods`` registers the service with any transport (``RPCServer`` for HTTP/2 and HTTP/1.1,
/// ``InProcessTransport`` in the same process), in one place for every server: the paths, the
/// access each method needs, the JSON mappings, the search key's tokens forced onto every
/// request (so an implementation never sees a request the key would not allow), and the
/// refusal of a request naming both a collection and a scope (``ScopeAddressed``).
///
/// ```swift
/// struct Echo: TypeaheadService {
///     func suggest(_ request: Typeahead_V1_SuggestRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<[UInt8]>) {
///         reply(.success(context.encode(Typeahead_V1_SuggestResponse(session: request.session), json: .suggest)))
///     }
///     func search(_ request: Typeahead_V1_SearchRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<[UInt8]>) {
///         reply(.failure(GRPCStatus(.unimplemented, "no search here")))
///     }
/// }
/// let server = RPCServer(configuration: configuration, methods: Echo().typeaheadMethods, telemetry: telemetry)
/// ```
///
/// Threads: a method is called on the event loop that received the call and replies once, from
/// any thread, at any time.
public protocol TypeaheadService: Sendable {
    /// Suggestions for the text typed so far: entries, completions, token suggestions.
    func suggest(_ request: Typeahead_V1_SuggestRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<[UInt8]>)
    /// Ranked results for submitted text, a page at a time.
    func search(_ request: Typeahead_V1_SearchRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<[UInt8]>)
    /// What the server offers: scopes (a coordinator's), collections, their sizes and token kinds.
    func describe(_ request: Typeahead_V1_DescribeRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<Typeahead_V1_DescribeResponse>)
}

extension TypeaheadService {
    /// The service's methods, for a transport to serve.
    public var typeaheadMethods: [RPCMethod] {
        [
            .unaryEncoding(Typeahead_V1_TypeaheadService.suggest, access: .read, json: .suggest) { request, context, reply in
                do throws(GRPCStatus) { try request.checkAddress() } catch { return reply(.failure(error)) }
                suggest(request.restricted(to: context.searchKey), context, reply)
            },
            .unaryEncoding(Typeahead_V1_TypeaheadService.search, access: .read, json: .search) { request, context, reply in
                do throws(GRPCStatus) { try request.checkAddress() } catch { return reply(.failure(error)) }
                search(request.restricted(to: context.searchKey), context, reply)
            },
            .unary(Typeahead_V1_TypeaheadService.describe, access: .read, json: .describe, describe),
        ]
    }

    /// One collection's part of a larger service (a node's ``NodeServices``, a coordinator's
    /// ``QueryRouter``) is never registered alone: the whole server describes itself.
    public func describe(_ request: Typeahead_V1_DescribeRequest, _ context: CallContext,
                         _ reply: @escaping RPCMethod.Reply<Typeahead_V1_DescribeResponse>) {
        reply(.failure(GRPCStatus(.unimplemented, "Describe is answered by the whole server, not one collection's service")))
    }
}

extension Typeahead_V1_DescribeResponse {
    /// The prompt of a search field with no scope picked.
    public static let defaultPrompt = "Search"
    /// The token kinds of a collection whose generation declares `filterable` attributes:
    /// "category" first, then those (sorted).
    public static func tokenKinds(filterable: [String]) -> [String] { ["category"] + filterable }
}
