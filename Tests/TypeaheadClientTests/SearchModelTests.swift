import Cluster
import Foundation
import Launcher
import TestSupport
import TypeaheadClient
import XCTest

/// `TypeaheadClient` and `SearchModel` against a real local cluster (a coordinator over two shards,
/// every part its own process), over the JSON API as an app would call it.
@MainActor
final class SearchModelTests: XCTestCase {
    nonisolated(unsafe) static var sample: SampleCluster?

    var client: TypeaheadClient { Self.sample!.client }

    override func setUp() async throws {
        guard FileManager.default.isExecutableFile(atPath: BuiltProducts.typeahead.path) else {
            throw XCTSkip("typeahead binary not built next to the tests")
        }
        if Self.sample == nil { Self.sample = try await SampleCluster.start("typeahead-client") }
    }

    override class func tearDown() {
        sample?.stop()
        sample = nil
    }

    func testTypingAWordGivesAnswersInOrderAndNeverAStaleOne() async throws {
        let model = SearchModel(client: client)
        let word = "red running shoes"
        var shown: [UInt64] = []
        for end in 1...word.count {
            model.text = String(word.prefix(end))
            // Keystrokes arrive faster than answers: most requests are superseded in flight.
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...3)))
            shown.append(model.suggestions.revision)
        }
        await model.settled()
        shown.append(model.suggestions.revision)
        XCTAssertEqual(shown, shown.sorted(), "an older answer replaced a newer one: \(shown)")
        XCTAssertEqual(model.suggestions.revision, UInt64(word.count), "the last keystroke's answer is shown")
        XCTAssertFalse(model.isSearching)
        let direct = try await client.suggest(SuggestRequest(text: word))
        XCTAssertEqual(model.suggestions.entries, direct.entries)
        XCTAssertEqual(model.suggestions.completions, direct.completions)
        XCTAssertFalse(direct.entries.isEmpty)
    }

    func testSelectingATokenSuggestionAddsTheTokenAndSetsTheText() async throws {
        let model = SearchModel(client: client)
        model.text = "red sh"
        await model.settled()
        let shoes = try XCTUnwrap(model.suggestions.tokens.first { $0.name == "Shoes" }, "\(model.suggestions.tokens)")
        XCTAssertEqual(shoes.token, .category("Shoes"))
        model.select(.token(shoes))
        XCTAssertEqual(model.tokens, [.category("Shoes")])
        XCTAssertEqual(model.text, shoes.replacementText)
        await model.settled()
        XCTAssertFalse(model.suggestions.entries.isEmpty)
        XCTAssertTrue(model.suggestions.entries.allSatisfy { $0.categories.contains("Shoes") }, "\(model.suggestions.entries.map(\.categories))")

    }

    func testSelectingACompletionOrAnEntrySetsTheText() async throws {
        let model = SearchModel(client: client)
        model.text = "red sh"
        await model.settled()
        let completion = try XCTUnwrap(model.suggestions.completions.first, "\(model.suggestions)")
        model.select(.completion(completion))
        XCTAssertEqual(model.text, completion.text)
        await model.settled()
        let entry = try XCTUnwrap(model.suggestions.entries.first)
        model.select(.entry(entry))
        XCTAssertEqual(model.text, entry.completion)
        XCTAssertTrue(model.tokens.isEmpty)
    }

    func testPagingWalksToTheEndAndTheTotalIsExact() async throws {
        let model = SearchModel(client: client, pageSize: 7)
        model.text = "red"
        await model.submit()
        XCTAssertNil(model.error)
        let total = model.totalHits
        XCTAssertGreaterThan(total, 7, "the sample has enough red things for several pages")
        var pages = 1
        while model.hasMore {
            await model.loadMore()
            pages += 1
            XCTAssertLessThan(pages, 100)
        }
        XCTAssertEqual(model.results.count, total)
        XCTAssertEqual(Set(model.results.map(\.id)).count, total, "no result twice")
        XCTAssertEqual(pages, (total + 6) / 7)
    }

    func testFailuresAreTypedErrors() async throws {
        // A server that is not there.
        let gone = TypeaheadClient(baseURL: URL(string: "http://127.0.0.1:1")!, timeout: 5)
        do {
            _ = try await gone.suggest(SuggestRequest(text: "red"))
            XCTFail("a closed port answered")
        } catch {
            guard case .transport = error else { return XCTFail("\(error)") }
        }
        let model = SearchModel(client: gone)
        model.text = "red"
        await model.settled()
        if case .transport = model.error {} else { XCTFail("\(String(describing: model.error))") }
        XCTAssertFalse(model.isSearching)

        // A refusal by the server keeps its status, code and message.
        do {
            _ = try await client.search(SearchRequest(text: "red", pageToken: "not-a-token"))
            XCTFail("a forged page token was accepted")
        } catch {
            XCTAssertEqual(error, .server(status: 400, code: "invalid_argument", message: "pageToken is not a token this service issued"))
        }
    }
}
