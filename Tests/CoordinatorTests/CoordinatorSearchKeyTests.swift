import Catalog
import Foundation
import Wire
import XCTest

/// A coordinator that accepts search keys forces each key's tokens onto the query before it fans
/// out (the shards are called with the node token, never the key): a keyed call answers exactly
/// what the same call with the key's tokens added answers, and nothing outside them.
final class CoordinatorSearchKeyTests: XCTestCase {
    let secret = Array("coordinator-search-key-secret-0123456789".utf8)

    func testAKeyedCallAnswersExactlyTheCallWithTheKeysTokens() async throws {
        let (entries, generator) = CoordinatorServerTests.catalog(300, seed: 0x5EA1)
        let cluster = try TestCluster(entries: entries, shards: 3, replicas: 1, searchKeySecrets: [secret])
        defer { cluster.shutdown() }
        let tenant = try XCTUnwrap(generator.categories.first { category in entries.filter { $0.categories.contains(category) }.count >= 20 })
        let key = SearchKey(tokens: [.init(kind: "category", value: tenant)], expires: Int64(Date().timeIntervalSince1970) + 600,
                            label: "tenant").signed(with: secret)
        var compared = 0
        for entry in entries.prefix(40) {
            for end in [2, 4, entry.title.count] where end <= entry.title.count {
                let text = String(entry.title.prefix(end))
                let keyed = try await cluster.suggest(Typeahead_V1_SuggestRequest(text: text), bearer: key)
                var explicit = Typeahead_V1_SuggestRequest(text: text)
                explicit.tokens = [.init(kind: "category", value: tenant)]
                let expected = try await cluster.suggest(explicit)
                XCTAssertEqual(CoordinatorServerTests.withoutShards(keyed), CoordinatorServerTests.withoutShards(expected), text)
                XCTAssertTrue(keyed.entries.allSatisfy { $0.categories.contains(tenant) }, text)
                let keyedSearch = try await cluster.search(Typeahead_V1_SearchRequest(text: text, pageSize: 50), bearer: key)
                XCTAssertTrue(keyedSearch.hits.allSatisfy { $0.categories.contains(tenant) }, text)
                XCTAssertEqual(Int(keyedSearch.facets.first { $0.name == tenant }?.count ?? 0), Int(keyedSearch.totalHits), text)
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 60)
        // The request cannot widen the key: asking for another category gives the intersection.
        let other = try XCTUnwrap(generator.categories.first { $0 != tenant })
        var wider = Typeahead_V1_SearchRequest(text: "", pageSize: 100)
        wider.tokens = [.init(kind: "category", value: other)]
        let both = try await cluster.search(wider, bearer: key)
        XCTAssertTrue(both.hits.allSatisfy { $0.categories.contains(tenant) && $0.categories.contains(other) })
        XCTAssertEqual(Int(both.totalHits), entries.filter { $0.categories.contains(tenant) && $0.categories.contains(other) }.count)
        // An expired key is refused.
        let expired = SearchKey(tokens: [], expires: Int64(Date().timeIntervalSince1970) - 1).signed(with: secret)
        do {
            _ = try await cluster.suggest(Typeahead_V1_SuggestRequest(text: "a"), bearer: expired)
            XCTFail("an expired key was accepted")
        } catch let status as GRPCStatus {
            XCTAssertEqual(status.reason, "SEARCH_KEY_EXPIRED")
        }
    }
}
