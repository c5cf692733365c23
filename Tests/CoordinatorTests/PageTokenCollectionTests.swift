@testable import Coordinator
@testable import Index
import RPC
import Wire
import WireConversions
import XCTest

/// A Search page token continues only the collection it was issued for: through the coordinator's
/// real query path in process (``ScopeFederationTests/Fixture``: `products`, the default, and
/// `departments`), a token sent with another collection, a scope, or no collection when the
/// default is another, is INVALID_ARGUMENT with reason PAGE_TOKEN_OTHER_COLLECTION before any
/// shard is asked; a token issued before tokens named their collection continues the default
/// only; and a scoped section pages on to its end by naming its collection, with an exact total.
final class PageTokenCollectionTests: XCTestCase {
    func search(_ cluster: InProcessCluster, _ message: Typeahead_V1_SearchRequest) -> Result<Typeahead_V1_SearchResponse, GRPCStatus>? {
        cluster.settle(cluster.search(message)).map { result in
            result.flatMap { bytes in Result { try RPCMethod.decode(Typeahead_V1_SearchResponse.self, bytes[...]) }.mapError(GRPCStatus.init(describing:)) }
        }
    }

    func refusal(_ result: Result<Typeahead_V1_SearchResponse, GRPCStatus>?) -> GRPCStatus? {
        guard case .failure(let status)? = result else { return nil }
        return status
    }

    func shardCalls(_ cluster: InProcessCluster) -> Int {
        cluster.onLoop { parts in parts.replicasByCollection.joined().joined().map(\.calls).reduce(0, +) }
    }

    func testATokenIsRefusedByAnotherCollectionAScopeAndAnotherDefault() throws {
        let cluster = try ScopeFederationTests.Fixture().cluster
        let first = try XCTUnwrap(search(cluster, Typeahead_V1_SearchRequest(text: "", pageSize: 5, collection: "departments"))).get()
        let token = first.nextPageToken
        XCTAssertFalse(token.isEmpty)
        let calls = shardCalls(cluster)

        // Another collection, and no collection (the default is products).
        for named in ["products", ""] {
            let refused = refusal(search(cluster, Typeahead_V1_SearchRequest(text: "", pageSize: 5, pageToken: token, collection: named)))
            XCTAssertEqual(refused?.code, .invalidArgument, named)
            XCTAssertEqual(refused?.reason, IndexError.Reason.pageTokenOtherCollection.rawValue)
            XCTAssertEqual(refused?.errorInfo?.metadata, ["issuedFor": "departments", "collection": "products"])
            XCTAssertEqual(refused?.message, #"pageToken was issued for collection "departments", not "products": send it with the "#
                                             + "collection whose answer issued it")
        }
        // A scope.
        let scoped = refusal(search(cluster, Typeahead_V1_SearchRequest(text: "", pageSize: 5, pageToken: token, scope: "all")))
        XCTAssertEqual(scoped?.code, .invalidArgument)
        XCTAssertEqual(scoped?.reason, IndexError.Reason.pageTokenOtherCollection.rawValue)
        XCTAssertEqual(scoped?.errorInfo?.metadata, ["issuedFor": "departments", "scope": "all"])
        XCTAssertTrue(scoped?.message.contains(#"(this one was issued for collection "departments")"#) ?? false, "\(String(describing: scoped))")
        XCTAssertEqual(shardCalls(cluster), calls, "refused before any shard was asked")

        // Its own collection continues it.
        let next = try XCTUnwrap(search(cluster, Typeahead_V1_SearchRequest(text: "", pageSize: 5, pageToken: token, collection: "departments"))).get()
        XCTAssertEqual(next.hits.count, 5)
        XCTAssertTrue(Set(next.hits.map(\.id)).isDisjoint(with: first.hits.map(\.id)))

        // The default's token continues it whether or not the request names it.
        let products = try XCTUnwrap(search(cluster, Typeahead_V1_SearchRequest(text: "", pageSize: 5))).get()
        let byName = try XCTUnwrap(search(cluster, Typeahead_V1_SearchRequest(text: "", pageSize: 5, pageToken: products.nextPageToken,
                                                                              collection: "products"))).get()
        let unnamed = try XCTUnwrap(search(cluster, Typeahead_V1_SearchRequest(text: "", pageSize: 5, pageToken: products.nextPageToken))).get()
        XCTAssertEqual(byName.hits, unnamed.hits)
        XCTAssertEqual(byName.nextPageToken, unnamed.nextPageToken)
    }

    /// A version 1 token (before tokens named their collection) continues the default collection,
    /// as it always did, and no other.
    func testATokenOfBeforeCollectionsContinuesTheDefaultOnly() throws {
        let cluster = try ScopeFederationTests.Fixture().cluster
        let first = try XCTUnwrap(search(cluster, Typeahead_V1_SearchRequest(text: "", pageSize: 5))).get()
        var old = try PageToken(decoding: first.nextPageToken)
        XCTAssertEqual(old.collection, "products")
        old.collection = nil
        let legacy = old.encoded()
        let current = try XCTUnwrap(search(cluster, Typeahead_V1_SearchRequest(text: "", pageSize: 5, pageToken: first.nextPageToken))).get()
        for named in ["", "products"] {
            let answer = try XCTUnwrap(search(cluster, Typeahead_V1_SearchRequest(text: "", pageSize: 5, pageToken: legacy, collection: named))).get()
            XCTAssertEqual(answer.hits, current.hits, named)
        }
        let refused = refusal(search(cluster, Typeahead_V1_SearchRequest(text: "", pageSize: 5, pageToken: legacy, collection: "departments")))
        XCTAssertEqual(refused?.code, .invalidArgument)
        XCTAssertEqual(refused?.reason, IndexError.Reason.pageTokenOtherCollection.rawValue)
        XCTAssertEqual(refused?.errorInfo?.metadata, ["collection": "departments"])
        XCTAssertTrue(refused?.message.contains("continues the default collection only") ?? false, "\(String(describing: refused))")
    }

    /// Each section of a scoped Search pages on by naming its collection, to its last page: every
    /// matching entry once, as many as the exact total, in the order of one node over the whole
    /// collection.
    func testASectionPagesToItsEndWithAnExactTotal() throws {
        let fixture = try ScopeFederationTests.Fixture()
        let cluster = fixture.cluster
        var walked = 0
        for text in ["", "a", "e"] {
            let scoped = try XCTUnwrap(search(cluster, Typeahead_V1_SearchRequest(text: text, pageSize: 7, scope: "all"))).get()
            for section in scoped.sections {
                let index = fixture.collections.firstIndex { $0.name == section.collection }!
                var ids = section.hits.map(\.id)
                var token = section.nextPageToken
                var pages = 1
                while !token.isEmpty {
                    let page = try XCTUnwrap(search(cluster, Typeahead_V1_SearchRequest(text: text, pageSize: 7, pageToken: token,
                                                                                        collection: section.collection))).get()
                    XCTAssertEqual(page.totalHits, section.totalHits, "the total stays exact on every page")
                    ids += page.hits.map(\.id)
                    token = page.nextPageToken
                    pages += 1
                    XCTAssertLessThan(pages, 100)
                }
                XCTAssertEqual(ids.count, Int(section.totalHits), "\(section.collection) \"\(text)\"")
                XCTAssertEqual(Set(ids).count, ids.count, "no hit twice")
                // One node over the whole collection, in pages of the most it gives.
                var whole: [String] = []
                var wholeToken = ""
                repeat {
                    let page = try cluster.wholeSearch(Typeahead_V1_SearchRequest(text: text, pageSize: 100, pageToken: wholeToken,
                                                                                  collection: section.collection), collection: index)
                    whole += page.hits.map(\.id)
                    wholeToken = page.nextPageToken
                } while !wholeToken.isEmpty
                XCTAssertEqual(ids, whole, "\(section.collection) \"\(text)\"")
                if pages > 2 { walked += 1 }
            }
        }
        XCTAssertGreaterThan(walked, 2, "sections walked over several pages")
    }
}
