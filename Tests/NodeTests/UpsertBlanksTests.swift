import Wire
import XCTest

/// A node's Upsert and BuildGeneration read blank optional fields as a catalog line's are read:
/// an empty category or alias is left out, an empty description is none (not refused, not kept).
final class UpsertBlanksTests: XCTestCase {
    func testAGRPCUpsertWithBlankOptionalFieldsIndexesTheEntry() throws {
        let fixture = try CollectionRoutingTests.Fixture()
        defer { fixture.group.shutdown() }
        let entry = Typeahead_V1_Entry(id: "p-blank", title: "Zyzzyva hose", categories: ["", "Garden", ""], aliases: ["", "zzpipe"],
                                       description: "")
        let upserted = fixture.call(fixture.both, Typeahead_V1_ShardService.upsert, Typeahead_V1_UpsertRequest(entries: [entry]))
        XCTAssertEqual(try upserted.get().summary?.inserted, 1, "\(upserted)")
        let found = try fixture.call(fixture.both, Typeahead_V1_TypeaheadService.suggest, Typeahead_V1_SuggestRequest(text: "zyzzyva")).get()
        XCTAssertEqual(found.entries.map(\.id), ["p-blank"])
        XCTAssertEqual(found.entries.first?.categories, ["Garden"])
        let byAlias = try fixture.call(fixture.both, Typeahead_V1_TypeaheadService.suggest, Typeahead_V1_SuggestRequest(text: "zzpipe")).get()
        XCTAssertEqual(byAlias.entries.map(\.id), ["p-blank"], "the alias that was not blank is kept")
        // Required fields stay strict: a blank title is refused, and nothing is written.
        let blankTitle = fixture.call(fixture.both, Typeahead_V1_ShardService.upsert,
                                      Typeahead_V1_UpsertRequest(entries: [Typeahead_V1_Entry(id: "p-untitled", title: "")]))
        XCTAssertEqual(blankTitle.failure?.code, .invalidArgument)
    }
}
