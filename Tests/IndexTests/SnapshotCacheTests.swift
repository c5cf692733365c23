import Catalog
import Foundation
import Storage
import Synchronization
import XCTest
@testable import Index

/// The per-snapshot values queries keep (``SnapshotCache``): the deleted documents' bitmap and the
/// delta's weights say exactly what the databases say, for the snapshot they were built from only.
final class SnapshotCacheTests: XCTestCase {
    private func entries(_ count: Int) -> [CatalogEntry] {
        (0..<count).map { CatalogEntry(id: "e\($0)", title: "word\($0 % 37) thing\($0 % 11)", categories: [], weight: UInt64(($0 * 7919) % 1000)) }
    }

    /// A shard with deleted base documents and a delta with holes (delta documents replaced again).
    private func updatedFixture() throws -> ExactnessTests.ShardFixture {
        let base = entries(400)
        let fixture = try ExactnessTests.ShardFixture(entries: base, parameters: IndexParameters(listSize: 4, heavyThreshold: 4))
        var reference = ReferenceIndex(entries: base)
        var moved = base.filter { $0.weight % 3 == 0 }
        for index in moved.indices { moved[index].weight += 5 }
        try GeneralPlanTests.update(fixture, &reference, upserting: moved, deleting: base.filter { $0.weight % 7 == 0 }.map(\.id))
        // The moved ones again: their first delta documents are replaced (holes in the delta's numbers).
        for index in moved.indices where index % 2 == 0 { moved[index].weight += 1 }
        try GeneralPlanTests.update(fixture, &reference, upserting: moved.enumerated().filter { $0.offset % 2 == 0 }.map(\.element),
                                    deleting: [])
        return fixture
    }

    func testTheDeletedBitmapSaysWhatTheDatabaseSays() throws {
        let fixture = try updatedFixture()
        let generation = try fixture.shard.current()
        try generation.environment.read { txn in
            let set = try XCTUnwrap(try generation.deletedSet(in: txn))
            XCTAssertGreaterThan(set.count, 100)
            XCTAssertTrue(generation.deletedBitmap.isBuilt(for: txn.snapshotID), "a small set is built by the query")
            var deleted = 0
            for docnum in 0..<(generation.baseCount + 600) {
                let expected = try generation.isDeleted(docnum, in: txn)
                XCTAssertEqual(try set.contains(docnum, in: txn), expected, "document \(docnum)")
                if expected { deleted += 1 }
            }
            XCTAssertEqual(deleted, set.count)
            var docs = Array(0..<(generation.baseCount + 50))
            try set.remove(from: &docs, in: txn)
            XCTAssertEqual(docs, try Array(0..<(generation.baseCount + 50)).filter { !(try generation.isDeleted($0, in: txn)) })
        }
    }

    func testTheDeltaWeightsAreTheRecordsWeights() throws {
        let fixture = try updatedFixture()
        let generation = try fixture.shard.current()
        try generation.environment.read { txn in
            let next = try XCTUnwrap(try Generation.nextDocument(generation.schema, in: txn))
            XCTAssertNil(try generation.deltaWeights(reads: DeltaWeights.minimumReads - 1, in: txn), "not built for a few reads")
            let weights = try XCTUnwrap(try generation.deltaWeights(reads: Int(next), in: txn))
            XCTAssertNotNil(try generation.deltaWeights(reads: 0, in: txn), "a built one is returned whatever the reads")
            var holes = 0
            for docnum in generation.baseCount..<(next + 5) {
                let expected = try generation.documentWeight(docnum, in: txn)
                XCTAssertEqual(weights.weight(of: docnum), expected, "document \(docnum)")
                if expected == nil { holes += 1 }
            }
            XCTAssertGreaterThan(holes, 10, "replaced delta documents leave holes")
            // The rank order: every document once, weight descending, then number.
            let expected = try (generation.baseCount..<next).compactMap { docnum in
                try generation.documentWeight(docnum, in: txn).map { (weight: $0, docnum: docnum) }
            }.sorted { $0.weight != $1.weight ? $0.weight > $1.weight : $0.docnum < $1.docnum }.map(\.docnum)
            XCTAssertEqual(weights.order, expected)
            // Each document's place in that order; none for holes, base numbers or past the end.
            for docnum in 0..<(next + 5) {
                if let place = weights.place(of: docnum) {
                    XCTAssertEqual(weights.order[Int(place)], docnum, "document \(docnum)")
                } else {
                    XCTAssertFalse(expected.contains(docnum), "document \(docnum) has a place")
                }
            }
        }
    }

    /// A value is used only by the snapshot it was built from; a large one is built in the
    /// background while queries do without; the newest snapshot's is kept.
    func testAValueServesOnlyItsSnapshot() throws {
        let fixture = try ExactnessTests.ShardFixture(entries: entries(50), parameters: IndexParameters())
        let generation = try fixture.shard.current()
        let cache = SnapshotCache<Int>(inlineBuildLimit: 10, bytes: { _ in 8 })
        let builds = Mutex<Int>(0)
        let build: @Sendable (borrowing ReadTransaction) throws -> Int = { txn in
            builds.withLock { $0 += 1 }
            return txn.snapshotID
        }
        let first = try generation.environment.read { txn in
            XCTAssertNil(cache.cached(in: txn))
            XCTAssertEqual(try cache.value(size: 10, environment: generation.environment, in: txn, build: build), txn.snapshotID)
            XCTAssertEqual(try cache.value(size: 10, environment: generation.environment, in: txn, build: build), txn.snapshotID)
            XCTAssertEqual(cache.cached(in: txn), txn.snapshotID)
            return txn.snapshotID
        }
        XCTAssertEqual(builds.withLock { $0 }, 1, "built once for the snapshot")
        _ = try fixture.shard.upsert([CatalogEntry(id: "new", title: "new", categories: [], weight: 1)])
        try generation.environment.read { txn in
            XCTAssertGreaterThan(txn.snapshotID, first)
            XCTAssertNil(cache.cached(in: txn), "a write makes the kept value another snapshot's")
            XCTAssertNil(try cache.value(size: 11, environment: generation.environment, in: txn, build: build),
                         "a large value is not built by the query")
            let deadline = ContinuousClock.now + .seconds(30)
            while !cache.isBuilt(for: txn.snapshotID), ContinuousClock.now < deadline { usleep(5_000) }
            XCTAssertEqual(cache.cached(in: txn), txn.snapshotID, "built in the background, for the newest snapshot")
        }
        let statistics = cache.statistics
        XCTAssertEqual(statistics.queryBuilds, 1)
        XCTAssertEqual(statistics.backgroundBuilds, 1)
        XCTAssertEqual(statistics.doneWithout, 1)
        XCTAssertEqual(statistics.bytes, 8)
    }
}
