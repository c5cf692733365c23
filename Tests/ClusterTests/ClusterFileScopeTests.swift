import Cluster
import Foundation
import Wire
import XCTest

/// The cluster file's scopes: read in order with their labels, prompts, collections and fixed
/// tokens; every rule refused with the JSON path of the problem.
final class ClusterFileScopeTests: XCTestCase {
    let collections = #""collections":[{"name":"products","shards":[{"name":"s","replicas":["a:1"]}]},"#
        + #"{"name":"departments","shards":[{"name":"s","replicas":["a:1"]}]}]"#

    func parse(scopes: String) throws(ClusterFileError) -> ClusterFile {
        try ClusterFile.parse(Array("{\(collections),\"scopes\":\(scopes)}".utf8), name: "c.json")
    }

    func refusal(_ scopes: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let parsed = try parse(scopes: scopes)
            XCTFail("accepted: \(parsed.scopes)", file: file, line: line)
            return ""
        } catch {
            return error.description
        }
    }

    func testScopesAreReadInOrder() throws {
        let file = try parse(scopes: #"[{"name":"all","label":"All","prompt":"Departments and products","collections":["departments","products"]},"#
                                     + #"{"name":"garden","label":"Garden","prompt":"Search the garden","collections":["products"],"#
                                     + #""tokens":[{"kind":"category","value":"Garden"}]}]"#)
        XCTAssertEqual(file.scopes, [
            ClusterFile.Scope(name: "all", label: "All", prompt: "Departments and products", collections: ["departments", "products"]),
            ClusterFile.Scope(name: "garden", label: "Garden", prompt: "Search the garden", collections: ["products"],
                              tokens: [Typeahead_V1_SearchToken(kind: "category", value: "Garden")]),
        ])
        XCTAssertEqual(file.scope(named: "garden")?.label, "Garden")
        XCTAssertNil(file.scope(named: "none"))
        XCTAssertEqual(try parse(scopes: "[]").scopes, [])
        let none = try ClusterFile.parse(Array("{\(collections)}".utf8))
        XCTAssertEqual(none.scopes, [], "scopes are optional")
    }

    /// A scope's token may be of an attribute kind that every collection it covers declares.
    func testScopeTokensOfADeclaredAttribute() throws {
        let declared = #""collections":[{"name":"products","filterableAttributes":["color","size"],"shards":[{"name":"s","replicas":["a:1"]}]},"#
            + #"{"name":"departments","filterableAttributes":["color"],"shards":[{"name":"s","replicas":["a:1"]}]}]"#
        func scopes(_ text: String) throws(ClusterFileError) -> ClusterFile {
            try ClusterFile.parse(Array("{\(declared),\"scopes\":\(text)}".utf8), name: "c.json")
        }
        let file = try scopes(#"[{"name":"red","label":"Red","prompt":"Red things","collections":["products","departments"],"#
                              + #""tokens":[{"kind":"color","value":"red"}]}]"#)
        XCTAssertEqual(file.scopes[0].tokens, [Typeahead_V1_SearchToken(kind: "color", value: "red")])
        XCTAssertThrowsError(try scopes(#"[{"name":"m","label":"M","prompt":"P","collections":["products","departments"],"#
                                        + #""tokens":[{"kind":"size","value":"m"}]}]"#)) { error in
            XCTAssertTrue("\(error)".contains(#"scopes[0].tokens[0].kind must be "category" or "color""#), "\(error)")
        }
    }

    func testEveryRuleIsRefusedWithItsPath() {
        let ok = #""label":"L","prompt":"P","collections":["products"]"#
        let long = String(repeating: "x", count: 257)
        for (scopes, expected) in [
            (#"{"name":"a"}"#, #"c.json: scopes must be an array of {"name", "label", "prompt", "collections"}"#),
            (#"[7]"#, "c.json: scopes[0] must be an object with name, label, prompt and collections"),
            (#"[{"name":"All",\#(ok)}]"#, #"c.json: scopes[0].name must be 1 to 64 bytes of a-z, 0-9, _ and -, got "All""#),
            (#"[{\#(ok)}]"#, "c.json: scopes[0].name must be a string"),
            (#"[{"name":"a",\#(ok)},{"name":"a",\#(ok)}]"#, #"c.json: scopes[1].name "a" names two scopes"#),
            (#"[{"name":"a","label":"","prompt":"P","collections":["products"]}]"#, "c.json: scopes[0].label must be a string of 1 to 256 bytes"),
            (#"[{"name":"a","label":"L","prompt":"\#(long)","collections":["products"]}]"#,
             "c.json: scopes[0].prompt must be a string of 1 to 256 bytes"),
            (#"[{"name":"a","label":"L","collections":["products"]}]"#, "c.json: scopes[0].prompt must be a string of 1 to 256 bytes"),
            (#"[{"name":"a","label":"L","prompt":"P","collections":[]}]"#,
             "c.json: scopes[0].collections must be a non-empty array of collection names"),
            (#"[{"name":"a","label":"L","prompt":"P","collections":["products","people"]}]"#,
             "c.json: scopes[0].collections[1] people is not a collection of this file (collections: products, departments)"),
            (#"[{"name":"a","label":"L","prompt":"P","collections":["products","products"]}]"#,
             #"c.json: scopes[0].collections[1] "products" is listed twice"#),
            (#"[{"name":"a",\#(ok),"tokens":[{"kind":"color","value":"red"}]}]"#,
             #"c.json: scopes[0].tokens[0].kind must be "category" ("category", or an attribute every collection of the scope declares filterable)"#),
            (#"[{"name":"a",\#(ok),"tokens":[{"kind":"category","value":""}]}]"#, "c.json: scopes[0].tokens[0].value must be a string of 1 to 256 bytes"),
            (#"[{"name":"a",\#(ok),"tokens":[{"kind":"category","value":"x","extra":1}]}]"#,
             "c.json: scopes[0].tokens[0].extra is not a known key (known: kind, value)"),
            (#"[{"name":"a",\#(ok),"icon":"x"}]"#, "c.json: scopes[0].icon is not a known key (known: collections, label, name, prompt, tokens)"),
        ] {
            XCTAssertEqual(refusal(scopes), expected, scopes)
        }
    }
}
