import Cluster
import Foundation
import HTTP2
import Launcher
import RPC
import TestSupport
import Wire
import XCTest

/// `typeahead admin … --collection NAME` against a local cluster of two collections (the sample
/// catalog as `default`, its titles renamed as `departments`, every node serving both): each
/// command changes the collection named and only that one.
extension AdminTests {
    func startCollections(departments: String) async throws -> LocalCluster.Summary {
        var options = LocalCluster.Options(catalog: Self.sampleCatalog, executable: Self.binary)
        options.collections = [("departments", departments)]
        options.shards = 2
        options.replicas = 1
        options.listen = Endpoint(host: "127.0.0.1", port: 0)
        options.dataDirectory = directory.path + "/cluster"
        let cluster = LocalCluster(options: options)
        self.cluster = cluster
        return try await cluster.start()
    }

    func testCommandsWorkOnTheCollectionNamed() async throws {
        let summary = try await startCollections(departments: try renamedCatalog("Aisle"))
        XCTAssertEqual(summary.collections.map(\.name), ["default", "departments"])
        let client = try HTTP2Client()
        defer { client.shutdown() }
        let connection = try await client.connect(host: summary.coordinator.host, port: summary.coordinator.port)
        func suggest(_ text: String, _ collection: String = "") async throws -> Typeahead_V1_SuggestResponse {
            try await GRPCClient.call(Typeahead_V1_TypeaheadService.suggest, Typeahead_V1_SuggestRequest(text: text, collection: collection),
                                      on: connection, options: .init(timeout: .seconds(5)))
        }
        func titles(_ answer: Typeahead_V1_SuggestResponse) -> Set<String> { Set(answer.entries.map { String($0.title.prefix(5)) }) }
        let aisle = try await suggest("aisle r", "departments"), sample = try await suggest("r")
        XCTAssertEqual(titles(aisle), ["Aisle"])
        XCTAssertFalse(titles(sample).contains("Aisle"), "the default collection is the sample as it was")

        // Reindex one collection: it switches, the other keeps its generation and entries.
        let (reindexed, reindexOutput) = try admin(summary, ["reindex", "--collection", "departments", "--catalog", try renamedCatalog("Bayou"),
                                                             "--progress", "plain"])
        XCTAssertEqual(reindexed, 0, reindexOutput)
        XCTAssertTrue(reindexOutput.contains("reindexed 1600 entries into generation 2"), reindexOutput)
        XCTAssertTrue(reindexOutput.contains("serves generation 2 of collection departments"), reindexOutput)
        let bayou = try await suggest("bayou r", "departments")
        XCTAssertEqual(titles(bayou), ["Bayou"])
        XCTAssertEqual(bayou.shards?.generation, 2)
        let plain = try await suggest("red")
        XCTAssertEqual(plain.shards?.generation, 1, "the default collection did not switch")
        XCTAssertFalse(titles(plain).contains("Bayou"))

        // Updates reach only the collection named.
        let changes = directory.path + "/department-changes.jsonl"
        try Data(#"{"id":"dept-z","title":"Zyzzyva corner","weight":5}"#.utf8 + [0x0A]).write(to: URL(fileURLWithPath: changes))
        let (upserted, upsertOutput) = try admin(summary, ["upsert", "--collection", "departments", changes])
        XCTAssertEqual(upserted, 0, upsertOutput)
        let upsertedThere = try await suggest("zyzzyva", "departments"), notHere = try await suggest("zyzzyva")
        XCTAssertEqual(upsertedThere.entries.map(\.id), ["dept-z"])
        XCTAssertEqual(notHere.entries.map(\.id), [], "not in the default collection")
        let (deleted, deleteOutput) = try admin(summary, ["delete", "--collection", "departments", "dept-z"])
        XCTAssertEqual(deleted, 0, deleteOutput)
        XCTAssertTrue(deleteOutput.contains("1 deleted, 0 not found"), deleteOutput)
        let gone = try await suggest("zyzzyva", "departments")
        XCTAssertEqual(gone.entries.map(\.id), [])

        // Status of each collection, from the cluster file and from the coordinator.
        let (_, departments) = try admin(summary, ["status", "--collection", "departments", "--json"])
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(departments.utf8)) as? [String: Any], departments)
        XCTAssertEqual(report["collection"] as? String, "departments")
        XCTAssertEqual((report["replicas"] as? [[String: Any]])?.map { $0["currentGeneration"] as? Int }, [2, 2], departments)
        XCTAssertEqual((report["coordinators"] as? [[String: Any]])?.first?["servingGeneration"] as? Int, 2, departments)
        let (_, table) = try run(["admin", "--coordinator", "\(summary.coordinator)", "--token-file", summary.tokenFile, "status"])
        XCTAssertTrue(table.contains("collection default (of default, departments)") && table.contains("serving generation 1"), table)

        // Rollback and compaction of one collection.
        let (rolled, rollbackOutput) = try admin(summary, ["rollback", "--collection", "departments"])
        XCTAssertEqual(rolled, 0, rollbackOutput)
        XCTAssertTrue(rollbackOutput.contains("generation 1 serves"), rollbackOutput)
        let rolledBack = try await suggest("aisle r", "departments")
        XCTAssertEqual(titles(rolledBack), ["Aisle"])
        let (compacted, compactOutput) = try admin(summary, ["compact", "--collection", "departments"])
        XCTAssertEqual(compacted, 0, compactOutput)
        XCTAssertTrue(compactOutput.contains("compacted into generation 3"), compactOutput)
        let compactedAnswer = try await suggest("aisle r", "departments"), untouched = try await suggest("red")
        XCTAssertEqual(compactedAnswer.shards?.generation, 3)
        XCTAssertEqual(untouched.shards?.generation, 1)

        // A collection the cluster does not have, or a name that breaks the rule.
        let (unknown, unknownOutput) = try admin(summary, ["status", "--collection", "people"])
        XCTAssertEqual(unknown, 1, unknownOutput)
        XCTAssertTrue(unknownOutput.contains(#"the cluster has no collection "people" (collections: default, departments)"#), unknownOutput)
        let (invalid, invalidOutput) = try admin(summary, ["status", "--collection", "People"])
        XCTAssertEqual(invalid, 2, invalidOutput)
    }
}
