import Foundation
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
        // One reading with the catalog's weight (`WholeNumber`): exact beyond 2^53, a string holding
        // any JSON number, and nothing that is not one.
        XCTAssertEqual(try suggest(#"{"revision":1e19}"#).revision, 10_000_000_000_000_000_000)
        XCTAssertEqual(try suggest(#"{"revision":"9007199254740993.0"}"#).revision, 9_007_199_254_740_993)
        XCTAssertEqual(try suggest(#"{"limits":{"entries":"1e1"}}"#).limits?.entries, 10)
        for text in [#"{"revision":"+1"}"#, #"{"revision":"01"}"#, #"{"revision":" 1"}"#, #"{"revision":""}"#] {
            XCTAssertTrue(refusal(text).contains("must be a whole number"), text)
        }
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

    /// `collection` in the POST bodies and on the GET forms; the name itself is checked where the
    /// request is routed (``CollectionName``), for every protocol alike.
    func testCollectionIsReadFromBodiesAndQueryStrings() throws {
        XCTAssertEqual(try suggest(#"{"text":"a","collection":"products"}"#).collection, "products")
        XCTAssertEqual(try search(#"{"text":"a","collection":"help-articles"}"#).collection, "help-articles")
        XCTAssertEqual(try suggest(#"{"text":"a","collection":null}"#).collection, "", "null is absent: the default collection")
        XCTAssertTrue(refusal(#"{"collection":3}"#).contains("collection must be a string"))
        let get = try JSONRequests.suggest(query: [URLQueryItem(name: "q", value: "red"), URLQueryItem(name: "collection", value: "departments")])
        XCTAssertEqual(get.collection, "departments")
        XCTAssertEqual(try JSONRequests.search(query: [URLQueryItem(name: "collection", value: "x_1")]).collection, "x_1")
        XCTAssertEqual(try JSONRequests.suggest(query: [URLQueryItem(name: "q", value: "red")]).collection, "")
    }

    /// `scope` likewise, in both requests' bodies and GET forms; collection and scope together are
    /// refused where the request is served (``ScopeAddressed/checkAddress()``), for every protocol.
    func testScopeIsReadFromBodiesAndQueryStrings() throws {
        XCTAssertEqual(try suggest(#"{"text":"a","scope":"all"}"#).scope, "all")
        XCTAssertEqual(try search(#"{"text":"a","scope":"all"}"#).scope, "all")
        XCTAssertEqual(try suggest(#"{"text":"a","scope":null}"#).scope, "")
        XCTAssertTrue(refusal(#"{"scope":["all"]}"#).contains("scope must be a string"))
        XCTAssertEqual(try JSONRequests.suggest(query: [URLQueryItem(name: "q", value: "r"), URLQueryItem(name: "scope", value: "all")]).scope, "all")
        XCTAssertEqual(try JSONRequests.search(query: [URLQueryItem(name: "scope", value: "garden")]).scope, "garden")
        XCTAssertEqual(try JSONRequests.search(query: [URLQueryItem(name: "q", value: "r")]).scope, "")
        XCTAssertThrowsError(try Typeahead_V1_SuggestRequest(text: "a", collection: "products", scope: "all").checkAddress()) {
            XCTAssertEqual(($0 as? GRPCStatus)?.reason, ScopeReason.collectionAndScope)
        }
        XCTAssertThrowsError(try Typeahead_V1_SearchRequest(scope: "Bad").checkAddress()) {
            XCTAssertTrue(($0 as? GRPCStatus)?.message.contains("scope must be 1 to 64 bytes") == true)
        }
        XCTAssertNoThrow(try Typeahead_V1_SearchRequest(scope: "all").checkAddress())
        XCTAssertNoThrow(try Typeahead_V1_SearchRequest(collection: "products").checkAddress())
        // Describe: an empty body, no query parameters.
        XCTAssertEqual(try JSONRequests.describe(JSONRequests.object(Array("{}".utf8))), Typeahead_V1_DescribeRequest())
        XCTAssertThrowsError(try JSONRequests.describe(JSONRequests.object(Array(#"{"x":1}"#.utf8))))
        XCTAssertThrowsError(try JSONRequests.describe(query: [URLQueryItem(name: "q", value: "a")]))
        XCTAssertEqual(try JSONRequests.describe(query: []), Typeahead_V1_DescribeRequest())
    }
}

/// Collection names: 1 to 64 bytes of `[a-z0-9_-]`, refused with INVALID_ARGUMENT and a reason a
/// program can act on; an unknown one is NOT_FOUND naming it.
final class CollectionNameTests: XCTestCase {
    func testNamesFollowTheRule() {
        for good in ["default", "products", "a", "help-articles", "x_1", String(repeating: "z", count: 64), "0"] {
            XCTAssertNil(CollectionName.problem(good), good)
        }
        for bad in ["", "Products", "has space", "café", "a/b", "a.b", String(repeating: "z", count: 65), "ü", "a\u{0}"] {
            XCTAssertNotNil(CollectionName.problem(bad), bad)
        }
        XCTAssertThrowsError(try CollectionName.validate("Bad")) { error in
            let status = error as! GRPCStatus
            XCTAssertEqual(status.code, .invalidArgument)
            XCTAssertEqual(status.reason, CollectionName.invalidReason)
            XCTAssertTrue(status.message.contains("collection must be 1 to 64 bytes of a-z, 0-9, _ and -, got \"Bad\""), status.message)
        }
        let missing = CollectionName.notFound("people", served: ["default", "products"])
        XCTAssertEqual(missing.code, .notFound)
        XCTAssertEqual(missing.reason, CollectionName.notFoundReason)
        XCTAssertEqual(missing.errorInfo?.metadata["collection"], "people")
        XCTAssertTrue(missing.message.contains(#"collection "people""#) && missing.message.contains("default, products"), missing.message)
    }

    /// A shard's query carries its collection inside the client's request it forwards.
    func testShardQueriesCarryTheirCollectionInside() {
        var part = Typeahead_V1_ShardSuggestRequest()
        XCTAssertEqual(part.collection, "")
        part.collection = "products"
        XCTAssertEqual(part.request?.collection, "products")
        var search = Typeahead_V1_ShardSearchRequest(request: Typeahead_V1_SearchRequest(text: "x"), generation: 3)
        search.collection = "b"
        XCTAssertEqual(search.request, Typeahead_V1_SearchRequest(text: "x", collection: "b"))
    }
}
