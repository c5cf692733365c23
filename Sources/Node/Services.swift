import Catalog
import Foundation
import Index
import RPC
import Services
import Wire
import WireConversions

/// One collection's services over its ``Shard``: the client-facing ``TypeaheadService``
/// (presented answers) and the internal ``ShardService`` (shard parts, updates, generations). The
/// node's ``CollectionRouter`` hands each call to the services of the collection it names. Each
/// method runs where its work belongs (``NodeServer/Placement``): suggests inline on the event
/// loop, searches on the read pool, writes in order on the writer queue, builds on the background
/// thread, Stats on its own queue.
struct NodeServices: TypeaheadService, ShardService {
    let node: NodeServer
    let collection: NodeCollection
    /// The shard's directory name, which Stats reports.
    let name: String

    init(node: NodeServer, collection: NodeCollection) {
        self.node = node
        self.collection = collection
        name = URL(fileURLWithPath: collection.shard.directory).lastPathComponent
    }

    private var shard: Shard { collection.shard }

    // MARK: typeahead.v1.Typeahead

    /// Written from the memory map into the response bytes, in the call's format (or from the
    /// answer cache).
    func suggest(_ request: Typeahead_V1_SuggestRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<[UInt8]>) {
        node.runInline(reply) {
            let suggest = try SuggestRequest(request)
            return try Self.index(context) {
                try collection.answers.answer(request, suggest, format: context.format, shard: shard, shouldStop: context.shouldStop)
            }
        }
    }

    func search(_ request: Typeahead_V1_SearchRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<[UInt8]>) {
        node.run(.readPool, reply) { [shard, collection] in
            try SearchPages.checkCollection(ofToken: request.pageToken, collection: collection.name, isDefault: collection.isDefault)
            var search = try SearchRequest(request)
            search.collection = collection.name
            let response = try Self.index(context) { try shard.search(search, shouldStop: context.shouldStop) }
            return context.encode(Typeahead_V1_SearchResponse(response, shards: .singleNode(generation: shard.currentGeneration)), json: .search)
        }
    }

    // MARK: typeahead.v1.Shard

    /// Written from the memory map (or the answer cache), like the client's Suggest.
    func shardSuggest(_ request: Typeahead_V1_ShardSuggestRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<[UInt8]>) {
        node.runInline(stallable: true, reply) {
            guard let message = request.request else { throw GRPCStatus(.invalidArgument, "request is required") }
            let suggest = try SuggestRequest(message)
            let pinned = request.generation == 0 ? nil : Int(clamping: request.generation)
            return try Self.index(context) {
                try collection.answers.shardAnswer(message, suggest, pinned: pinned, shard: shard, shouldStop: context.shouldStop)
            }
        }
    }

    func shardSearch(_ request: Typeahead_V1_ShardSearchRequest, _ context: CallContext,
                     _ reply: @escaping RPCMethod.Reply<Typeahead_V1_ShardSearchResponse>) {
        node.run(.readPool, stallable: true, reply) { [shard, collection] in
            guard let message = request.request else { throw GRPCStatus(.invalidArgument, "request is required") }
            var search = try SearchRequest(message)
            search.collection = collection.name
            let pinned = request.generation == 0 ? nil : Int(clamping: request.generation)
            let response = try Self.index(context) {
                try shard.search(search, form: .shardPart, generation: pinned, shouldStop: context.shouldStop)
            }
            return Typeahead_V1_ShardSearchResponse(response, generation: UInt64(pinned ?? shard.currentGeneration ?? 0))
        }
    }

    func upsert(_ request: Typeahead_V1_UpsertRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<Typeahead_V1_UpsertResponse>) {
        node.run(.writer, reply) { [merges = collection.merges, shard] in
            let entries = try request.catalogEntries()
            let summary = try Self.index(context) { try shard.upsert(entries) }
            merges.considerMerge()
            return Typeahead_V1_UpsertResponse(summary: .init(summary), generation: UInt64(shard.currentGeneration ?? 0))
        }
    }

    func delete(_ request: Typeahead_V1_DeleteRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<Typeahead_V1_DeleteResponse>) {
        node.run(.writer, reply) { [merges = collection.merges, shard] in
            let ids = try request.validatedIDs()
            let summary = try Self.index(context) { try shard.delete(ids: ids) }
            merges.considerMerge()
            return Typeahead_V1_DeleteResponse(summary: .init(summary), generation: UInt64(shard.currentGeneration ?? 0))
        }
    }

    func buildGeneration(_ requests: [Typeahead_V1_BuildGenerationRequest], _ context: CallContext,
                         _ reply: @escaping RPCMethod.Reply<Typeahead_V1_BuildGenerationResponse>) {
        node.run(.build, reply) { [shard] in
            var entries: [CatalogEntry] = []
            for request in requests { entries += try request.catalogEntries() }
            let parameters = requests.first?.parameters.map(IndexParameters.init) ?? IndexParameters()
            let info = try Self.index(context) { try shard.buildGeneration(from: entries, parameters: parameters) }
            return Typeahead_V1_BuildGenerationResponse(generation: .init(info))
        }
    }

    func activateGeneration(_ request: Typeahead_V1_ActivateGenerationRequest, _ context: CallContext,
                            _ reply: @escaping RPCMethod.Reply<Typeahead_V1_ActivateGenerationResponse>) {
        node.run(.writer, reply) { [shard] in
            try Self.index(context) { try shard.activate(generation: Int(clamping: request.generation)) }
            return Typeahead_V1_ActivateGenerationResponse(generations: try shard.generations().map { .init($0) })
        }
    }

    func dropGeneration(_ request: Typeahead_V1_DropGenerationRequest, _ context: CallContext,
                        _ reply: @escaping RPCMethod.Reply<Typeahead_V1_DropGenerationResponse>) {
        node.run(.writer, reply) { [shard] in
            try Self.index(context) { try shard.dropGeneration(Int(clamping: request.generation)) }
            return Typeahead_V1_DropGenerationResponse(generations: try shard.generations().map { .init($0) })
        }
    }

    func rollback(_ request: Typeahead_V1_RollbackRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<Typeahead_V1_RollbackResponse>) {
        node.run(.writer, reply) { [shard] in
            try Self.index(context) { try shard.rollback() }
            return Typeahead_V1_RollbackResponse(generations: try shard.generations().map { .init($0) })
        }
    }

    func stats(_ request: Typeahead_V1_StatsRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<Typeahead_V1_StatsResponse>) {
        node.run(.control, reply) { [shard, name, collection = collection.name] in
            let storage = try? shard.storageStatistics()
            return Typeahead_V1_StatsResponse(shard: name, currentGeneration: UInt64(shard.currentGeneration ?? 0),
                                              entries: UInt64((try? shard.entryCount()) ?? 0),
                                              generations: try shard.generations().map { .init($0) },
                                              mapBytes: UInt64(storage?.mapSize ?? 0), usedBytes: UInt64(storage?.usedBytes ?? 0),
                                              upload: try shard.upload().map(Typeahead_V1_UploadInfo.init), collection: collection)
        }
    }

    func beginUpload(_ request: Typeahead_V1_BeginUploadRequest, _ context: CallContext,
                     _ reply: @escaping RPCMethod.Reply<Typeahead_V1_BeginUploadResponse>) {
        node.run(.writer, reply) { [shard] in
            let parameters = request.parameters.map(IndexParameters.init) ?? IndexParameters()
            let start = try Self.index(context) {
                try shard.beginUpload(generation: Int(clamping: request.generation), label: request.label, parameters: parameters)
            }
            switch start {
            case .started(let info): return Typeahead_V1_BeginUploadResponse(upload: .init(info), resumed: false)
            case .resumed(let info): return Typeahead_V1_BeginUploadResponse(upload: .init(info), resumed: true)
            case .built(let info): return Typeahead_V1_BeginUploadResponse(built: .init(info))
            }
        }
    }

    func appendUpload(_ request: Typeahead_V1_AppendUploadRequest, _ context: CallContext,
                      _ reply: @escaping RPCMethod.Reply<Typeahead_V1_AppendUploadResponse>) {
        node.run(.writer, reply) { [shard] in
            let entries = try request.catalogEntries()
            let info = try Self.index(context) {
                try shard.appendUpload(generation: Int(clamping: request.generation), batch: Int(clamping: request.batch), entries: entries)
            }
            return Typeahead_V1_AppendUploadResponse(upload: .init(info))
        }
    }

    func finishUpload(_ request: Typeahead_V1_FinishUploadRequest, _ context: CallContext,
                      _ reply: @escaping RPCMethod.Reply<Typeahead_V1_FinishUploadResponse>) {
        node.run(.build, reply) { [shard] in
            let info = try Self.index(context) {
                try shard.finishUpload(generation: Int(clamping: request.generation), batches: Int(clamping: request.batches),
                                       entries: Int(clamping: request.entries))
            }
            return Typeahead_V1_FinishUploadResponse(generation: .init(info))
        }
    }

    func abortUpload(_ request: Typeahead_V1_AbortUploadRequest, _ context: CallContext,
                     _ reply: @escaping RPCMethod.Reply<Typeahead_V1_AbortUploadResponse>) {
        node.run(.writer, reply) { [shard] in
            try Self.index(context) { try shard.abortUpload() }
            return Typeahead_V1_AbortUploadResponse()
        }
    }

    func compact(_ request: Typeahead_V1_CompactRequest, _ context: CallContext, _ reply: @escaping RPCMethod.Reply<Typeahead_V1_CompactResponse>) {
        node.run(.build, reply) { [shard] in
            let before = (try? shard.storageStatistics().usedBytes) ?? 0
            let info = try Self.index(context) { try shard.compact(into: Int(clamping: request.generation)) }
            return Typeahead_V1_CompactResponse(generation: .init(info), bytesBefore: UInt64(before))
        }
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
