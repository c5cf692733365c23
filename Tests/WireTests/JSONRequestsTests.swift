@testable import Wire
import XCTest

/// The shape check that bounds a JSON body's parse.
final class JSONShapeTests: XCTestCase {
    func testCountsValuesAndDepthOutsideStrings() throws {
        XCTAssertNoThrow(try JSONRequests.checkShape(Array(#"{"text":"a,b:c{[","tokens":[{"kind":"category","value":"x"}]}"#.utf8)))
        let commasInAString = "{\"text\":\"" + String(repeating: ",", count: 5000) + "\"}"
        XCTAssertNoThrow(try JSONRequests.checkShape(Array(commasInAString.utf8)), "commas in a string are not values")
        let escapedQuote = #"{"text":"a\",\",\",","x":1}"#
        XCTAssertNoThrow(try JSONRequests.checkShape(Array(escapedQuote.utf8)))
        let many = "[" + Array(repeating: "1", count: 1100).joined(separator: ",") + "]"
        XCTAssertThrowsError(try JSONRequests.checkShape(Array(many.utf8))) { error in
            XCTAssertTrue("\(error)".contains("more than 1024 JSON values"), "\(error)")
        }
        let deep = String(repeating: "[", count: 9) + String(repeating: "]", count: 9)
        XCTAssertThrowsError(try JSONRequests.checkShape(Array(deep.utf8))) { error in
            XCTAssertTrue("\(error)".contains("deeper than 8"), "\(error)")
        }
    }
}
