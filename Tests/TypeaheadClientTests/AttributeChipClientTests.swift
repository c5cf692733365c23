import Foundation
import TestSupport
import TypeaheadClient
import XCTest

/// Attribute chips through the client against a real local cluster whose sample collection
/// declares `price` filterable: Describe lists the kind, a keystroke offers a price chip beside
/// the categories, and `SearchModel.select` adds it as a token, which then filters.
@MainActor
final class AttributeChipClientTests: XCTestCase {
    nonisolated(unsafe) static var sample: SampleCluster?

    var client: TypeaheadClient { Self.sample!.client }

    override func setUp() async throws {
        guard FileManager.default.isExecutableFile(atPath: BuiltProducts.typeahead.path) else {
            throw XCTSkip("typeahead binary not built next to the tests")
        }
        if Self.sample == nil { Self.sample = try await SampleCluster.start("typeahead-attributes", filterable: ["default": ["price"]]) }
    }

    override class func tearDown() {
        sample?.stop()
        sample = nil
    }

    func testDescribeListsTheFilterableKind() async throws {
        let described = try await client.describe()
        XCTAssertEqual(described.collections.map(\.tokenKinds), [["category", "price"]])
    }

    func testSelectingAnAttributeChipAddsItsTokenAndFilters() async throws {
        let model = SearchModel(client: client)
        model.text = "24"
        await model.settled()
        let chip = try XCTUnwrap(model.suggestions.tokens.first { $0.token.kind == "price" }, "\(model.suggestions.tokens)")
        XCTAssertEqual(chip.token.value, chip.name)
        XCTAssertTrue(chip.name.hasPrefix("24."), chip.name)
        model.select(.token(chip))
        XCTAssertEqual(model.tokens, [SearchToken(kind: "price", value: chip.name)])
        XCTAssertEqual(model.text, chip.replacementText)
        await model.settled()
        XCTAssertFalse(model.suggestions.entries.isEmpty)
        XCTAssertTrue(model.suggestions.entries.allSatisfy { $0.attributes["price"] == chip.name },
                      "\(model.suggestions.entries.map(\.attributes))")
        await model.submit()
        await model.settled()
        XCTAssertEqual(model.results.count, chip.count, "the chip's count is what the token keeps")
    }
}
