import Foundation
import TestSupport
import XCTest

/// `typeahead local` with no catalog (what `scripts/run.sh` and the README's run command start):
/// the bundled sample as the collections products (the default, answering a request that names
/// no collection exactly as `typeahead suggest` over the sample does) and departments (one entry
/// per category), the scope `all` over both, and Describe on the coordinator and on a node.
final class LocalSampleScopeTests: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    var directory: String!
    var local: LocalClusterProcess?

    override func setUpWithError() throws {
        guard TypeaheadExecutable.isBuilt else { throw XCTSkip("typeahead binary not built next to the tests") }
        directory = NSTemporaryDirectory() + "typeahead-local-sample-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        local?.stop()
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }

    func get(_ url: String) throws -> (body: String, status: Int) {
        let run = try ChildRun.run("/usr/bin/env", ["curl", "-sS", "-w", "\n%{http_code}", "--max-time", "10", url])
        let parts = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        return (parts.dropLast().joined(separator: "\n"), Int(parts.last ?? "") ?? 0)
    }

    func object(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    /// entries, categories and completions: what a section and an unscoped answer share.
    func content(_ object: [String: Any]) -> NSDictionary {
        object.filter { ["entries", "categories", "completions"].contains($0.key) } as NSDictionary
    }

    func testTheSampleIsTwoCollectionsWithAScope() throws {
        // In the package root, where deploy/catalog/sample.jsonl is: no --catalog, the sample.
        let local = try LocalClusterProcess(["--shards", "2", "--replicas", "1", "--listen", "127.0.0.1:0", "--data-dir", directory + "/cluster"],
                                            output: directory + "/local.out", in: Self.packageRoot)
        self.local = local
        let printed = local.printed
        let base = try local.address(after: "  coordinator  ")
        let node = try local.address(after: "  shard-0  ")
        XCTAssertTrue(printed.contains("collection products (default) from deploy/catalog/sample.jsonl: 1600 entries"), printed)
        XCTAssertTrue(printed.contains(#"scope all  "All", prompt "Departments and products": departments, products"#), printed)
        XCTAssertTrue(printed.contains("Open \(base)/ in a browser"), printed)
        XCTAssertTrue(printed.contains("scope=all"), printed)

        // What a request naming no collection read before: the sample alone.
        let alone = directory + "/alone"
        XCTAssertEqual(try TypeaheadExecutable.run(["index", "--catalog", Self.packageRoot.path + "/deploy/catalog/sample.jsonl",
                                                    "--dir", alone]).status, 0)
        for text in ["red sh", "gar", "knif"] {
            let expected = try TypeaheadExecutable.run(["suggest", "--json", "--dir", alone, text])
            let query = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
            let unnamed = try get("\(base)/v1/suggest?q=\(query)")
            XCTAssertEqual(content(try object(unnamed.body)), content(try object(expected.stdout)), text)
            // Scoped: departments, then products as the unscoped answer.
            let scoped = try object(try get("\(base)/v1/suggest?q=\(query)&scope=all").body)
            let sections = try XCTUnwrap(scoped["sections"] as? [[String: Any]], "\(scoped)")
            XCTAssertEqual(sections.map { $0["collection"] as? String }, ["departments", "products"])
            XCTAssertEqual(content(sections[1]), content(try object(unnamed.body)), text)
            XCTAssertEqual((scoped["entries"] as? [Any])?.count, 0)
        }
        let garden = try object(try get("\(base)/v1/suggest?q=gar&scope=all").body)
        let departments = try XCTUnwrap((garden["sections"] as? [[String: Any]])?.first?["entries"] as? [[String: Any]])
        XCTAssertEqual(departments.first?["title"] as? String, "Garden", "\(departments)")

        // Describe: the coordinator's scopes and collections; a node's collections.
        let described = try object(try get("\(base)/v1/describe").body)
        let scopes = try XCTUnwrap(described["scopes"] as? [[String: Any]])
        XCTAssertEqual(scopes.first?["prompt"] as? String, "Departments and products")
        let collections = try XCTUnwrap(described["collections"] as? [[String: Any]])
        XCTAssertEqual(collections.map { $0["name"] as? String }, ["products", "departments"])
        XCTAssertEqual(collections.first?["entries"] as? Int, 1600)
        XCTAssertEqual(described["defaultCollection"] as? String, "products")
        let nodeDescribed = try object(try get("\(node)/v1/describe").body)
        XCTAssertEqual((nodeDescribed["scopes"] as? [Any])?.count, 0)
        XCTAssertEqual((nodeDescribed["collections"] as? [[String: Any]])?.map { $0["name"] as? String }, ["products", "departments"])

        // Refusals: collection and scope together; a scope at a node.
        XCTAssertEqual(try get("\(base)/v1/search?q=a&scope=all&collection=products").status, 400)
        let atNode = try get("\(node)/v1/suggest?q=a&scope=all")
        XCTAssertEqual(atNode.status, 400)
        XCTAssertTrue(atNode.body.contains("ask the coordinator"), atNode.body)
        let search = try object(try get("\(base)/v1/search?q=garden&scope=all&pageSize=3").body)
        XCTAssertEqual((search["sections"] as? [[String: Any]])?.map { $0["collection"] as? String }, ["departments", "products"])
    }
}
