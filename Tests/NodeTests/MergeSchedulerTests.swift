import Catalog
import Dispatch
import Foundation
import Index
import RPC
import TestSupport
import XCTest
@testable import Node

/// The node's background merges: started after a write once the policy says so, built off the
/// writer queue while writes go on, switched on the writer queue, counted in the metrics.
final class MergeSchedulerTests: XCTestCase {
    func testWritesPastThePolicyMergeInTheBackgroundAndWritesDuringTheBuildSurvive() throws {
        let dir = TemporaryDirectory()
        let shard = try Shard(directory: dir.path, parallelBuilds: false)
        let base = (0..<2_000).map { CatalogEntry(id: "b\($0)", title: "base item \($0)", categories: ["Base"], weight: UInt64(5_000 - $0)) }
        let number = try shard.build(from: base).number
        let writer = DispatchQueue(label: "test.writer")
        let telemetry = ServerTelemetry(label: "test")
        let scheduler = MergeScheduler(shard: shard, policy: MergePolicy(deltaFraction: 0.01, minimumDelta: 10), writer: writer,
                                       telemetry: telemetry)
        // Below the policy: no merge.
        writer.sync {
            _ = try? shard.upsert((0..<5).map { CatalogEntry(id: "u\($0)", title: "upserted item \($0)", weight: UInt64(90_000 + $0)) })
            scheduler.considerMerge()
        }
        XCTAssertEqual(try shard.readVersion().revision, 0)
        // Past it (25 > 1% of 2,000): a merge starts; writes keep coming while it builds.
        var written = 5
        for batch in 0..<40 {
            writer.sync {
                _ = try? shard.upsert((0..<5).map { CatalogEntry(id: "u\(written + $0)", title: "upserted item \(written + $0)",
                                                                 weight: UInt64(90_000 + written + $0)) })
                if batch % 7 == 0 { _ = try? shard.delete(ids: ["b\(batch)"]) }
                scheduler.considerMerge()
            }
            written += 5
        }
        let deadline = Date().addingTimeInterval(60)
        while try shard.readVersion().revision == 0, Date() < deadline { usleep(20_000) }
        writer.sync {}
        XCTAssertGreaterThanOrEqual(try shard.readVersion().revision, 1, "a merge finished")
        XCTAssertEqual(shard.currentGeneration, number)
        // Let any merge still under way finish, then compare with a fresh build of the same entries.
        while scheduler.isMerging, Date() < deadline { usleep(20_000) }
        XCTAssertFalse(scheduler.isMerging)
        writer.sync {}
        var expected = base.filter { id in !(0..<40).filter { $0 % 7 == 0 }.map { "b\($0)" }.contains(id.id) }
        expected += (0..<written).map { CatalogEntry(id: "u\($0)", title: "upserted item \($0)", weight: UInt64(90_000 + $0)) }
        XCTAssertEqual(try shard.entryCount(), expected.count)
        let fresh = try Shard(directory: dir.path + "-fresh")
        defer { try? FileManager.default.removeItem(atPath: dir.path + "-fresh") }
        try fresh.build(from: expected)
        for text in ["u", "upserted item 1", "base", "base item 2", "item", "upsetred"] {
            let request = SuggestRequest(text: text)
            XCTAssertEqual(try shard.suggest(request), try fresh.suggest(request), text)
        }
        let metrics = telemetry.registry.exposition()
        XCTAssertTrue(metrics.contains("typeahead_merges_total"), metrics)
        XCTAssertFalse(metrics.contains("typeahead_merges_total 0\n"), "the merge is counted")
        XCTAssertTrue(metrics.contains("typeahead_index_delta_documents"), metrics)
    }
}
