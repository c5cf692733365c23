import Catalog
import Index
import RPC
import Wire
import WireConversions

/// The node's RPCs: the client-facing `typeahead.v1.Typeahead` service (presented answers) and the
/// internal `typeahead.v1.Shard` service (shard parts, updates, generations), both over one `Shard`.
enum Services {
    static func methods(node: NodeServer, name: String) -> [RPCMethod] {
        let shard = node.shard
        return [
            // Written from the memory map into the response bytes, in the call's format (or from
            // the answer cache).
            // A search key's tokens are forced onto every read (``SearchKey``), shard reads too.
            .unaryEncoding(Typeahead_V1_TypeaheadService.suggest, access: .read, json: .suggest) { request, context, reply in
                node.run(.inline, reply) {
                    let request = request.restricted(to: context.searchKey)
                    let suggest = try SuggestRequest(request)
                    return try index(context) {
                        try node.answers.answer(request, suggest, format: context.format, shard: shard, shouldStop: context.shouldStop)
                    }
                }
            },
            .unary(Typeahead_V1_TypeaheadService.search, access: .read, json: .search) { request, context, reply in
                node.run(.readPool, reply) {
                    let search = try SearchRequest(request.restricted(to: context.searchKey))
                    let response = try index(context) { try shard.search(search, shouldStop: context.shouldStop) }
                    return Typeahead_V1_SearchResponse(response, shards: .singleNode(generation: shard.currentGeneration))
                }
            },
            // Written from the memory map (or the answer cache), like the client's Suggest.
            .unaryEncoding(Typeahead_V1_ShardService.shardSuggest, access: .read) { request, context, reply in
                node.run(.inline, stallable: true, reply) {
                    guard let message = request.request?.restricted(to: context.searchKey) else {
                        throw GRPCStatus(.invalidArgument, "request is required")
                    }
                    let suggest = try SuggestRequest(message)
                    let pinned = request.generation == 0 ? nil : Int(clamping: request.generation)
                    return try index(context) {
                        try node.answers.shardAnswer(message, suggest, pinned: pinned, shard: shard, shouldStop: context.shouldStop)
                    }
                }
            },
            .unary(Typeahead_V1_ShardService.shardSearch, access: .read) { request, context, reply in
                node.run(.readPool, stallable: true, reply) {
                    guard let message = request.request?.restricted(to: context.searchKey) else {
                        throw GRPCStatus(.invalidArgument, "request is required")
                    }
                    let search = try SearchRequest(message)
                    let pinned = request.generation == 0 ? nil : Int(clamping: request.generation)
                    let response = try index(context) {
                        try shard.search(search, form: .shardPart, generation: pinned, shouldStop: context.shouldStop)
                    }
                    return Typeahead_V1_ShardSearchResponse(response, generation: UInt64(pinned ?? shard.currentGeneration ?? 0))
                }
            },
            .unary(Typeahead_V1_ShardService.upsert, access: .admin) { request, context, reply in
                node.run(.writer, reply) {
                    let entries = try request.catalogEntries()
                    let summary = try index(context) { try shard.upsert(entries) }
                    node.merges.considerMerge()
                    return Typeahead_V1_UpsertResponse(summary: .init(summary), generation: UInt64(shard.currentGeneration ?? 0))
                }
            },
            .unary(Typeahead_V1_ShardService.delete, access: .admin) { request, context, reply in
                node.run(.writer, reply) {
                    let ids = try request.validatedIDs()
                    let summary = try index(context) { try shard.delete(ids: ids) }
                    node.merges.considerMerge()
                    return Typeahead_V1_DeleteResponse(summary: .init(summary), generation: UInt64(shard.currentGeneration ?? 0))
                }
            },
            .clientStream(Typeahead_V1_ShardService.buildGeneration, access: .admin) { requests, context, reply in
                node.run(.build, reply) {
                    var entries: [CatalogEntry] = []
                    for request in requests { entries += try request.catalogEntries() }
                    let parameters = requests.first?.parameters.map(IndexParameters.init) ?? IndexParameters()
                    let info = try index(context) { try shard.buildGeneration(from: entries, parameters: parameters) }
                    return Typeahead_V1_BuildGenerationResponse(generation: .init(info))
                }
            },
            .unary(Typeahead_V1_ShardService.activateGeneration, access: .admin) { request, context, reply in
                node.run(.writer, reply) {
                    try index(context) { try shard.activate(generation: Int(clamping: request.generation)) }
                    return Typeahead_V1_ActivateGenerationResponse(generations: try shard.generations().map { .init($0) })
                }
            },
            .unary(Typeahead_V1_ShardService.dropGeneration, access: .admin) { request, context, reply in
                node.run(.writer, reply) {
                    try index(context) { try shard.dropGeneration(Int(clamping: request.generation)) }
                    return Typeahead_V1_DropGenerationResponse(generations: try shard.generations().map { .init($0) })
                }
            },
            .unary(Typeahead_V1_ShardService.rollback, access: .admin) { _, context, reply in
                node.run(.writer, reply) {
                    try index(context) { try shard.rollback() }
                    return Typeahead_V1_RollbackResponse(generations: try shard.generations().map { .init($0) })
                }
            },
            .unary(Typeahead_V1_ShardService.stats, access: .read) { _, _, reply in
                node.run(.control, reply) {
                    let storage = try? shard.storageStatistics()
                    return Typeahead_V1_StatsResponse(shard: name, currentGeneration: UInt64(shard.currentGeneration ?? 0),
                                                      entries: UInt64((try? shard.entryCount()) ?? 0),
                                                      generations: try shard.generations().map { .init($0) },
                                                      mapBytes: UInt64(storage?.mapSize ?? 0), usedBytes: UInt64(storage?.usedBytes ?? 0),
                                                      upload: try shard.upload().map(Typeahead_V1_UploadInfo.init))
                }
            },
            .unary(Typeahead_V1_ShardService.beginUpload, access: .admin) { request, context, reply in
                node.run(.writer, reply) {
                    let parameters = request.parameters.map(IndexParameters.init) ?? IndexParameters()
                    let start = try index(context) {
                        try shard.beginUpload(generation: Int(clamping: request.generation), label: request.label, parameters: parameters)
                    }
                    switch start {
                    case .started(let info): return Typeahead_V1_BeginUploadResponse(upload: .init(info), resumed: false)
                    case .resumed(let info): return Typeahead_V1_BeginUploadResponse(upload: .init(info), resumed: true)
                    case .built(let info): return Typeahead_V1_BeginUploadResponse(built: .init(info))
                    }
                }
            },
            .unary(Typeahead_V1_ShardService.appendUpload, access: .admin) { request, context, reply in
                node.run(.writer, reply) {
                    let entries = try request.catalogEntries()
                    let info = try index(context) {
                        try shard.appendUpload(generation: Int(clamping: request.generation), batch: Int(clamping: request.batch), entries: entries)
                    }
                    return Typeahead_V1_AppendUploadResponse(upload: .init(info))
                }
            },
            .unary(Typeahead_V1_ShardService.finishUpload, access: .admin) { request, context, reply in
                node.run(.build, reply) {
                    let info = try index(context) {
                        try shard.finishUpload(generation: Int(clamping: request.generation), batches: Int(clamping: request.batches),
                                               entries: Int(clamping: request.entries))
                    }
                    return Typeahead_V1_FinishUploadResponse(generation: .init(info))
                }
            },
            .unary(Typeahead_V1_ShardService.abortUpload, access: .admin) { _, context, reply in
                node.run(.writer, reply) {
                    try index(context) { try shard.abortUpload() }
                    return Typeahead_V1_AbortUploadResponse()
                }
            },
            .unary(Typeahead_V1_ShardService.compact, access: .admin) { request, context, reply in
                node.run(.build, reply) {
                    let before = (try? shard.storageStatistics().usedBytes) ?? 0
                    let info = try index(context) { try shard.compact(into: Int(clamping: request.generation)) }
                    return Typeahead_V1_CompactResponse(generation: .init(info), bytesBefore: UInt64(before))
                }
            },
        ]
    }

    /// Runs index work, turning a stop into the status the caller deserves.
    static func index<T>(_ context: CallContext, _ work: () throws -> T) throws -> T {
        try context.checkAlive()
        do {
            let result = try work()
            try context.checkAlive()
            return result
        } catch let error as IndexError where error.code == .cancelled {
            try context.checkAlive()
            throw GRPCStatus(.cancelled, error.message)
        } catch let error as IndexError {
            throw GRPCStatus(error)
        }
    }
}
