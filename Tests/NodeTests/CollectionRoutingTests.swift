import Catalog
import Dispatch
import Foundation
import HTTP2
import Index
import Observability
import RPC
@testable import Node
import Synchronization
import TestSupport
import Wire
import WireConversions
import XCTest

/// One node serving two collections (`CollectionRouter`): every method reaches the shard of the
/// collection its request names, a request without one reads the default collection exactly as a
/// one-collection node does, and names the node does not serve are refused before any work.
final class CollectionRoutingTests: XCTestCase {
    /// Two catalogs over one vocabulary (so every keystroke could match either), ids apart.
    struct Fixture {
        let directory: TemporaryDirectory
        let group: HTTP2EventLoopGroup
        var loop: HTTP2EventLoop { group.loops[0] }
        let node: NodeServer
        let both: InProcessTransport
        /// One-collection nodes over each catalog alone: what the routed answers must equal.
        let alone: [String: InProcessTransport]
        let entries: [String: [CatalogEntry]]
        let requests: [SuggestRequest]

        init() throws {
            let directory = TemporaryDirectory("typeahead-collections")
            self.directory = directory
            group = try HTTP2EventLoopGroup(threadCount: 1, name: "collections")
            var rng = SeededGenerator(seed: 0xC011_EC7)
            var catalog = RandomCatalog(vocabularySize: 24, rng: &rng)
            var products = catalog.randomEntries(120, &rng)
            var departments = catalog.randomEntries(80, &rng)
            for index in products.indices { products[index].id = "p-" + products[index].id }
            for index in departments.indices { departments[index].id = "d-" + departments[index].id }
            entries = ["default": products, "departments": departments]
            func shard(_ name: String, _ entries: [CatalogEntry]) throws -> Shard {
                let shard = try Shard(directory: directory.path + "/" + name)
                try shard.build(from: entries, parameters: IndexParameters(), number: 1)
                return shard
            }
            func telemetry() -> ServerTelemetry { ServerTelemetry(label: "node", sink: MemorySink()) }
            let node: NodeServer
            node = NodeServer(collections: [("default", try shard("products", products)), ("departments", try shard("departments", departments))],
                              configuration: NodeConfiguration(), telemetry: telemetry())
            self.node = node
            both = InProcessTransport(methods: node.methods)
            alone = [
                "default": InProcessTransport(methods: NodeServer(shard: try shard("products-alone", products), configuration: NodeConfiguration(),
                                                                  telemetry: telemetry()).methods),
                "departments": InProcessTransport(methods: NodeServer(shard: try shard("departments-alone", departments),
                                                                      configuration: NodeConfiguration(), telemetry: telemetry()).methods),
            ]
            requests = Workload.suggestRequests(entries: products + departments, categories: catalog.categories,
                                                vocabulary: catalog.vocabulary, count: 80, &rng)
        }

        func call<Request: ProtoMessage, Response: ProtoMessage>(_ transport: InProcessTransport, _ method: ProtoMethod<Request, Response>,
                                                                 _ request: Request) -> Result<Response, GRPCStatus> {
            let result = Mutex<Result<Response, GRPCStatus>?>(nil)
            let done = DispatchSemaphore(value: 0)
            _ = transport.call(method, request, on: loop) { answer in
                result.withLock { $0 = answer }
                done.signal()
            }
            done.wait()
            return result.withLock { $0! }
        }
    }

    func testEachCollectionAnswersAsANodeHoldingItAlone() throws {
        let fixture = try Fixture()
        defer { fixture.group.shutdown() }
        var found = 0
        for request in fixture.requests {
            for (name, sent) in [("default", ""), ("default", "default"), ("departments", "departments")] {
                var message = Typeahead_V1_SuggestRequest(request)
                message.collection = sent
                let routed = try fixture.call(fixture.both, Typeahead_V1_TypeaheadService.suggest, message).get()
                message.collection = ""
                let alone = try fixture.call(fixture.alone[name]!, Typeahead_V1_TypeaheadService.suggest, message).get()
                XCTAssertEqual(routed, alone, "\(sent): \(request)")
                let prefix = name == "default" ? "p-" : "d-"
                XCTAssertTrue(routed.entries.allSatisfy { $0.id.hasPrefix(prefix) }, "only \(name)'s entries")
                found += routed.entries.count
                // The shard's part, routed by the client request it carries.
                var part = Typeahead_V1_ShardSuggestRequest(request: message)
                part.collection = sent
                let shardPart = try fixture.call(fixture.both, Typeahead_V1_ShardService.shardSuggest, part).get()
                part.collection = ""
                XCTAssertEqual(shardPart, try fixture.call(fixture.alone[name]!, Typeahead_V1_ShardService.shardSuggest, part).get())
            }
            var search = Typeahead_V1_SearchRequest(text: request.text, collection: "departments")
            var routed = try fixture.call(fixture.both, Typeahead_V1_TypeaheadService.search, search).get()
            search.collection = ""
            var alone = try fixture.call(fixture.alone["departments"]!, Typeahead_V1_TypeaheadService.search, search).get()
            // Equal but for the page token, which names the collection: the node alone calls its
            // collection "default".
            XCTAssertEqual(routed.nextPageToken.isEmpty, alone.nextPageToken.isEmpty)
            if !routed.nextPageToken.isEmpty {
                // The node pages a collection with its own tokens only.
                search.pageToken = routed.nextPageToken
                let other = fixture.call(fixture.both, Typeahead_V1_TypeaheadService.search, search).failure
                XCTAssertEqual(other?.code, .invalidArgument)
                XCTAssertEqual(other?.reason, IndexError.Reason.pageTokenOtherCollection.rawValue)
                search.collection = "departments"
                XCTAssertNoThrow(try fixture.call(fixture.both, Typeahead_V1_TypeaheadService.search, search).get())
            }
            routed.nextPageToken = ""
            alone.nextPageToken = ""
            XCTAssertEqual(routed, alone)
        }
        XCTAssertGreaterThan(found, 200, "the keystrokes find entries in both collections")
    }

    func testNamesTheNodeDoesNotServeAreRefused() throws {
        let fixture = try Fixture()
        defer { fixture.group.shutdown() }
        let unknown = fixture.call(fixture.both, Typeahead_V1_TypeaheadService.suggest, Typeahead_V1_SuggestRequest(text: "a", collection: "people"))
        XCTAssertEqual(unknown.failure?.code, .notFound)
        XCTAssertEqual(unknown.failure?.reason, CollectionName.notFoundReason)
        XCTAssertTrue(unknown.failure?.message.contains(#"collection "people" is not served here (collections: default, departments)"#) ?? false,
                      "\(unknown)")
        for bad in ["People", "a b", String(repeating: "x", count: 65)] {
            let refused = fixture.call(fixture.both, Typeahead_V1_ShardService.stats, Typeahead_V1_StatsRequest(collection: bad))
            XCTAssertEqual(refused.failure?.code, .invalidArgument, bad)
            XCTAssertEqual(refused.failure?.reason, CollectionName.invalidReason, bad)
        }
        let upsert = fixture.call(fixture.both, Typeahead_V1_ShardService.upsert,
                                  Typeahead_V1_UpsertRequest(entries: [Typeahead_V1_Entry(id: "x", title: "X")], collection: "nope"))
        XCTAssertEqual(upsert.failure?.code, .notFound)
        // A BuildGeneration stream is one collection's build.
        let result = Mutex<Result<[UInt8], GRPCStatus>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let messages = [Typeahead_V1_BuildGenerationRequest(collection: "departments"), Typeahead_V1_BuildGenerationRequest()]
        _ = fixture.both.call(path: Typeahead_V1_ShardService.buildGeneration.path, messages: messages.map { $0.serializedBytes()[...] },
                              deadline: nil, requestID: "mixed", on: fixture.loop) { answer in
            result.withLock { $0 = answer }
            done.signal()
        }
        done.wait()
        let mixed = result.withLock { $0! }
        XCTAssertEqual(mixed.failure?.code, .invalidArgument)
        XCTAssertTrue(mixed.failure?.message.contains("must name the same collection") ?? false, "\(mixed)")
    }

    /// Writes, generations and Stats reach only the collection named.
    func testWritesAndStatsStayInTheirCollection() throws {
        let fixture = try Fixture()
        defer { fixture.group.shutdown() }
        func stats(_ collection: String) throws -> Typeahead_V1_StatsResponse {
            try fixture.call(fixture.both, Typeahead_V1_ShardService.stats, Typeahead_V1_StatsRequest(collection: collection)).get()
        }
        XCTAssertEqual(try stats("").collection, "default")
        XCTAssertEqual(try stats("").entries, 120)
        XCTAssertEqual(try stats("departments").collection, "departments")
        XCTAssertEqual(try stats("departments").entries, 80)
        XCTAssertEqual(try stats("departments").shard, "departments", "the shard's directory name")
        let entry = Typeahead_V1_Entry(id: "d-new", title: "Zyzzyva department", weight: 7)
        _ = try fixture.call(fixture.both, Typeahead_V1_ShardService.upsert, Typeahead_V1_UpsertRequest(entries: [entry], collection: "departments")).get()
        XCTAssertEqual(try stats("departments").entries, 81)
        XCTAssertEqual(try stats("default").entries, 120)
        let found = try fixture.call(fixture.both, Typeahead_V1_TypeaheadService.suggest,
                                     Typeahead_V1_SuggestRequest(text: "zyzzyva", collection: "departments")).get()
        XCTAssertEqual(found.entries.map(\.id), ["d-new"])
        XCTAssertEqual(try fixture.call(fixture.both, Typeahead_V1_TypeaheadService.suggest, Typeahead_V1_SuggestRequest(text: "zyzzyva")).get()
            .entries, [])
        let built = try fixture.call(fixture.both, Typeahead_V1_ShardService.buildGeneration,
                                     Typeahead_V1_BuildGenerationRequest(entries: [entry], collection: "departments")).get()
        XCTAssertEqual(built.generation?.number, 2)
        _ = try fixture.call(fixture.both, Typeahead_V1_ShardService.activateGeneration,
                             Typeahead_V1_ActivateGenerationRequest(generation: 2, collection: "departments")).get()
        XCTAssertEqual(try stats("departments").currentGeneration, 2)
        XCTAssertEqual(try stats("departments").entries, 1)
        XCTAssertEqual(try stats("").currentGeneration, 1, "the default collection did not switch")
        let mixed = fixture.call(fixture.both, Typeahead_V1_ShardService.activateGeneration,
                                 Typeahead_V1_ActivateGenerationRequest(generation: 2))
        XCTAssertEqual(mixed.failure?.code, .notFound, "the default collection has no generation 2")
        let metrics = fixture.node.telemetry.registry.exposition()
        XCTAssertTrue(metrics.contains("typeahead_collection_entries{collection=\"departments\"} 1\n"), metrics)
        XCTAssertTrue(metrics.contains("typeahead_collection_entries{collection=\"default\"} 120\n"), metrics)
        XCTAssertTrue(metrics.contains("\ntypeahead_index_entries 120\n"), "the unlabelled series are the default collection's")
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
