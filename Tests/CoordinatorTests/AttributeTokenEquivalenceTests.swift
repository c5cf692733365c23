import Catalog
import Cluster
@testable import Coordinator
import Index
import RPC
import TestSupport
import Wire
import WireConversions
import XCTest

/// Attribute tokens and attribute chips through the coordinator's real query path in process
/// (``InProcessCluster``): a cluster whose shards declare `color` and `price` filterable answers
/// random Suggests and Searches with attribute tokens exactly as one node over the whole catalog
/// (chips of both kinds merged by the one chip order); an undeclared kind is refused as a node
/// refuses it; Describe lists the kinds from the coordinator and from a node.
final class AttributeTokenEquivalenceTests: XCTestCase {
    static let filterable = ["color", "price"]

    struct Fixture {
        let cluster: InProcessCluster
        let entries: [CatalogEntry]
        let requests: [SuggestRequest]

        init(seed: UInt64 = 0xA77_12) throws {
            var rng = SeededGenerator(seed: seed)
            var catalog = RandomCatalog(vocabularySize: 25, rng: &rng)
            var entries = catalog.randomEntries(300, &rng)
            // Colours from the vocabulary, on half the entries, so chips meet typed words.
            for index in entries.indices where rng.chance(0.5) { entries[index].attributes["color"] = catalog.randomWord(&rng) }
            self.entries = entries
            var settings = ClusterFile.Settings()
            settings.suggestDeadline = .seconds(5)
            settings.searchDeadline = .seconds(10)
            cluster = try InProcessCluster(entries: entries, shards: 3, replicas: 2, settings: settings,
                                           parameters: IndexParameters(filterableAttributes: AttributeTokenEquivalenceTests.filterable))
            requests = Workload.withAttributeTokens(Workload.suggestRequests(entries: entries, categories: catalog.categories,
                                                                             vocabulary: catalog.vocabulary, count: 200, &rng),
                                                    entries: entries, kinds: AttributeTokenEquivalenceTests.filterable, &rng)
        }
    }

    func decode<Message: ProtoMessage>(_ result: Result<[UInt8], GRPCStatus>?, as type: Message.Type,
                                       file: StaticString = #filePath, line: UInt = #line) throws -> Message {
        let bytes = try XCTUnwrap(result, "no answer", file: file, line: line).get()
        return try RPCMethod.decode(type, bytes[...])
    }

    func testTheClusterAnswersAsOneNodeWithAttributeTokens() throws {
        let fixture = try Fixture()
        let cluster = fixture.cluster
        var attributeChips = 0, mixedLists = 0, filtered = 0
        for request in fixture.requests {
            var limited = request
            limited.limits.categories = max(limited.limits.categories, 6)
            let message = Typeahead_V1_SuggestRequest(limited)
            var answer = try decode(cluster.settle(cluster.suggest(message)), as: Typeahead_V1_SuggestResponse.self)
            var whole = try cluster.wholeSuggest(message)
            XCTAssertEqual(answer.shards?.succeeded, 3, "\(limited)")
            answer.shards = nil
            whole.shards = nil
            XCTAssertEqual(answer, whole, "\(limited)")
            let kinds = Set(answer.categories.compactMap { $0.token?.kind })
            attributeChips += answer.categories.filter { $0.token?.kind != "category" }.count
            if kinds.count > 1 { mixedLists += 1 }
            if limited.tokens.contains(where: { !$0.kind.isCategory }), !answer.entries.isEmpty { filtered += 1 }
        }
        XCTAssertGreaterThan(attributeChips, 30, "attribute chips were offered")
        XCTAssertGreaterThan(mixedLists, 5, "some chip lists hold both kinds")
        XCTAssertGreaterThan(filtered, 10, "attribute tokens kept some entries")
        var rng = SeededGenerator(seed: 7)
        for request in Workload.searchRequests(from: Array(fixture.requests.prefix(40)), &rng) {
            let message = Typeahead_V1_SearchRequest(request)
            var answer = try decode(cluster.settle(cluster.search(message)), as: Typeahead_V1_SearchResponse.self)
            var whole = try cluster.wholeSearch(message)
            answer.shards = nil
            whole.shards = nil
            XCTAssertEqual(answer, whole, "\(request)")
        }
    }

    func testAnUndeclaredKindIsRefused() throws {
        let fixture = try Fixture()
        let cluster = fixture.cluster
        let token = Typeahead_V1_SearchToken(kind: "size", value: "m")
        let suggest = cluster.settle(cluster.suggest(Typeahead_V1_SuggestRequest(text: "a", tokens: [token])))
        guard case .failure(let status)? = suggest else { return XCTFail("expected a refusal, got \(String(describing: suggest))") }
        XCTAssertEqual(status.code, .invalidArgument)
        XCTAssertTrue(status.message.contains("\"size\" is not a token kind of this collection"), status.message)
        XCTAssertThrowsError(try cluster.wholeSuggest(Typeahead_V1_SuggestRequest(text: "a", tokens: [token]))) {
            XCTAssertEqual(($0 as? GRPCStatus)?.code, .invalidArgument)
        }
        let search = cluster.settle(cluster.search(Typeahead_V1_SearchRequest(text: "a", tokens: [token])))
        guard case .failure(let searchStatus)? = search else { return XCTFail("expected a refusal, got \(String(describing: search))") }
        XCTAssertEqual(searchStatus.code, .invalidArgument)
        // A kind that breaks the name rule is refused before any shard is asked.
        let bad = cluster.settle(cluster.suggest(Typeahead_V1_SuggestRequest(text: "a", tokens: [Typeahead_V1_SearchToken(kind: "Color", value: "x")])))
        guard case .failure(let badStatus)? = bad else { return XCTFail("expected a refusal") }
        XCTAssertEqual(badStatus.code, .invalidArgument)
    }

    func testDescribeListsTheKinds() throws {
        let fixture = try Fixture()
        let cluster = fixture.cluster
        let coordinator = InProcessTransport(methods: cluster.dispatch.typeaheadMethods)
        let described = try InProcessCluster.wait {
            coordinator.call(Typeahead_V1_TypeaheadService.describe, Typeahead_V1_DescribeRequest(), on: cluster.loop, reply: $0)
        }
        XCTAssertEqual(described.collections.map(\.tokenKinds), [["category", "color", "price"]])
        let node = try InProcessCluster.wait {
            cluster.shardTransports[0].call(Typeahead_V1_TypeaheadService.describe, Typeahead_V1_DescribeRequest(), on: cluster.loop, reply: $0)
        }
        XCTAssertEqual(node.collections.map(\.tokenKinds), [["category", "color", "price"]])
    }
}
