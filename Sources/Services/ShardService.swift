import RPC
import Wire

/// `typeahead.v1.Shard`, the service a node offers its coordinators and the admin tool, free of
/// any transport: shard parts of Suggest and Search (rank keys and hits left for the coordinator to
/// merge), writes, generations and uploads, and Stats (which health checks read).
///
/// Typed requests and responses, except ShardSuggest, which a node writes from its memory map
/// straight into protobuf bytes (gRPC only: the shard service has no JSON form). Failures are
/// ``GRPCStatus``es with structured details; e.g. an upload batch out of order carries
/// `UPLOAD_BATCH_OUT_OF_ORDER` and the batch expected, which `admin reindex` resumes from.
///
/// ``shardMethods`` registers it: reads need read access, everything else the admin token; a search
/// key's tokens are forced onto the shard reads as onto the client's.
public protocol ShardService: Sendable {
    func shardSuggest(_ request: Typeahead_V1_ShardSuggestRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<[UInt8]>)
    func shardSearch(_ request: Typeahead_V1_ShardSearchRequest, _ context: CallContext,
                     _ reply: @escaping RPCMethod.Reply<Typeahead_V1_ShardSearchResponse>)
    func upsert(_ request: Typeahead_V1_UpsertRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<Typeahead_V1_UpsertResponse>)
    func delete(_ request: Typeahead_V1_DeleteRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<Typeahead_V1_DeleteResponse>)
    /// A whole generation from a stream of entry batches (client streaming).
    func buildGeneration(_ requests: [Typeahead_V1_BuildGenerationRequest], _ context: CallContext,
                         _ reply: @escaping RPCMethod.Reply<Typeahead_V1_BuildGenerationResponse>)
    func activateGeneration(_ request: Typeahead_V1_ActivateGenerationRequest, _ context: CallContext,
                            _ reply: @escaping RPCMethod.Reply<Typeahead_V1_ActivateGenerationResponse>)
    func dropGeneration(_ request: Typeahead_V1_DropGenerationRequest, _ context: CallContext,
                        _ reply: @escaping RPCMethod.Reply<Typeahead_V1_DropGenerationResponse>)
    func rollback(_ request: Typeahead_V1_RollbackRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<Typeahead_V1_RollbackResponse>)
    func stats(_ request: Typeahead_V1_StatsRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<Typeahead_V1_StatsResponse>)
    func beginUpload(_ request: Typeahead_V1_BeginUploadRequest, _ context: CallContext,
                     _ reply: @escaping RPCMethod.Reply<Typeahead_V1_BeginUploadResponse>)
    func appendUpload(_ request: Typeahead_V1_AppendUploadRequest, _ context: CallContext,
                      _ reply: @escaping RPCMethod.Reply<Typeahead_V1_AppendUploadResponse>)
    func finishUpload(_ request: Typeahead_V1_FinishUploadRequest, _ context: CallContext,
                      _ reply: @escaping RPCMethod.Reply<Typeahead_V1_FinishUploadResponse>)
    func abortUpload(_ request: Typeahead_V1_AbortUploadRequest, _ context: CallContext,
                     _ reply: @escaping RPCMethod.Reply<Typeahead_V1_AbortUploadResponse>)
    func compact(_ request: Typeahead_V1_CompactRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<Typeahead_V1_CompactResponse>)
}

extension ShardService {
    /// The service's methods, for a transport to serve.
    public var shardMethods: [RPCMethod] {
        typealias Shard = Typeahead_V1_ShardService
        return [
            .unaryEncoding(Shard.shardSuggest, access: .read) { request, context, reply in
                var request = request
                request.request = request.request?.restricted(to: context.searchKey)
                shardSuggest(request, context, reply)
            },
            .unary(Shard.shardSearch, access: .read) { request, context, reply in
                var request = request
                request.request = request.request?.restricted(to: context.searchKey)
                shardSearch(request, context, reply)
            },
            .unary(Shard.upsert, access: .admin, upsert),
            .unary(Shard.delete, access: .admin, delete),
            .clientStream(Shard.buildGeneration, access: .admin, buildGeneration),
            .unary(Shard.activateGeneration, access: .admin, activateGeneration),
            .unary(Shard.dropGeneration, access: .admin, dropGeneration),
            .unary(Shard.rollback, access: .admin, rollback),
            .unary(Shard.stats, access: .read, stats),
            .unary(Shard.beginUpload, access: .admin, beginUpload),
            .unary(Shard.appendUpload, access: .admin, appendUpload),
            .unary(Shard.finishUpload, access: .admin, finishUpload),
            .unary(Shard.abortUpload, access: .admin, abortUpload),
            .unary(Shard.compact, access: .admin, compact),
        ]
    }
}
