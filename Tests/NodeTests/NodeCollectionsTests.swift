import Foundation
import TestSupport
import XCTest

/// `typeahead node --collection NAME=DIR`: one process serving the sample catalog as its
/// default collection (`--dir`) and a second catalog as another, routed by `collection`.
extension NodeTests {
    func testASecondCollectionFromTheCommandLine() throws {
        let catalog = directory + "/tools.jsonl"
        try Data("""
        {"id":"t-1","title":"Red hammer","categories":["Tools"],"weight":9}
        {"id":"t-2","title":"Red shovel","categories":["Tools"],"weight":5}

        """.utf8).write(to: URL(fileURLWithPath: catalog))
        let tools = directory + "/tools"
        let indexed = try run(Self.binary.path, ["index", "--catalog", catalog, "--dir", tools])
        XCTAssertEqual(indexed.status, 0, indexed.transcript)
        let node = try startNode(["--collection", "tools=" + tools])

        let routed = try curl([node.base + "/v1/suggest?q=red%20sh&collection=tools"])
        XCTAssertTrue(routed.stdout.contains(#""id":"t-2""#) && !routed.stdout.contains("sku-"), routed.stdout)
        let posted = try curl(["-H", "content-type: application/json", "-d", #"{"text":"red sh","collection":"tools"}"#,
                               node.base + "/typeahead.v1.Typeahead/Suggest"])
        XCTAssertEqual(posted.stdout, routed.stdout)
        // The default collection answers as it did without the flag, named or not.
        let plain = try curl([node.base + "/v1/suggest?q=red%20sh"])
        XCTAssertTrue(plain.stdout.contains("sku-") && !plain.stdout.contains("t-2"), plain.stdout)
        XCTAssertEqual(try curl([node.base + "/v1/suggest?q=red%20sh&collection=default"]).stdout, plain.stdout)

        let unknown = try curl(["-w", "\n%{http_code}", node.base + "/v1/search?q=red&collection=people"])
        XCTAssertTrue(unknown.stdout.hasSuffix("\n404") && unknown.stdout.contains(#""code":"not_found""#)
                      && unknown.stdout.contains(#"collection \"people\""#), unknown.stdout)
        let bad = try curl(["-w", "\n%{http_code}", node.base + "/v1/search?q=red&collection=No%20Such"])
        XCTAssertTrue(bad.stdout.hasSuffix("\n400") && bad.stdout.contains("INVALID_COLLECTION_NAME"), bad.stdout)
        let metrics = try curl([node.base + "/metrics"]).stdout
        XCTAssertTrue(metrics.contains(#"typeahead_collection_entries{collection="tools"} 2"#), metrics)
        XCTAssertTrue(metrics.contains("\ntypeahead_index_entries 1600\n"), metrics)

        for (arguments, message) in [(["--collection", "Tools=" + tools], "the name must be 1 to 64 bytes"),
                                     (["--collection", "default=" + tools], #"collection "default" is given twice"#),
                                     (["--collection", "tools"], "--collection must look like NAME=DIR"),
                                     (["--collection", "again=" + shard], "serves two collections")] {
            let refused = try run(Self.binary.path, ["node", "--dir", shard, "--listen", "127.0.0.1:0"] + arguments)
            XCTAssertEqual(refused.status, 2, refused.transcript)
            XCTAssertTrue(refused.stderr.contains(message), "\(arguments): \(refused.transcript)")
        }
    }
}
