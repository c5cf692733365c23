import Catalog
import Cluster
@testable import Coordinator
import Index
import RPC
import TestSupport
import Wire
import WireConversions
import XCTest

/// Scopes (issue 13): a scoped Suggest or Search through the coordinator's real query path in
/// process (``InProcessCluster``: two collections of 3 and 2 shards × 2 replicas) answers one
/// section per collection of the scope, each equal to one node over that collection's whole
/// catalog; a Suggest's top-level completions equal a brute-force merge of every collection's
/// completions (all of them, sorted by the completion order, one per word, cut to the limit);
/// a scope's tokens are forced; Describe lists scopes and collections; the refusals.
final class ScopeFederationTests: XCTestCase {
    struct Fixture {
        let cluster: InProcessCluster
        let collections: [InProcessCluster.Collection]
        let requests: [SuggestRequest]
        /// One or two letters of a word of either catalog: words from both collections compete.
        let shortRequests: [SuggestRequest]
        /// The category the `garden` scope forces.
        let forced: String

        init(seed: UInt64 = 0x5C0_9E5) throws {
            var rng = SeededGenerator(seed: seed)
            var products = RandomCatalog(vocabularySize: 30, rng: &rng, idPrefix: "p")
            var departments = RandomCatalog(vocabularySize: 30, rng: &rng, idPrefix: "d")
            collections = [InProcessCluster.Collection(name: "products", entries: products.randomEntries(400, &rng), shards: 3),
                           InProcessCluster.Collection(name: "departments", entries: departments.randomEntries(250, &rng), shards: 2)]
            // The most common category of products, so the forced token leaves answers to compare.
            let counts = Dictionary(collections[0].entries.flatMap(\.categories).map { ($0, 1) }, uniquingKeysWith: +)
            forced = counts.max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }!.key
            var settings = ClusterFile.Settings()
            settings.suggestDeadline = .seconds(5)
            settings.searchDeadline = .seconds(10)
            // Sections in the scope's order, not the cluster's.
            let scopes = [ClusterFile.Scope(name: "all", label: "All", prompt: "Departments and products",
                                            collections: ["departments", "products"]),
                          ClusterFile.Scope(name: "garden", label: "Garden", prompt: "Search the garden", collections: ["products"],
                                            tokens: [Typeahead_V1_SearchToken(kind: "category", value: forced)])]
            cluster = try InProcessCluster(collections: collections, replicas: 2, settings: settings, scopes: scopes)
            requests = Workload.suggestRequests(entries: collections.flatMap(\.entries), categories: products.categories + departments.categories,
                                                vocabulary: products.vocabulary + departments.vocabulary, count: 100, &rng)
            let prefixes = Set((products.vocabulary + departments.vocabulary).flatMap { word in [String(word.prefix(1)), String(word.prefix(2))] })
            shortRequests = prefixes.sorted().map { SuggestRequest(text: $0) }
        }
    }

    func decode<Message: ProtoMessage>(_ result: Result<[UInt8], GRPCStatus>?, as type: Message.Type,
                                       file: StaticString = #filePath, line: UInt = #line) throws -> Message {
        let bytes = try XCTUnwrap(result, "no answer", file: file, line: line).get()
        return try RPCMethod.decode(type, bytes[...])
    }

    func refusal(_ result: Result<[UInt8], GRPCStatus>?) -> GRPCStatus? {
        guard case .failure(let status)? = result else { return nil }
        return status
    }

    /// Every completion of `request`'s partial word in `shard` (the limit at its most), as facts.
    func allCompletions(_ request: SuggestRequest, _ shard: Shard) throws -> [QueryCompletion] {
        var request = request
        request.limits = SuggestLimits(entries: 0, categories: 0, completions: 100)
        return try shard.suggest(request).completions
    }

    func testScopedSuggestIsEachCollectionsAnswerAndMergesCompletions() throws {
        let fixture = try Fixture()
        let cluster = fixture.cluster
        var fromBoth = 0
        for request in fixture.requests + fixture.shortRequests {
            var message = Typeahead_V1_SuggestRequest(request)
            message.scope = "all"
            message.session = "s"
            message.revision = 7
            let answer = try decode(cluster.settle(cluster.suggest(message)), as: Typeahead_V1_SuggestResponse.self)
            XCTAssertEqual(answer.sections.map(\.collection), ["departments", "products"])
            XCTAssertEqual(answer.entries, [], "a scoped answer's entries are its sections'")
            XCTAssertEqual(answer.categories, [])
            XCTAssertNil(answer.shards)
            XCTAssertEqual(answer.session, "s")
            XCTAssertEqual(answer.revision, 7)
            for section in answer.sections {
                let index = fixture.collections.firstIndex { $0.name == section.collection }!
                message.scope = ""
                let whole = try cluster.wholeSuggest(message, collection: index)
                message.scope = "all"
                XCTAssertEqual(section.entries, whole.entries, "\(section.collection): \(request)")
                XCTAssertEqual(section.categories, whole.categories, "\(section.collection): \(request)")
                XCTAssertEqual(section.completions, whole.completions, "\(section.collection): \(request)")
                XCTAssertEqual(section.shards?.succeeded, UInt32(fixture.collections[index].shards))
            }
            // Brute force: all completions of both catalogs, in completion order, a word once.
            var all = try fixture.cluster.wholeShards.flatMap { try allCompletions(request, $0) }
            all.sort { a, b in
                if a.typos != b.typos { return a.typos < b.typos }
                if a.best != b.best { return a.best < b.best }
                return a.term.utf8.lexicographicallyPrecedes(b.term.utf8)
            }
            var expected: [QueryCompletion] = []
            for completion in all where !expected.contains(where: { Array($0.term.utf8) == Array(completion.term.utf8) }) {
                expected.append(completion)
            }
            expected = Array(expected.prefix(request.limits.completions))
            XCTAssertEqual(answer.completions.map(\.text), expected.map(\.text), "\(request)")
            // Neither section alone holds the merged list: it takes words from both.
            if answer.sections.allSatisfy({ section in !answer.completions.allSatisfy(section.completions.contains) }) { fromBoth += 1 }
        }
        XCTAssertGreaterThan(fromBoth, 5, "some merged completions come from both collections")
    }

    func testScopedSearchIsEachCollectionsFirstPageAndSectionsPageOn() throws {
        let fixture = try Fixture()
        let cluster = fixture.cluster
        var paged = 0
        for request in fixture.requests.prefix(30) {
            let tokens = request.tokens.map(Typeahead_V1_SearchToken.init)
            let answer = try decode(cluster.settle(cluster.search(Typeahead_V1_SearchRequest(text: request.text, tokens: tokens, pageSize: 4,
                                                                                             scope: "all"))),
                                    as: Typeahead_V1_SearchResponse.self)
            XCTAssertEqual(answer.sections.map(\.collection), ["departments", "products"])
            XCTAssertEqual(answer.hits, [])
            XCTAssertEqual(answer.totalHits, 0)
            XCTAssertNil(answer.shards)
            for section in answer.sections {
                let index = fixture.collections.firstIndex { $0.name == section.collection }!
                var message = Typeahead_V1_SearchRequest(text: request.text, tokens: tokens, pageSize: 4, collection: section.collection)
                let whole = try cluster.wholeSearch(message, collection: index)
                XCTAssertEqual(section.hits, whole.hits, "\(section.collection): \(request)")
                XCTAssertEqual(section.totalHits, whole.totalHits)
                XCTAssertEqual(section.facets, whole.facets)
                XCTAssertEqual(section.nextPageToken, whole.nextPageToken)
                XCTAssertEqual(section.shards?.succeeded, UInt32(fixture.collections[index].shards))
                guard !section.nextPageToken.isEmpty else { continue }
                // The section's next page: a Search naming its collection with its token.
                message.pageToken = section.nextPageToken
                var next = try decode(cluster.settle(cluster.search(message)), as: Typeahead_V1_SearchResponse.self)
                var wholeNext = try cluster.wholeSearch(message, collection: index)
                next.shards = nil
                wholeNext.shards = nil
                XCTAssertEqual(next, wholeNext)
                paged += 1
            }
        }
        XCTAssertGreaterThan(paged, 3)
    }

    func testScopeTokensAreForcedOnEveryCollection() throws {
        let fixture = try Fixture()
        let cluster = fixture.cluster
        let forced = Typeahead_V1_SearchToken(kind: "category", value: fixture.forced)
        var found = 0
        for request in fixture.requests.prefix(40) {
            var message = Typeahead_V1_SuggestRequest(request)
            message.scope = "garden"
            let answer = try decode(cluster.settle(cluster.suggest(message)), as: Typeahead_V1_SuggestResponse.self)
            XCTAssertEqual(answer.sections.map(\.collection), ["products"])
            message.scope = ""
            message.tokens.append(forced)
            let whole = try cluster.wholeSuggest(message, collection: 0)
            XCTAssertEqual(answer.sections[0].entries, whole.entries, "\(request)")
            XCTAssertEqual(answer.sections[0].categories, whole.categories, "\(request)")
            XCTAssertTrue(answer.sections[0].entries.allSatisfy { $0.categories.contains(fixture.forced) })
            found += answer.sections[0].entries.count
        }
        XCTAssertGreaterThan(found, 20)
        let search = try decode(cluster.settle(cluster.search(Typeahead_V1_SearchRequest(text: "", pageSize: 100, scope: "garden"))),
                                as: Typeahead_V1_SearchResponse.self)
        XCTAssertEqual(Int(search.sections[0].totalHits), fixture.collections[0].entries.filter { $0.categories.contains(fixture.forced) }.count)
    }

    func testRefusals() throws {
        let fixture = try Fixture()
        let cluster = fixture.cluster
        let unknown = refusal(cluster.settle(cluster.suggest(Typeahead_V1_SuggestRequest(text: "a", scope: "people"))))
        XCTAssertEqual(unknown?.code, .notFound)
        XCTAssertEqual(unknown?.reason, ScopeReason.notFound)
        XCTAssertEqual(unknown?.message, #"scope "people" is not declared by this cluster (scopes: all, garden)"#)
        let paged = refusal(cluster.settle(cluster.search(Typeahead_V1_SearchRequest(text: "a", pageToken: "x", scope: "all"))))
        XCTAssertEqual(paged?.code, .invalidArgument)
        XCTAssertEqual(refusal(cluster.settle(cluster.search(Typeahead_V1_SearchRequest(text: "a", scope: "nope"))))?.code, .notFound)
        let calls = cluster.onLoop { parts in parts.replicasByCollection.joined().joined().map(\.calls).reduce(0, +) }
        XCTAssertEqual(calls, 0, "nothing was sent to a shard")

        // Through the registration every server shares: collection and scope together, a bad scope name.
        let transport = InProcessTransport(methods: cluster.dispatch.typeaheadMethods)
        func viaMethods(_ message: Typeahead_V1_SuggestRequest) -> GRPCStatus? {
            do {
                _ = try InProcessCluster.wait { transport.call(Typeahead_V1_TypeaheadService.suggest, message, on: cluster.loop, reply: $0) }
                return nil
            } catch { return error as? GRPCStatus }
        }
        let both = viaMethods(Typeahead_V1_SuggestRequest(text: "a", collection: "products", scope: "all"))
        XCTAssertEqual(both?.code, .invalidArgument)
        XCTAssertEqual(both?.reason, ScopeReason.collectionAndScope)
        XCTAssertEqual(viaMethods(Typeahead_V1_SuggestRequest(text: "a", scope: "All"))?.code, .invalidArgument)
        let bothSearch: GRPCStatus?
        do {
            _ = try InProcessCluster.wait {
                transport.call(Typeahead_V1_TypeaheadService.search, Typeahead_V1_SearchRequest(text: "a", collection: "products", scope: "all"),
                               on: cluster.loop, reply: $0)
            }
            bothSearch = nil
        } catch { bothSearch = error as? GRPCStatus }
        XCTAssertEqual(bothSearch?.reason, ScopeReason.collectionAndScope)

        // A node serves no scope, whatever it is asked.
        for scope in ["all", "anything"] {
            do {
                _ = try InProcessCluster.wait {
                    cluster.shardTransports[0].call(Typeahead_V1_TypeaheadService.suggest, Typeahead_V1_SuggestRequest(text: "a", scope: scope),
                                                    on: cluster.loop, reply: $0)
                }
                XCTFail("a node answered a scoped request")
            } catch let status as GRPCStatus {
                XCTAssertEqual(status.code, .invalidArgument)
                XCTAssertEqual(status.reason, ScopeReason.notServedByNode)
                XCTAssertTrue(status.message.contains("ask the coordinator"), status.message)
            }
            XCTAssertThrowsError(try InProcessCluster.wait {
                cluster.shardTransports[0].call(Typeahead_V1_TypeaheadService.search, Typeahead_V1_SearchRequest(text: "a", scope: scope),
                                                on: cluster.loop, reply: $0)
            }) { XCTAssertEqual(($0 as? GRPCStatus)?.reason, ScopeReason.notServedByNode) }
        }
    }

    func testDescribeFromCoordinatorAndNode() throws {
        let fixture = try Fixture()
        let cluster = fixture.cluster
        let transport = InProcessTransport(methods: cluster.dispatch.typeaheadMethods)
        let described = try InProcessCluster.wait {
            transport.call(Typeahead_V1_TypeaheadService.describe, Typeahead_V1_DescribeRequest(), on: cluster.loop, reply: $0)
        }
        XCTAssertEqual(described.scopes.map(\.name), ["all", "garden"])
        XCTAssertEqual(described.scopes[0], Typeahead_V1_ScopeDescription(name: "all", label: "All", prompt: "Departments and products",
                                                                         collections: ["departments", "products"]))
        XCTAssertEqual(described.scopes[1].tokens, [Typeahead_V1_SearchToken(kind: "category", value: fixture.forced)])
        XCTAssertEqual(described.collections, [
            Typeahead_V1_CollectionDescription(name: "products", entries: 400, tokenKinds: ["category"]),
            Typeahead_V1_CollectionDescription(name: "departments", entries: 250, tokenKinds: ["category"]),
        ])
        XCTAssertEqual(described.defaultCollection, "products")
        XCTAssertEqual(described.defaultPrompt, "Search")

        // A node: its collections (the default first) with its shard's counts, no scopes.
        let node = try InProcessCluster.wait {
            cluster.shardTransports[1].call(Typeahead_V1_TypeaheadService.describe, Typeahead_V1_DescribeRequest(), on: cluster.loop, reply: $0)
        }
        let expected = fixture.collections.map { collection in
            collection.entries.filter { ShardAssignment.shard(of: $0.id, shardCount: collection.shards) == 1 }.count
        }
        XCTAssertEqual(node.scopes, [])
        XCTAssertEqual(node.collections.map(\.name), ["products", "departments"])
        XCTAssertEqual(node.collections.map(\.entries), expected.map(UInt64.init))
        XCTAssertEqual(node.defaultCollection, "products")
        XCTAssertEqual(node.defaultPrompt, "Search")
    }
}
