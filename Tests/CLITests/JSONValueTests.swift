import XCTest
@testable import Wire

final class JSONValueTests: XCTestCase {
    func testEscapesControlCharactersQuotesAndSeparators() {
        let value = JSONValue.object([("a\"b", .string("x\n\t\u{01}\\ \u{2028} é 東"))])
        XCTAssertEqual(value.serialized(), "{\"a\\\"b\":\"x\\n\\t\\u0001\\\\ \\u2028 é 東\"}")
    }

    func testNumbersArraysAndLiterals() {
        let value = JSONValue.array([.integer(-3), .unsigned(9_007_199_254_740_991), .bool(true), .null, .array([])])
        XCTAssertEqual(value.serialized(), "[-3,9007199254740991,true,null,[]]")
    }
}
