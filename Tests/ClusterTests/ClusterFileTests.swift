import Cluster
import Foundation
import XCTest

/// The cluster file's collections: the top-level `shards` as the collection `default`, named
/// `collections` beside or instead of them, `defaultCollection`, and every rule refused with the
/// JSON path of the problem.
final class ClusterFileTests: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func parse(_ text: String) throws(ClusterFileError) -> ClusterFile { try ClusterFile.parse(Array(text.utf8), name: "c.json") }

    /// The problem `text` is refused with, as the operator reads it.
    func refusal(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let parsed = try parse(text)
            XCTFail("accepted: \(parsed)", file: file, line: line)
            return ""
        } catch {
            return error.description
        }
    }

    func shards(_ addresses: String...) -> String {
        "[" + addresses.enumerated().map { #"{"name":"shard-\#($0.offset)","replicas":["\#($0.element)"]}"# }.joined(separator: ",") + "]"
    }

    func testTopLevelShardsAreTheDefaultCollection() throws {
        let file = try parse(#"{"shards":\#(shards("a:1", "b:1"))}"#)
        XCTAssertEqual(file.collections.map(\.name), ["default"])
        XCTAssertEqual(file.defaultCollection, "default")
        XCTAssertEqual(file.shards.map(\.name), ["shard-0", "shard-1"])
        XCTAssertEqual(file, ClusterFile(shards: file.shards), "the same as a one-collection file made in code")
    }

    func testCollectionsBesideAndInsteadOfTopLevelShards() throws {
        let both = try parse(#"{"shards":\#(shards("a:1")),"collections":[{"name":"people","shards":\#(shards("a:1", "b:1"))}]}"#)
        XCTAssertEqual(both.collections.map(\.name), ["default", "people"])
        XCTAssertEqual(both.defaultCollection, "default")
        XCTAssertEqual(both.collection(named: "people")?.shards.count, 2)
        XCTAssertEqual(both.replicas.map(\.description), ["a:1", "b:1"], "a node of several collections is one address")

        let named = try parse(#"{"collections":[{"name":"products","shards":\#(shards("a:1"))},{"name":"help","shards":\#(shards("a:1"))}],"#
                              + #""defaultCollection":"help"}"#)
        XCTAssertEqual(named.collections.map(\.name), ["products", "help"])
        XCTAssertEqual(named.defaultCollection, "help")
        XCTAssertEqual(named.shards, named.collection(named: "help")?.shards)
        XCTAssertEqual(try parse(#"{"collections":[{"name":"x","shards":\#(shards("a:1"))}]}"#).defaultCollection, "x",
                       "without defaultCollection: the first")
    }

    /// Filterable attributes per collection (top level: the collection `default`), sorted; none
    /// when absent.
    func testFilterableAttributesPerCollection() throws {
        let file = try parse(#"{"shards":\#(shards("a:1")),"filterableAttributes":["size","color"],"#
                             + #""collections":[{"name":"people","shards":\#(shards("a:1")),"filterableAttributes":["team"]},"#
                             + #"{"name":"help","shards":\#(shards("a:1"))}]}"#)
        XCTAssertEqual(file.collections.map(\.filterableAttributes), [["color", "size"], ["team"], []])
    }

    func testEveryRuleIsRefusedWithItsPath() {
        let one = shards("a:1")
        for (text, expected) in [
            (#"{"collections":[]}"#, #"c.json: collections must be a non-empty array of {"name", "shards"}"#),
            (#"{"collections":[{"name":"Products","shards":\#(one)}]}"#,
             #"c.json: collections[0].name must be 1 to 64 bytes of a-z, 0-9, _ and -, got "Products""#),
            (#"{"collections":[{"name":"a","shards":\#(one)},{"name":"a","shards":\#(one)}]}"#, #"c.json: collections[1].name "a" names two collections"#),
            (#"{"shards":\#(one),"collections":[{"name":"default","shards":\#(one)}]}"#,
             #"collections[0].name "default" names two collections (the top-level shards are the collection "default")"#),
            (#"{"collections":[{"name":"a","shards":[]}]}"#, "c.json: collections[0].shards must be a non-empty array of shards"),
            (#"{"collections":[{"name":"a","shards":\#(shards("x:1", "x:1"))}]}"#, "c.json: collections[0].shards[1].replicas[0] x:1 is listed twice"),
            (#"{"collections":[{"name":"a","shards":[{"name":"s","replicas":["nope"]}]}]}"#,
             #"collections[0].shards[0].replicas[0] must be "host:port""#),
            (#"{"collections":[{"name":"a","shards":\#(one),"replicas":2}]}"#, "c.json: collections[0].replicas is not a known key (known: filterableAttributes, name, shards)"),
            (#"{"collections":[{"name":"a","shards":\#(one),"filterableAttributes":["Color"]}]}"#,
             #"c.json: collections[0].filterableAttributes[0] must be 1 to 64 bytes of a-z, 0-9, _ and -, got "Color""#),
            (#"{"collections":[{"name":"a","shards":\#(one),"filterableAttributes":["category"]}]}"#,
             #"c.json: collections[0].filterableAttributes[0] "category" is reserved"#),
            (#"{"collections":[{"name":"a","shards":\#(one),"filterableAttributes":["size","size"]}]}"#,
             #"c.json: collections[0].filterableAttributes[1] "size" is named twice"#),
            (#"{"collections":[{"name":"a","shards":\#(one),"filterableAttributes":"color"}]}"#,
             "c.json: collections[0].filterableAttributes must be an array of at most 32 attribute keys"),
            (#"{"collections":[{"name":"a","shards":\#(one)}],"filterableAttributes":["color"]}"#,
             "c.json: filterableAttributes belongs to the top-level shards"),
            (#"{"collections":[{"name":"a","shards":\#(one)}],"defaultCollection":"b"}"#,
             #"c.json: defaultCollection "b" is not a collection of this file (collections: a)"#),
            (#"{"shards":\#(one),"defaultCollection":7}"#, "c.json: defaultCollection must be a string"),
            (#"{"name":"x"}"#, "c.json: shards must be a non-empty array of shards"),
        ] {
            XCTAssertTrue(refusal(text).contains(expected), "\(text)\n  got: \(refusal(text))\n  want: \(expected)")
        }
    }

    /// The sample of two collections on one machine loads; both share the nodes.
    func testTheCollectionsSampleLoads() throws {
        let path = Self.packageRoot.appendingPathComponent("deploy/cluster/collections/local-2x2.json").path
        let file = try ClusterFile.load(path: path)
        XCTAssertEqual(file.collections.map(\.name), ["products", "departments"])
        XCTAssertEqual(file.defaultCollection, "products")
        XCTAssertEqual(file.shards.count, 2)
        XCTAssertEqual(file.collection(named: "departments")?.shards.count, 1)
        XCTAssertEqual(file.scopes.map(\.collections), [["departments", "products"]])
        XCTAssertEqual(file.replicas.count, 4)
        XCTAssertEqual(file.settings.tokenFile, URL(fileURLWithPath: path).deletingLastPathComponent().path + "/../admin.token")
    }
}
