import RPC
import Services
import Wire

/// The node's services as a transport serves them: every call goes to the ``NodeServices`` of
/// the collection its request names (`collection`; ShardSuggest and ShardSearch carry it in the
/// client request they forward), in this one place for all sixteen methods.
///
/// - An empty name is the default collection: the path every request written before
///   collections takes, one length test and no lookup.
/// - A name is looked up by comparing it with the few the node serves, in order (a node holds a
///   handful of collections: a scan of short strings beats hashing one, and allocates nothing).
/// - A name the node does not serve is INVALID_ARGUMENT if it breaks the naming rule, NOT_FOUND
///   naming it otherwise (``CollectionName``), before any work is queued.
///
/// ```swift
/// let transport = InProcessTransport(methods: CollectionRouter(node: node).methods)
/// ```
struct CollectionRouter: TypeaheadService, ShardService {
    /// By collection, the default first.
    let services: [NodeServices]

    init(node: NodeServer) {
        services = node.collections.map { NodeServices(node: node, collection: $0) }
    }

    /// Both services' methods, for a transport to serve.
    var methods: [RPCMethod] { typeaheadMethods + shardMethods }

    /// The services of collection `name` ("" for the default).
    @inline(__always)
    func services(for name: String) throws(GRPCStatus) -> NodeServices {
        try CollectionName.resolve(name, among: services, default: services[0]) { $0.collection.name }
    }

    /// Calls `body` with the services of the collection `request` names, or replies with why
    /// there are none.
    @inline(__always)
    private func route<Request: CollectionAddressed, Response>(_ request: Request, _ reply: RPCMethod.Reply<Response>,
                                                               _ body: (NodeServices) -> Void) {
        let target: NodeServices
        do { target = try services(for: request.collection) } catch {
            reply(.failure(error))
            return
        }
        body(target)
    }

    // MARK: typeahead.v1.Typeahead

    /// A scope is a cluster's: refused here (one length test for every other request).
    func suggest(_ request: Typeahead_V1_SuggestRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<[UInt8]>) {
        guard request.scope.isEmpty else { return reply(.failure(Typeahead_V1_SuggestRequest.notServedByNode(request.scope))) }
        route(request, reply) { $0.suggest(request, context, reply) }
    }

    func search(_ request: Typeahead_V1_SearchRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<[UInt8]>) {
        guard request.scope.isEmpty else { return reply(.failure(Typeahead_V1_SearchRequest.notServedByNode(request.scope))) }
        route(request, reply) { $0.search(request, context, reply) }
    }

    /// The node's collections (the default first) with their shards' entry counts in the
    /// generation each serves; no scopes (a cluster file's). On the Stats queue, as Stats.
    func describe(_ request: Typeahead_V1_DescribeRequest, _ context: CallContext,
                  _ reply: @escaping RPCMethod.Reply<Typeahead_V1_DescribeResponse>) {
        let collections = services.map(\.collection)
        services[0].node.run(.control, reply) {
            Typeahead_V1_DescribeResponse(
                collections: collections.map { collection in
                    Typeahead_V1_CollectionDescription(name: collection.name, entries: UInt64((try? collection.shard.entryCount()) ?? 0),
                                                       tokenKinds: Typeahead_V1_DescribeResponse.tokenKinds(
                                                           filterable: (try? collection.shard.filterableAttributes()) ?? []))
                },
                defaultCollection: collections[0].name, defaultPrompt: Typeahead_V1_DescribeResponse.defaultPrompt)
        }
    }

    // MARK: typeahead.v1.Shard

    func shardSuggest(_ request: Typeahead_V1_ShardSuggestRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<[UInt8]>) {
        route(request, reply) { $0.shardSuggest(request, context, reply) }
    }

    func shardSearch(_ request: Typeahead_V1_ShardSearchRequest, _ context: CallContext,
                     _ reply: @escaping RPCMethod.Reply<Typeahead_V1_ShardSearchResponse>) {
        route(request, reply) { $0.shardSearch(request, context, reply) }
    }

    func upsert(_ request: Typeahead_V1_UpsertRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<Typeahead_V1_UpsertResponse>) {
        route(request, reply) { $0.upsert(request, context, reply) }
    }

    func delete(_ request: Typeahead_V1_DeleteRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<Typeahead_V1_DeleteResponse>) {
        route(request, reply) { $0.delete(request, context, reply) }
    }

    /// A stream is one build of one collection: every message must name the first one's.
    func buildGeneration(_ requests: [Typeahead_V1_BuildGenerationRequest], _ context: CallContext,
                         _ reply: @escaping RPCMethod.Reply<Typeahead_V1_BuildGenerationResponse>) {
        let first = requests.first ?? Typeahead_V1_BuildGenerationRequest()
        if let other = requests.first(where: { $0.collection != first.collection }) {
            reply(.failure(GRPCStatus(.invalidArgument, "every message of a BuildGeneration stream must name the same collection "
                                                         + "(\"\(first.collection)\", then \"\(other.collection.prefix(80))\")")))
            return
        }
        route(first, reply) { $0.buildGeneration(requests, context, reply) }
    }

    func activateGeneration(_ request: Typeahead_V1_ActivateGenerationRequest, _ context: CallContext,
                            _ reply: @escaping RPCMethod.Reply<Typeahead_V1_ActivateGenerationResponse>) {
        route(request, reply) { $0.activateGeneration(request, context, reply) }
    }

    func dropGeneration(_ request: Typeahead_V1_DropGenerationRequest, _ context: CallContext,
                        _ reply: @escaping RPCMethod.Reply<Typeahead_V1_DropGenerationResponse>) {
        route(request, reply) { $0.dropGeneration(request, context, reply) }
    }

    func rollback(_ request: Typeahead_V1_RollbackRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<Typeahead_V1_RollbackResponse>) {
        route(request, reply) { $0.rollback(request, context, reply) }
    }

    func stats(_ request: Typeahead_V1_StatsRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<Typeahead_V1_StatsResponse>) {
        route(request, reply) { $0.stats(request, context, reply) }
    }

    func beginUpload(_ request: Typeahead_V1_BeginUploadRequest, _ context: CallContext,
                     _ reply: @escaping RPCMethod.Reply<Typeahead_V1_BeginUploadResponse>) {
        route(request, reply) { $0.beginUpload(request, context, reply) }
    }

    func appendUpload(_ request: Typeahead_V1_AppendUploadRequest, _ context: CallContext,
                      _ reply: @escaping RPCMethod.Reply<Typeahead_V1_AppendUploadResponse>) {
        route(request, reply) { $0.appendUpload(request, context, reply) }
    }

    func finishUpload(_ request: Typeahead_V1_FinishUploadRequest, _ context: CallContext,
                      _ reply: @escaping RPCMethod.Reply<Typeahead_V1_FinishUploadResponse>) {
        route(request, reply) { $0.finishUpload(request, context, reply) }
    }

    func abortUpload(_ request: Typeahead_V1_AbortUploadRequest, _ context: CallContext,
                     _ reply: @escaping RPCMethod.Reply<Typeahead_V1_AbortUploadResponse>) {
        route(request, reply) { $0.abortUpload(request, context, reply) }
    }

    func compact(_ request: Typeahead_V1_CompactRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<Typeahead_V1_CompactResponse>) {
        route(request, reply) { $0.compact(request, context, reply) }
    }
}
