import Catalog
import Wire
import WireConversions
import XCTest

/// Entries that come by gRPC are read as catalog lines are (`CatalogEntry.normalised()`).
final class EntryNormalisationTests: XCTestCase {
    /// An upsert by gRPC of a catalog line's values indexes the entry the line gives: blanks are
    /// absent, duplicate categories removed, as the parser reads them.
    func testAnUpsertReadsBlanksAsACatalogLineDoes() throws {
        let line = #"{"id":"a","title":"Hose","categories":["","Garden","Garden"],"aliases":["","pipe"],"description":""}"#
        guard case .success(let parsed)? = parseCatalogLine(line.utf8, line: 1) else { return XCTFail("refused: \(line)") }
        let message = Typeahead_V1_Entry(id: "a", title: "Hose", categories: ["", "Garden", "Garden"], aliases: ["", "pipe"], description: "")
        let upserted = CatalogEntry(message)
        XCTAssertEqual(upserted, parsed)
        XCTAssertEqual(upserted, CatalogEntry(id: "a", title: "Hose", categories: ["Garden"], aliases: ["pipe"]))
        XCTAssertEqual(try Typeahead_V1_UpsertRequest(entries: [message]).catalogEntries(), [parsed])
        // Nothing to change: the same entry; required fields are not the normalisation's business.
        let blankTitle = CatalogEntry(Typeahead_V1_Entry(id: "", title: " ", categories: ["Café", "Cafe\u{301}"], description: "d"))
        XCTAssertEqual(blankTitle, CatalogEntry(id: "", title: " ", categories: ["Café", "Cafe\u{301}"], description: "d"))
        XCTAssertEqual(blankTitle.categories.count, 2, "byte-exact, as the parser: String's == would merge them")
    }
}
