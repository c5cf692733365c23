import Foundation
import TestSupport
import XCTest

/// `typeahead local --catalog NAME=FILE --catalog NAME=FILE`: one cluster serving a collection
/// per catalog, each answering over the coordinator exactly as `typeahead suggest` over that
/// catalog alone, the first named being the default.
final class LocalCollectionsTests: XCTestCase {
    var directory: String!
    var local: LocalClusterProcess?

    override func setUpWithError() throws {
        guard TypeaheadExecutable.isBuilt else { throw XCTSkip("typeahead binary not built next to the tests") }
        directory = NSTemporaryDirectory() + "typeahead-local-collections-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        local?.stop()
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }

    func write(_ name: String, _ lines: [String]) throws -> String {
        let path = directory + "/" + name
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A JSON answer without its `shards` member (a node and a cluster report those differently).
    func content(_ text: String) throws -> NSDictionary {
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
        return object.filter { $0.key != "shards" } as NSDictionary
    }

    /// A cluster's answer, which must come from every shard: a partial one (a shard out of routing
    /// or late) is said as such, with its `shards`, rather than compared as if it were whole.
    func whole(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> NSDictionary {
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text, file: file, line: line)
        let shards = try XCTUnwrap(object["shards"] as? [String: Any], text, file: file, line: line)
        XCTAssertEqual(shards["failed"] as? Int, 0, "a partial answer: \(shards)", file: file, line: line)
        return try content(text)
    }

    func testEachCatalogIsACollection() throws {
        let products = try write("products.jsonl", (1...40).map { #"{"id":"p\#($0)","title":"Red product \#($0)","categories":["Shoes"],"weight":\#($0)}"# })
        // Blank categories, as exports write them: read as none, and said once per kind.
        let departments = try write("departments.jsonl", (1...9).map { #"{"id":"d\#($0)","title":"Red department \#($0)","category":"","weight":\#($0 * 3)}"# })
        let local = try LocalClusterProcess(["--catalog", "products=" + products, "--catalog", "departments=" + departments, "--shards", "2",
                                             "--replicas", "1", "--listen", "127.0.0.1:0", "--data-dir", directory + "/cluster"],
                                            output: directory + "/local.out")
        self.local = local
        let printed = local.printed
        let base = try local.address(after: "  coordinator  ")
        XCTAssertTrue(printed.contains("2 shards × 1 replicas of 2 collections"), printed)
        XCTAssertTrue(printed.contains("collection products (default) from \(products): 40 entries"), printed)
        XCTAssertTrue(printed.contains("collection departments from \(departments): 9 entries"), printed)
        XCTAssertTrue(printed.contains("&collection=departments"), printed)
        XCTAssertTrue(printed.contains(#"typeahead local: warning: collection departments: 9 lines have "category": "" (read as no category): lines 1, 2, 3, 4, 5, …"#),
                      printed)
        XCTAssertFalse(printed.contains("warning: collection products"), printed)

        for (name, catalog) in [("products", products), ("departments", departments)] {
            let alone = directory + "/alone-" + name
            XCTAssertEqual(try TypeaheadExecutable.run(["index", "--catalog", catalog, "--dir", alone]).status, 0)
            for text in ["r", "red", "red d", "red p", "rde"] {
                let expected = try TypeaheadExecutable.run(["suggest", "--json", "--dir", alone, text])
                XCTAssertEqual(expected.status, 0, expected.output)
                let query = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
                let answer = try ChildRun.run("/usr/bin/env", ["curl", "-sS", "--max-time", "10",
                                                               "\(base)/v1/suggest?q=\(query)&collection=\(name)"])
                XCTAssertEqual(try whole(answer.stdout), try content(expected.stdout), "\(name): \(text)")
                if name == "products" {
                    let unnamed = try ChildRun.run("/usr/bin/env", ["curl", "-sS", "--max-time", "10", "\(base)/v1/suggest?q=\(query)"])
                    XCTAssertEqual(try whole(unnamed.stdout), try content(expected.stdout), "the default collection: \(text)")
                }
            }
        }
        let missing = try ChildRun.run("/usr/bin/env", ["curl", "-sS", "-w", "\n%{http_code}", "--max-time", "10", "\(base)/v1/search?q=red&collection=people"])
        XCTAssertTrue(missing.stdout.hasSuffix("\n404"), missing.stdout)
        // The cluster file it wrote names both collections over the same nodes.
        let file = try String(contentsOfFile: directory + "/cluster/cluster.json", encoding: .utf8)
        XCTAssertTrue(file.contains(#""defaultCollection": "products""#), file)
        XCTAssertFalse(file.contains("\n  \"shards\""), "no top-level shards: no collection named default\n\(file)")
        XCTAssertTrue(file.contains(#"{"name": "departments", "shards": ["#), file)
    }

    func testCatalogsAreNamedOnce() throws {
        let catalog = try write("c.jsonl", [#"{"id":"1","title":"One"}"#])
        for (arguments, message) in [(["--catalog", catalog, "--catalog", catalog], "one --catalog FILE only"),
                                     (["--catalog", "a=" + catalog, "--catalog", "a=" + catalog], #"the collection "a" is given twice"#),
                                     (["--catalog", "a="], "--catalog a= needs a file")] {
            let run = try TypeaheadExecutable.run(["local"] + arguments)
            XCTAssertEqual(run.status, 2, run.output)
            XCTAssertTrue(run.stderr.contains(message), "\(arguments): \(run.output)")
        }
    }
}
