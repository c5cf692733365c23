import Cluster
import Foundation
import Launcher
import TestSupport
import TypeaheadClient
import XCTest

/// `TypeaheadClient`'s `describe()` and the `collection` and `scope` request fields against a real
/// local cluster serving the sample as `typeahead local` does by default (products, departments,
/// the scope `all`).
final class ScopedClientTests: XCTestCase {
    nonisolated(unsafe) static var sample: SampleCluster?

    var client: TypeaheadClient { TypeaheadClient(baseURL: Self.sample!.baseURL) }

    override func setUp() async throws {
        try SampleCluster.skipUnlessBuilt()
        if Self.sample == nil { Self.sample = try await SampleCluster.start("typeahead-client-scopes", scoped: true) }
    }

    override class func tearDown() {
        sample?.stop()
        sample = nil
    }

    func testDescribeListsTheScopeAndCollections() async throws {
        let offered = try await client.describe()
        XCTAssertEqual(offered.scopes.map(\.name), ["all"])
        XCTAssertEqual(offered.scopes.first?.label, "All")
        XCTAssertEqual(offered.scopes.first?.prompt, "Departments and products")
        XCTAssertEqual(offered.scopes.first?.collections, ["departments", "products"])
        XCTAssertEqual(offered.collections.map(\.name), ["products", "departments"])
        XCTAssertEqual(offered.collections.first?.entries, 1600)
        XCTAssertEqual(offered.collections.first?.tokenKinds, ["category"])
        XCTAssertEqual(offered.defaultCollection, "products")
        XCTAssertEqual(offered.defaultPrompt, "Search")
    }

    func testScopesAndCollectionsChangeWhatIsSearched() async throws {
        let unnamed = try await client.suggest(SuggestRequest(text: "gar"))
        let products = try await client.suggest(SuggestRequest(text: "gar", collection: "products"))
        XCTAssertEqual(unnamed.entries, products.entries, "the default collection is products")
        let departments = try await client.suggest(SuggestRequest(text: "gar", collection: "departments"))
        XCTAssertEqual(departments.entries.first?.title, "Garden")
        let scoped = try await client.suggest(SuggestRequest(text: "gar", scope: "all"))
        XCTAssertEqual(scoped.sections.map(\.collection), ["departments", "products"])
        XCTAssertEqual(scoped.sections.map(\.entries), [departments.entries, products.entries])
        XCTAssertEqual(scoped.entries, [])
        XCTAssertFalse(scoped.completions.isEmpty)

        let search = try await client.search(SearchRequest(text: "garden", pageSize: 3, scope: "all"))
        XCTAssertEqual(search.sections.map(\.collection), ["departments", "products"])
        let section = try XCTUnwrap(search.sections.last)
        let direct = try await client.search(SearchRequest(text: "garden", pageSize: 3, collection: "products"))
        XCTAssertEqual(section.hits, direct.hits)
        XCTAssertEqual(section.totalHits, direct.totalHits)
        // A section pages on with a request naming its collection.
        let next = try await client.search(SearchRequest(text: "garden", pageSize: 3, pageToken: section.nextPageToken, collection: "products"))
        let directNext = try await client.search(SearchRequest(text: "garden", pageSize: 3, pageToken: direct.nextPageToken, collection: "products"))
        XCTAssertEqual(next.hits, directNext.hits)

        do {
            _ = try await client.suggest(SuggestRequest(text: "gar", collection: "products", scope: "all"))
            XCTFail("a collection and a scope together were answered")
        } catch {
            guard case .server(400, "invalid_argument", _) = error else { return XCTFail("\(error)") }
        }
    }

    /// `SearchModel` with scopes, as `.searchScopes` drives it: `describe()` picks the first scope
    /// and its prompt; a scoped keystroke shows the server's sections; no scope is the default
    /// collection again; a scoped submit gives each collection's first page and pages one on.
    @MainActor
    func testTheModelSearchesThePickedScope() async throws {
        let model = SearchModel(client: client)
        XCTAssertEqual(model.prompt, "Search")
        await model.describe()
        XCTAssertNil(model.error)
        XCTAssertEqual(model.scopes.map(\.name), ["all"])
        XCTAssertEqual(model.scope?.name, "all")
        XCTAssertEqual(model.prompt, "Departments and products")

        model.text = "gar"
        await model.settled()
        let scoped = try await client.suggest(SuggestRequest(text: "gar", scope: "all"))
        XCTAssertEqual(model.suggestions.sections.map(\.collection), ["departments", "products"])
        XCTAssertEqual(model.suggestions.sections.map(\.entries), scoped.sections.map(\.entries))
        XCTAssertEqual(model.suggestions.completions, scoped.completions)
        XCTAssertEqual(model.suggestions.entries, [])

        model.scope = nil
        await model.settled()
        XCTAssertEqual(model.prompt, "Search")
        let unscoped = try await client.suggest(SuggestRequest(text: "gar"))
        XCTAssertEqual(model.suggestions.sections, [])
        XCTAssertEqual(model.suggestions.entries, unscoped.entries)

        model.scope = model.scopes.first
        model.pageSize = 3
        model.text = "garden"
        await model.settled()
        await model.submit()
        let search = try await client.search(SearchRequest(text: "garden", pageSize: 3, scope: "all"))
        XCTAssertEqual(model.resultSections.map(\.collection), ["departments", "products"])
        XCTAssertEqual(model.resultSections.map(\.hits), search.sections.map(\.hits))
        XCTAssertEqual(model.totalHits, search.sections.reduce(0) { $0 + $1.totalHits })
        let products = try XCTUnwrap(search.sections.last)
        XCTAssertFalse(products.nextPageToken.isEmpty)
        await model.loadMore(in: "products")
        let next = try await client.search(SearchRequest(text: "garden", pageSize: 3, pageToken: products.nextPageToken, collection: "products"))
        XCTAssertEqual(model.resultSections.last?.hits, products.hits + next.hits)
        XCTAssertNil(model.error)
    }
}
