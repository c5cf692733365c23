@testable import Coordinator
import Index
import RPC
import Wire
import WireConversions
import XCTest

/// A scope's collection that fails as a whole (every replica of every shard of it fails, or none
/// answers in time) is an empty section saying why, while the other collections answer as they
/// would alone and the merged completions come from them; `require_all_shards` still fails the
/// call, naming the collection; a scope all of whose collections fail fails as before. Through the
/// coordinator's real query path in process (``ScopeFederationTests/Fixture``).
final class ScopePartialTests: XCTestCase {
    /// The fixture with every replica of `departments` (shards 0 and 1) given `behaviour`.
    func fixture(departments behaviour: @escaping @Sendable () -> InProcessReplica.Behaviour) throws -> ScopeFederationTests.Fixture {
        let fixture = try ScopeFederationTests.Fixture()
        let index = fixture.collections.firstIndex { $0.name == "departments" }!
        fixture.cluster.onLoop { parts in
            for replica in parts.replicasByCollection[index].joined() { replica.behaviour = behaviour }
        }
        return fixture
    }

    static let refused = GRPCStatus(.unavailable, "connection refused")

    func answer<Message: ProtoMessage>(_ result: Result<[UInt8], GRPCStatus>?, as type: Message.Type,
                                       file: StaticString = #filePath, line: UInt = #line) throws -> Message {
        try RPCMethod.decode(type, XCTUnwrap(result, "no answer", file: file, line: line).get()[...])
    }

    func failure(_ result: Result<[UInt8], GRPCStatus>?) -> GRPCStatus? {
        guard case .failure(let status)? = result else { return nil }
        return status
    }

    /// What a failed section of `departments` (2 shards) says.
    func checkFailed(_ shards: Typeahead_V1_ShardStatus?, _ error: Typeahead_V1_SectionError?, code: String,
                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(shards, Typeahead_V1_ShardStatus(total: 2, succeeded: 0, failed: 2, failedShards: ["shard-0", "shard-1"], generation: 0),
                       file: file, line: line)
        XCTAssertEqual(error?.code, code, file: file, line: line)
        XCTAssertTrue(error?.message.hasPrefix("no shard answered (shard-0, shard-1)") ?? false, "\(String(describing: error))",
                      file: file, line: line)
    }

    func testAFailedCollectionIsAnEmptySuggestSection() throws {
        let fixture = try fixture(departments: { .fail(Self.refused, after: .zero) })
        let cluster = fixture.cluster
        var completed = 0
        for request in (fixture.requests + fixture.shortRequests).prefix(60) {
            var message = Typeahead_V1_SuggestRequest(request)
            message.scope = "all"
            let answer = try answer(cluster.settle(cluster.suggest(message)), as: Typeahead_V1_SuggestResponse.self)
            XCTAssertEqual(answer.sections.map(\.collection), ["departments", "products"])
            let failed = answer.sections[0], products = answer.sections[1]
            XCTAssertEqual(failed.entries, [])
            XCTAssertEqual(failed.categories, [])
            XCTAssertEqual(failed.completions, [])
            checkFailed(failed.shards, failed.error, code: "unavailable")
            XCTAssertTrue(failed.error?.message.contains("connection refused") ?? false)

            message.scope = ""
            let whole = try cluster.wholeSuggest(message, collection: 0)
            XCTAssertEqual(products.entries, whole.entries, "\(request)")
            XCTAssertEqual(products.categories, whole.categories, "\(request)")
            XCTAssertEqual(products.completions, whole.completions, "\(request)")
            XCTAssertNil(products.error)
            XCTAssertEqual(products.shards?.succeeded, 3)
            // The merged completions are the answering section's alone.
            XCTAssertEqual(answer.completions, products.completions, "\(request)")
            completed += answer.completions.count
        }
        XCTAssertGreaterThan(completed, 20, "the merged completions were compared")

        // The JSON form says why, in the section.
        var message = Typeahead_V1_SuggestRequest(text: "a", scope: "all")
        let answer = try answer(cluster.settle(cluster.suggest(message)), as: Typeahead_V1_SuggestResponse.self)
        let json = String(decoding: ResponseJSON.suggest(answer), as: UTF8.self)
        XCTAssertTrue(json.contains(#""error":{"code":"unavailable","message":"no shard answered (shard-0, shard-1)"#), json)

        // Requiring every shard fails the call, naming the collection.
        message.requireAllShards = true
        let required = failure(cluster.settle(cluster.suggest(message)))
        XCTAssertEqual(required?.code, .unavailable)
        XCTAssertTrue(required?.message.hasPrefix(#"collection "departments": no shard answered"#) ?? false, "\(String(describing: required))")
    }

    func testAFailedCollectionIsAnEmptySearchSection() throws {
        let fixture = try fixture(departments: { .fail(Self.refused, after: .zero) })
        let cluster = fixture.cluster
        var hits = 0
        for request in fixture.requests.prefix(30) {
            let tokens = request.tokens.map(Typeahead_V1_SearchToken.init)
            var message = Typeahead_V1_SearchRequest(text: request.text, tokens: tokens, pageSize: 4, scope: "all")
            let answer = try answer(cluster.settle(cluster.search(message)), as: Typeahead_V1_SearchResponse.self)
            XCTAssertEqual(answer.sections.map(\.collection), ["departments", "products"])
            let failed = answer.sections[0], products = answer.sections[1]
            XCTAssertEqual(failed.hits, [])
            XCTAssertEqual(failed.totalHits, 0)
            XCTAssertEqual(failed.nextPageToken, "")
            checkFailed(failed.shards, failed.error, code: "unavailable")

            message.scope = ""
            message.collection = "products"
            let whole = try cluster.wholeSearch(message, collection: 0)
            XCTAssertEqual(products.hits, whole.hits, "\(request)")
            XCTAssertEqual(products.totalHits, whole.totalHits)
            XCTAssertEqual(products.facets, whole.facets)
            XCTAssertEqual(products.nextPageToken, whole.nextPageToken)
            XCTAssertNil(products.error)
            hits += products.hits.count

            message.collection = ""
            message.scope = "all"
            message.requireAllShards = true
            let required = failure(cluster.settle(cluster.search(message)))
            XCTAssertEqual(required?.code, .unavailable)
            XCTAssertTrue(required?.message.hasPrefix(#"collection "departments": no shard answered"#) ?? false, "\(String(describing: required))")
        }
        XCTAssertGreaterThan(hits, 20)
    }

    /// A collection none of whose shards answers in time: its section says DEADLINE_EXCEEDED, and
    /// the others wait for nothing more than they would alone.
    func testASilentCollectionIsAnEmptySectionAtTheDeadline() throws {
        let fixture = try fixture(departments: { .silent })
        let cluster = fixture.cluster
        let pending = cluster.suggest(Typeahead_V1_SuggestRequest(text: "a", scope: "all"), timeout: .seconds(1))
        cluster.advance(by: .seconds(2))
        let answer = try answer(cluster.settle(pending), as: Typeahead_V1_SuggestResponse.self)
        checkFailed(answer.sections[0].shards, answer.sections[0].error, code: "deadline_exceeded")
        XCTAssertEqual(answer.sections[1].shards?.succeeded, 3)
        XCTAssertEqual(answer.completions, answer.sections[1].completions)
    }

    /// When every collection fails, the call fails with the first one's failure (scope order).
    func testEveryCollectionFailedFailsTheCall() throws {
        let fixture = try ScopeFederationTests.Fixture()
        let cluster = fixture.cluster
        cluster.onLoop { parts in
            for replica in parts.replicasByCollection.joined().joined() { replica.behaviour = { .fail(Self.refused, after: .zero) } }
        }
        let suggest = failure(cluster.settle(cluster.suggest(Typeahead_V1_SuggestRequest(text: "a", scope: "all"))))
        XCTAssertEqual(suggest?.code, .unavailable)
        XCTAssertTrue(suggest?.message.hasPrefix(#"collection "departments": no shard answered"#) ?? false, "\(String(describing: suggest))")
        let search = failure(cluster.settle(cluster.search(Typeahead_V1_SearchRequest(text: "a", scope: "all"))))
        XCTAssertEqual(search?.code, .unavailable)
        // A scope of the failed collection alone, likewise.
        XCTAssertEqual(failure(cluster.settle(cluster.suggest(Typeahead_V1_SuggestRequest(text: "a", scope: "garden"))))?.code, .unavailable)
    }
}
