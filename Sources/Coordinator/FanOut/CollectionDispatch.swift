import Cluster
import Index
import RPC
import Services
import Synchronization
import Wire
import WireConversions

/// The coordinator's client-facing ``TypeaheadService``: each call goes to the query path
/// (``QueryRouter``) of the collection it names, or of every collection of the scope it names,
/// in this one place; each collection's path fans out to that collection's shards only and
/// merges exactly as a cluster of that collection alone would (its own generation, replicas,
/// sessions).
///
/// - An empty `collection` is the default collection (the cluster file's `defaultCollection`):
///   every request written before collections, one length test and no lookup.
/// - A name is found by comparing it with the few the cluster has (no hashing, no allocation).
/// - Otherwise INVALID_ARGUMENT for a name that breaks the rule, NOT_FOUND naming it for one the
///   cluster does not have (``CollectionName``), before anything is sent.
/// - A `scope` (never with a collection: refused before this, ``ScopeAddressed``) asks each of
///   its collections at once, with the scope's tokens forced on, and answers one section per
///   collection (``Answers/scopedSuggest(_:request:message:format:)``); a collection that fails
///   as a whole is an empty section saying why, unless the request requires every shard. An
///   unknown scope is NOT_FOUND.
/// - A Search's page token continues only the collection it was issued for
///   (``SearchPages/checkCollection(ofToken:collection:isDefault:)``); a scoped Search takes none.
final class CollectionDispatch: TypeaheadService {
    /// A scope with its collections' query paths, in the scope's order.
    struct ServedScope: Sendable {
        let scope: ClusterFile.Scope
        let routers: [QueryRouter]
    }

    /// By collection, in cluster-file order.
    let routers: [QueryRouter]
    /// The default collection's (also in `routers`).
    let defaultRouter: QueryRouter
    /// In cluster-file order.
    let scopes: [ServedScope]
    /// Each collection's entries (in `routers` order) as its health checks last saw them.
    private let entryCounts: @Sendable () -> [UInt64]

    /// - Precondition: every scope's collections are among the routers' (the cluster file checked it).
    init(routers: [QueryRouter], defaultIndex: Int, scopes: [ClusterFile.Scope] = [],
         entryCounts: @escaping @Sendable () -> [UInt64] = { [] }) {
        self.routers = routers
        defaultRouter = routers[defaultIndex]
        self.scopes = scopes.map { scope in
            ServedScope(scope: scope, routers: scope.collections.map { name in routers.first { $0.core.collection == name }! })
        }
        self.entryCounts = entryCounts
    }

    /// The query path of collection `name` ("" for the default).
    @inline(__always)
    func router(for name: String) throws(GRPCStatus) -> QueryRouter {
        try CollectionName.resolve(name, among: routers, default: defaultRouter) { $0.core.collection }
    }

    /// The scope named `name` (valid by the name rule: ``ScopeAddressed/checkAddress()`` ran), or NOT_FOUND.
    func scope(named name: String) throws(GRPCStatus) -> ServedScope {
        for served in scopes where served.scope.name == name { return served }
        throw Typeahead_V1_SuggestRequest.notFound(name, declared: scopes.map(\.scope.name))
    }

    func suggest(_ message: Typeahead_V1_SuggestRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<[UInt8]>) {
        guard message.scope.isEmpty else { return scopedSuggest(message, context, reply) }
        do { try router(for: message.collection).suggest(message, context, reply) } catch { reply(.failure(error)) }
    }

    func search(_ message: Typeahead_V1_SearchRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<[UInt8]>) {
        guard message.scope.isEmpty else { return scopedSearch(message, context, reply) }
        let router: QueryRouter
        do {
            router = try self.router(for: message.collection)
            try SearchPages.checkCollection(ofToken: message.pageToken, collection: router.core.collection, isDefault: router === defaultRouter)
        } catch let status as GRPCStatus {
            return reply(.failure(status))
        } catch {
            return reply(.failure(GRPCStatus(describing: error)))
        }
        router.search(message, context, reply)
    }

    /// The scopes, the collections with their entry counts, the default collection and prompt.
    func describe(_ request: Typeahead_V1_DescribeRequest, _ context: CallContext,
                  _ reply: @escaping RPCMethod.Reply<Typeahead_V1_DescribeResponse>) {
        let counts = entryCounts()
        reply(.success(Typeahead_V1_DescribeResponse(
            scopes: scopes.map { served in
                Typeahead_V1_ScopeDescription(name: served.scope.name, label: served.scope.label, prompt: served.scope.prompt,
                                              collections: served.scope.collections, tokens: served.scope.tokens)
            },
            collections: routers.enumerated().map { index, router in
                Typeahead_V1_CollectionDescription(name: router.core.collection, entries: index < counts.count ? counts[index] : 0,
                                                   tokenKinds: router.core.tokenKinds)
            },
            defaultCollection: defaultRouter.core.collection, defaultPrompt: Typeahead_V1_DescribeResponse.defaultPrompt)))
    }

    // MARK: Scopes

    /// Every collection of the scope asked at once (each with the scope's tokens, naming itself),
    /// answered when all have.
    private func scopedSuggest(_ message: Typeahead_V1_SuggestRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<[UInt8]>) {
        federate(message, context, reply, convert: SuggestRequest.init, gather: { $0.gatherSuggest($1, context, $2) }) { parts, request, message in
            Answers.scopedSuggest(parts, request: request, message: message, format: context.format)
        }
    }

    /// As ``scopedSuggest(_:_:_:)``, for a Search (a scoped search has no page token: a section
    /// pages on with a Search naming its collection).
    private func scopedSearch(_ message: Typeahead_V1_SearchRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<[UInt8]>) {
        do { try SearchPages.checkNoToken(message.pageToken, scope: message.scope) } catch { return reply(.failure(error.grpcStatus)) }
        federate(message, context, reply, convert: SearchRequest.init, gather: { $0.gatherSearch($1, context, $2) }) { parts, request, message in
            Answers.scopedSearch(parts, request: request, message: message, format: context.format)
        }
    }

    /// The scoped path of both methods: find the scope, force its tokens, check the request once
    /// (`convert`), fan out to each of its collections (`gather`, the request naming that
    /// collection), and `answer` from all the parts when every fan-out has reported.
    private func federate<Message: ScopeAddressed & TokenFiltered, Request: Sendable>(
        _ message: Message, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<[UInt8]>, convert: (Message) throws -> Request,
        gather: (QueryRouter, Message, @escaping @Sendable (Result<QueryRouter.Gathered, GRPCStatus>) -> Void) -> Void,
        answer: @escaping @Sendable ([Answers.ScopedPart], Request, Message) -> Result<[UInt8], GRPCStatus>
    ) {
        let served: ServedScope
        let request: Request
        var base = message
        do {
            served = try scope(named: message.scope)
            base.scope = ""
            base = base.forcing(served.scope.tokens)
            request = try convert(base)
        } catch let status as GRPCStatus {
            return reply(.failure(status))
        } catch {
            return reply(.failure(GRPCStatus(describing: error)))
        }
        let message = base
        let parts = ScopeGather(served) { parts in reply(answer(parts, request, message)) }
        for (index, router) in served.routers.enumerated() {
            var one = message
            one.collection = router.core.collection
            gather(router, one) { parts.set(index, $0) }
        }
    }
}

/// Collects the fan-outs of a scoped call, one per collection, and calls `done` once all have
/// reported, with every part in the scope's order, failed ones included (whether a collection's
/// failure fails the call or leaves its section empty is the answer's to decide:
/// ``Answers/failsItsSectionOnly(_:requireAll:)``).
///
/// Why a lock: each fan-out reports on the call's loop today, but a lock costs little next to a
/// fan-out and keeps this correct if a collection's path ever answers elsewhere.
private final class ScopeGather: Sendable {
    private let routers: [QueryRouter]
    private let state: Mutex<(results: [Result<QueryRouter.Gathered, GRPCStatus>?], left: Int)>
    private let done: @Sendable ([Answers.ScopedPart]) -> Void

    init(_ served: CollectionDispatch.ServedScope, done: @escaping @Sendable ([Answers.ScopedPart]) -> Void) {
        routers = served.routers
        state = Mutex((Array(repeating: nil, count: served.routers.count), served.routers.count))
        self.done = done
    }

    func set(_ index: Int, _ result: Result<QueryRouter.Gathered, GRPCStatus>) {
        let complete = state.withLock { state -> [Result<QueryRouter.Gathered, GRPCStatus>]? in
            guard state.results[index] == nil else { return nil }
            state.results[index] = result
            state.left -= 1
            return state.left == 0 ? state.results.map { $0! } : nil
        }
        guard let complete else { return }
        done(zip(routers, complete).map { Answers.ScopedPart(core: $0.core, gathered: $1) })
    }
}
