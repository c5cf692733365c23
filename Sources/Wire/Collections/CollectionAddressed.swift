/// A request that names the collection it addresses: every client request and every
/// `typeahead.v1.Shard` request that reads or changes a shard's data. Empty means the server's
/// default collection (see ``CollectionName``).
///
/// Why a protocol: the node routes each of its sixteen methods by this one field, and `typeahead
/// admin` sets it on every request it sends; both do so once, generically, instead of per message.
///
/// ```swift
/// var request = Typeahead_V1_StatsRequest()
/// request.collection = "products"
/// func route<R: CollectionAddressed>(_ request: R) -> String { request.collection }
/// ```
public protocol CollectionAddressed: ProtoMessage {
    var collection: String { get set }
}

extension Typeahead_V1_SuggestRequest: CollectionAddressed {}
extension Typeahead_V1_SearchRequest: CollectionAddressed {}
extension Typeahead_V1_UpsertRequest: CollectionAddressed {}
extension Typeahead_V1_DeleteRequest: CollectionAddressed {}
extension Typeahead_V1_BuildGenerationRequest: CollectionAddressed {}
extension Typeahead_V1_ActivateGenerationRequest: CollectionAddressed {}
extension Typeahead_V1_DropGenerationRequest: CollectionAddressed {}
extension Typeahead_V1_RollbackRequest: CollectionAddressed {}
extension Typeahead_V1_StatsRequest: CollectionAddressed {}
extension Typeahead_V1_BeginUploadRequest: CollectionAddressed {}
extension Typeahead_V1_AppendUploadRequest: CollectionAddressed {}
extension Typeahead_V1_FinishUploadRequest: CollectionAddressed {}
extension Typeahead_V1_AbortUploadRequest: CollectionAddressed {}
extension Typeahead_V1_CompactRequest: CollectionAddressed {}

/// A shard's query: it forwards the client's request, and its collection is that request's.
public protocol ForwardedRequest: ProtoMessage {
    associatedtype Forwarded: CollectionAddressed
    var request: Forwarded? { get set }
}

extension ForwardedRequest {
    /// The forwarded request's collection ("" without one); set, it makes an empty request if needed.
    public var collection: String {
        get { request?.collection ?? "" }
        set {
            var inner = request ?? Forwarded()
            inner.collection = newValue
            request = inner
        }
    }
}

extension Typeahead_V1_ShardSuggestRequest: ForwardedRequest, CollectionAddressed {}
extension Typeahead_V1_ShardSearchRequest: ForwardedRequest, CollectionAddressed {}
