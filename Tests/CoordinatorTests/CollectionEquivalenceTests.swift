import Catalog
import Cluster
@testable import Coordinator
import Index
import RPC
import TestSupport
import Wire
import WireConversions
import XCTest

/// The exact-merge guarantee per collection: a cluster of two collections (3 and 2 shards × 2
/// replicas, every node holding a shard of each) answers random Suggests and Searches to each
/// collection exactly as one node holding that collection's whole catalog does, through the
/// coordinator's real query path in process (``InProcessCluster``), and never with another
/// collection's entries — though the keystrokes are drawn from both catalogs, over one vocabulary.
final class CollectionEquivalenceTests: XCTestCase {
    struct Fixture {
        let cluster: InProcessCluster
        /// Per collection: its name, entries and shard count.
        let collections: [InProcessCluster.Collection]
        let requests: [SuggestRequest]

        init(seed: UInt64 = 0xC0_11EC_7) throws {
            var rng = SeededGenerator(seed: seed)
            var products = RandomCatalog(vocabularySize: 30, rng: &rng, idPrefix: "p")
            var departments = RandomCatalog(vocabularySize: 30, rng: &rng, idPrefix: "d")
            collections = [InProcessCluster.Collection(name: "products", entries: products.randomEntries(400, &rng), shards: 3),
                           InProcessCluster.Collection(name: "departments", entries: departments.randomEntries(250, &rng), shards: 2)]
            var settings = ClusterFile.Settings()
            settings.suggestDeadline = .seconds(5)
            settings.searchDeadline = .seconds(10)
            cluster = try InProcessCluster(collections: collections, replicas: 2, settings: settings)
            requests = Workload.suggestRequests(entries: collections.flatMap(\.entries), categories: products.categories + departments.categories,
                                                vocabulary: products.vocabulary + departments.vocabulary, count: 120, &rng)
        }
    }

    func decode<Message: ProtoMessage>(_ result: Result<[UInt8], GRPCStatus>?, as type: Message.Type,
                                       file: StaticString = #filePath, line: UInt = #line) throws -> Message {
        let bytes = try XCTUnwrap(result, "no answer", file: file, line: line).get()
        return try RPCMethod.decode(type, bytes[...])
    }

    func testEachCollectionAnswersAsOneNodeHoldingItsCatalog() throws {
        let fixture = try Fixture()
        let cluster = fixture.cluster
        var found = [0, 0]
        for (index, collection) in fixture.collections.enumerated() {
            let prefix = String(collection.name.prefix(1))
            for (number, request) in fixture.requests.enumerated() {
                var message = Typeahead_V1_SuggestRequest(request)
                // The default collection (products), asked by name and without one, alternately.
                message.collection = index == 0 && number % 2 == 0 ? "" : collection.name
                var answer = try decode(cluster.settle(cluster.suggest(message)), as: Typeahead_V1_SuggestResponse.self)
                XCTAssertEqual(answer.shards?.succeeded, UInt32(collection.shards), "\(collection.name): \(request)")
                XCTAssertTrue(answer.entries.allSatisfy { $0.id.hasPrefix(prefix) }, "only \(collection.name)'s entries: \(request)")
                var whole = try cluster.wholeSuggest(message, collection: index)
                answer.shards = nil
                whole.shards = nil
                XCTAssertEqual(answer, whole, "\(collection.name): \(request)")
                found[index] += answer.entries.count
            }
            // Searches, paged up to three pages: every page and page token as the whole node's.
            for request in fixture.requests.prefix(30) {
                var message = Typeahead_V1_SearchRequest(text: request.text, tokens: request.tokens.map(Typeahead_V1_SearchToken.init),
                                                         pageSize: 4, collection: collection.name)
                for _ in 0..<3 {
                    var answer = try decode(cluster.settle(cluster.search(message)), as: Typeahead_V1_SearchResponse.self)
                    var whole = try cluster.wholeSearch(message, collection: index)
                    XCTAssertEqual(answer.shards?.succeeded, UInt32(collection.shards))
                    XCTAssertTrue(answer.hits.allSatisfy { $0.id.hasPrefix(prefix) }, "only \(collection.name)'s hits")
                    answer.shards = nil
                    whole.shards = nil
                    XCTAssertEqual(answer, whole, "\(collection.name): \(message)")
                    guard !answer.nextPageToken.isEmpty else { break }
                    message.pageToken = answer.nextPageToken
                }
            }
        }
        XCTAssertGreaterThan(found[0], 300, "the keystrokes find products")
        XCTAssertGreaterThan(found[1], 300, "the keystrokes find departments")
    }

    /// A name the cluster does not have is NOT_FOUND, a name that breaks the rule
    /// INVALID_ARGUMENT, both before any shard is called.
    func testUnknownAndInvalidCollectionsAreRefused() throws {
        let fixture = try Fixture()
        let cluster = fixture.cluster
        func refusal(_ collection: String) -> GRPCStatus? {
            guard case .failure(let status)? = cluster.settle(cluster.suggest(Typeahead_V1_SuggestRequest(text: "a", collection: collection)))
            else { return nil }
            return status
        }
        XCTAssertEqual(refusal("people")?.code, .notFound)
        XCTAssertEqual(refusal("people")?.message, #"collection "people" is not served here (collections: products, departments)"#)
        XCTAssertEqual(refusal("Products")?.code, .invalidArgument)
        XCTAssertEqual(refusal("a/b")?.reason, CollectionName.invalidReason)
        let calls = cluster.onLoop { parts in parts.replicasByCollection.joined().joined().map(\.calls).reduce(0, +) }
        XCTAssertEqual(calls, 0, "nothing was sent to a shard")
    }

    /// Each collection pins its own generation, decided by its own replicas' Stats.
    func testEachCollectionIsRoutedByItsOwnCore() throws {
        let fixture = try Fixture()
        let cluster = fixture.cluster
        XCTAssertEqual(cluster.cores.map(\.collection), ["products", "departments"])
        XCTAssertEqual(cluster.cores.map(\.shardNames.count), [3, 2])
        let generations = cluster.onLoop { parts in parts.states.map(\.view.generation) }
        XCTAssertEqual(generations, [1, 1])
        // Only departments' shards are asked for a departments keystroke.
        let pending = cluster.suggest(Typeahead_V1_SuggestRequest(text: "ap", collection: "departments"))
        _ = cluster.settle(pending)
        let calls = cluster.onLoop { parts in parts.replicasByCollection.map { $0.joined().map(\.calls).reduce(0, +) } }
        XCTAssertEqual(calls, [0, 2])
    }

    /// A health check takes only Stats of the collection it asked for; a node older than
    /// collections (which ignores the field and names none) counts only for `default`.
    func testHealthChecksTakeOnlyTheirCollectionsStats() {
        XCTAssertTrue(ServedCollection.answers(Typeahead_V1_StatsResponse(collection: "products"), for: "products"))
        XCTAssertFalse(ServedCollection.answers(Typeahead_V1_StatsResponse(collection: "default"), for: "products"))
        XCTAssertTrue(ServedCollection.answers(Typeahead_V1_StatsResponse(), for: "default"))
        XCTAssertFalse(ServedCollection.answers(Typeahead_V1_StatsResponse(), for: "products"))
    }
}
