import JSONTree
@testable import Wire
import XCTest

/// Request bodies: parsed as a stream with the limits enforced while parsing (`JSONTree`), and
/// read as the proto3 JSON mapping reads them (`JSONFields`).
final class JSONRequestsTests: XCTestCase {
    func body(_ text: String) throws(GRPCStatus) -> JSONNode { try JSONRequests.object(Array(text.utf8)) }
    func suggest(_ text: String) throws(GRPCStatus) -> Typeahead_V1_SuggestRequest { try JSONRequests.suggest(try body(text)) }
    func search(_ text: String) throws(GRPCStatus) -> Typeahead_V1_SearchRequest { try JSONRequests.search(try body(text)) }

    func refusal(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try suggest(text)
            XCTFail("accepted: \(text)", file: file, line: line)
            return ""
        } catch {
            XCTAssertEqual(error.code, .invalidArgument, file: file, line: line)
            return error.message
        }
    }

    func testLimitsAreEnforcedWhileParsing() throws {
        XCTAssertNoThrow(try body(#"{"text":"a,b:c{[","tokens":[{"kind":"category","value":"x"}]}"#))
        XCTAssertNoThrow(try body("{\"text\":\"" + String(repeating: ",", count: 5000) + "\"}"), "commas in a string are not values")
        let many = #"{"tokens":["# + Array(repeating: "1", count: 1100).joined(separator: ",") + "]}"
        XCTAssertTrue(refusal(many).contains("more than 1024 JSON values"))
        let deep = #"{"a":"# + String(repeating: "[", count: 8) + String(repeating: "]", count: 8) + "}"
        XCTAssertTrue(refusal(deep).contains("deeper than 8"))
        XCTAssertTrue(refusal(#"{"text":"a","text":"b"}"#).contains("appears twice"))
    }

    /// RFC 8259 and nothing more: no trailing comma, no comments, no second value, UTF-8 only.
    func testOnlyJSONIsAccepted() {
        for text in [#"{"text":"a",}"#, #"{"text":"a"} // hi"#, #"{"text":"a"}{"#, "{\"text\":\"\u{FFFD}\"", "[1]", "", "  "] {
            XCTAssertFalse(refusal(text).isEmpty, text)
        }
        XCTAssertThrowsError(try JSONRequests.object([0x7B, 0x22, 0x74, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D]), "invalid UTF-8 in a string")
    }

    /// 64-bit integers exactly: no wrapping past 2^64, the top value accepted, strings as well.
    func testIntegersAreExact() throws {
        XCTAssertEqual(try suggest(#"{"revision":18446744073709551615}"#).revision, UInt64.max)
        XCTAssertEqual(try suggest(#"{"revision":"18446744073709551615"}"#).revision, UInt64.max)
        for text in [#"{"revision":18446744073709551616}"#, #"{"revision":18446744073709551617}"#, #"{"revision":-1}"#,
                     #"{"revision":1.5}"#, #"{"revision":true}"#, #"{"limits":{"entries":4294967296}}"#] {
            XCTAssertTrue(refusal(text).contains("must be a whole number"), text)
        }
        XCTAssertEqual(try suggest(#"{"limits":{"entries":1e1}}"#).limits?.entries, 10, "a whole exponent form")
        XCTAssertEqual(try suggest(#"{"limits":{"entries":"7"}}"#).limits?.entries, 7)
    }

    /// The proto3 JSON mapping's leniencies: proto names, null as absent, enums by number.
    func testTheProto3MappingsLeniencies() throws {
        let snake = try search(#"{"text":"x","page_size":3,"page_token":"t","require_all_shards":true}"#)
        XCTAssertEqual(snake.pageSize, 3)
        XCTAssertEqual(snake.pageToken, "t")
        XCTAssertTrue(snake.requireAllShards)
        XCTAssertTrue(refusal(#"{"requireAllShards":true,"require_all_shards":false}"#).contains("given twice"))
        let nulls = try suggest(#"{"text":null,"limits":null,"typos":null,"dedupe":null,"revision":null,"tokens":null}"#)
        XCTAssertEqual(nulls, Typeahead_V1_SuggestRequest())
        XCTAssertEqual(try suggest(#"{"typos":2}"#).typos, .off)
        XCTAssertEqual(try suggest(#"{"typos":"TYPOS_AUTO"}"#).typos, .auto)
        XCTAssertEqual(try search(#"{"sort":2}"#).sort, .weight)
        XCTAssertTrue(refusal(#"{"typos":"sometimes"}"#).contains("typos must be"))
        XCTAssertTrue(refusal(#"{"txet":"a"}"#).contains(#"unknown field "txet""#))
        XCTAssertTrue(refusal(#"{"tokens":[{"kind":"category","valeu":"x"}]}"#).contains(#"unknown field "valeu" in token"#))
        XCTAssertTrue(refusal(#"{"limits":{"entries":"many"}}"#).contains("limits.entries"))
    }
}
