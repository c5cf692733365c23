import RPC
import Services
import Wire

/// The coordinator's client-facing ``TypeaheadService``: each call goes to the query path
/// (``QueryRouter``) of the collection it names, in this one place; each collection's path
/// fans out to that collection's shards only and merges exactly as a cluster of that collection
/// alone would (its own generation, replicas, sessions).
///
/// - An empty `collection` is the default collection (the cluster file's `defaultCollection`):
///   every request written before collections, one length test and no lookup.
/// - A name is found by comparing it with the few the cluster has (no hashing, no allocation).
/// - Otherwise INVALID_ARGUMENT for a name that breaks the rule, NOT_FOUND naming it for one the
///   cluster does not have (``CollectionName``), before anything is sent.
///
/// Later, a *scope* (several collections per request) resolves to several routers here and
/// merges their answers as sections: ``routers(for:)`` is the lookup it will use, and every
/// router already answers on the loop the call arrived on.
final class CollectionDispatch: TypeaheadService {
    /// By collection, in cluster-file order.
    let routers: [QueryRouter]
    /// The default collection's (also in `routers`).
    let defaultRouter: QueryRouter

    init(routers: [QueryRouter], defaultIndex: Int) {
        self.routers = routers
        defaultRouter = routers[defaultIndex]
    }

    /// The query path of collection `name` ("" for the default).
    @inline(__always)
    func router(for name: String) throws(GRPCStatus) -> QueryRouter {
        try CollectionName.resolve(name, among: routers, default: defaultRouter) { $0.core.collection }
    }

    /// The query paths of several collections, in the order named (the first refusal throws).
    func routers(for names: [String]) throws(GRPCStatus) -> [QueryRouter] {
        var found: [QueryRouter] = []
        for name in names { found.append(try router(for: name)) }
        return found
    }

    func suggest(_ message: Typeahead_V1_SuggestRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<[UInt8]>) {
        do { try router(for: message.collection).suggest(message, context, reply) } catch { reply(.failure(error)) }
    }

    func search(_ message: Typeahead_V1_SearchRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<[UInt8]>) {
        do { try router(for: message.collection).search(message, context, reply) } catch { reply(.failure(error)) }
    }
}
