import Catalog
@testable import Index
import XCTest

/// ``EntryValidation``: what API callers hand the index obeys the catalog's limits.
final class EntryValidationTests: XCTestCase {
    /// The blank test's ASCII shortcut answers as `allSatisfy(\.isWhitespace)` does.
    func testABlankTitleIsWhatCharactersSayIsWhitespace() {
        let texts = ["", " ", "\t\n", "\r\n", " a", "a ", "a", "\u{A0}", "\u{3000} ", "\u{2028}", " \u{301}", "\u{301}",
                     "é", "\u{0B}\u{0C}", "\u{85}", "\u{1F600}", "\u{0}", "\u{7F}"]
        for text in texts {
            XCTAssertEqual(EntryValidation.isBlank(text), text.allSatisfy(\.isWhitespace), "\(text.unicodeScalars.map(\.value))")
        }
    }

    func testABlankTitleIsRefusedWithItsPosition() {
        let entries = [CatalogEntry(id: "a", title: "Apple", categories: [], weight: 1),
                       CatalogEntry(id: "b", title: " \u{3000}\t", categories: [], weight: 1)]
        XCTAssertThrowsError(try EntryValidation.check(entries, firstPosition: 10)) { error in
            XCTAssertTrue("\(error)".contains("entry 12 (id \"b\"): title must be non-blank"), "\(error)")
        }
        XCTAssertNoThrow(try EntryValidation.check(entries.prefix(1)))
    }
}
