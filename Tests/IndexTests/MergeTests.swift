import Catalog
import Dispatch
import Foundation
import Synchronization
import XCTest
import TestSupport
@testable import Index

/// Merges: a generation's delta folded into a new base revision (``Shard/beginMerge()``). The
/// randomised proof that answers stay exact through merges is in
/// `ExactnessTests.testUpdatesKeepTheIndexExact`; these tests pin the lifecycle: what is on disk,
/// what serves, what a crash or a switch leaves.
final class MergeTests: XCTestCase {
    private func entries(_ count: Int, prefix: String = "e", weight: (Int) -> Int = { 1_000 - $0 }) -> [CatalogEntry] {
        (0..<count).map { CatalogEntry(id: "\(prefix)\($0)", title: "item \(prefix)\($0) alpha", categories: ["Things"], weight: UInt64(weight($0))) }
    }

    func testAMergeFoldsTheDeltaInAndKeepsEveryAnswer() throws {
        let dir = TemporaryDirectory()
        let shard = try Shard(directory: dir.path)
        let built = try shard.build(from: entries(40))
        // Re-weight some entries (delta documents, holes in the base), add some, delete some.
        _ = try shard.upsert(entries(10, weight: { 5_000 + $0 }))
        _ = try shard.upsert(entries(5, prefix: "n"))
        _ = try shard.delete(ids: ["e20", "e21", "n4"])
        XCTAssertEqual(try shard.deltaSize(), DeltaSize(base: 40, documents: 14, deletedBase: 12))
        let queries = ["i", "item", "item e1", "alp", "item n", "itme"]
        let before = try queries.map { try titles(shard, $0) }
        let versionBefore = try shard.readVersion()

        let info = try XCTUnwrap(try shard.merge())
        XCTAssertEqual(info.generation, built.number)
        XCTAssertEqual(info.revision, 1)
        XCTAssertEqual(info.entries, 40 + 5 - 3)
        XCTAssertEqual(info.delta.total, 26)
        XCTAssertEqual(try shard.deltaSize(), DeltaSize(base: 42, documents: 0, deletedBase: 0))
        XCTAssertEqual(shard.currentGeneration, built.number, "a merge keeps the generation's number")
        XCTAssertEqual(try queries.map { try titles(shard, $0) }, before)
        XCTAssertEqual(try queries.map { try titles(shard, $0, generation: built.number) }, before, "pinned reads see the merge too")
        let versionAfter = try shard.readVersion()
        XCTAssertNotEqual(versionBefore, versionAfter, "an answer cached before the merge is not mistaken for one after it")
        XCTAssertEqual(versionAfter.revision, 1)

        // On disk: the new revision is named, the data it replaced is gone.
        let generationPath = dir.path + "/gen-" + String(format: "%06d", built.number)
        XCTAssertEqual(try String(contentsOfFile: generationPath + "/REVISION", encoding: .utf8), "1\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: generationPath + "/merge-1/data.mdb"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: generationPath + "/data.mdb"))

        // Writes go on to the new revision, a second merge makes revision 2, and a reopened
        // shard serves the last one.
        _ = try shard.upsert([CatalogEntry(id: "late", title: "item late alpha", weight: 1_000_000)])
        XCTAssertEqual(try titles(shard, "item l"), ["item late alpha"])
        XCTAssertEqual(try shard.merge()?.revision, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: generationPath + "/merge-1"))
        let reopened = try Shard(directory: dir.path)
        XCTAssertEqual(try titles(reopened, "item l"), ["item late alpha"])
        XCTAssertEqual(try reopened.readVersion().revision, 2)
        XCTAssertNil(try shard.merge(), "nothing to merge")
    }

    func testWritesDuringTheBuildReachTheNewRevision() throws {
        let dir = TemporaryDirectory()
        let shard = try Shard(directory: dir.path)
        try shard.build(from: entries(30))
        _ = try shard.upsert(entries(3, prefix: "d"))
        let pending = try XCTUnwrap(try shard.beginMerge())
        XCTAssertNil(try shard.beginMerge(), "one merge at a time")
        XCTAssertFalse(try shard.mergeDue(MergePolicy(deltaFraction: 0, minimumDelta: 0)), "not due while one is under way")
        _ = try shard.upsert([CatalogEntry(id: "during", title: "item during alpha", weight: 99_999)])
        let built = try shard.buildMerge(pending)
        _ = try shard.delete(ids: ["d1", "e0"])
        _ = try shard.upsert([CatalogEntry(id: "e5", title: "item e5 alpha renamed", weight: 77_777)])
        let expected = try titles(shard, "item")
        let info = try XCTUnwrap(try shard.finishMerge(pending, build: built))
        XCTAssertEqual(info.replayed, 3)
        XCTAssertEqual(try titles(shard, "item"), expected)
        XCTAssertEqual(try shard.entryCount(), 30 + 3 + 1 - 2)
        XCTAssertEqual(try shard.entry(id: "e5")?.title, "item e5 alpha renamed")
        XCTAssertNil(try shard.entry(id: "d1"))
        // The replayed writes are the new revision's (small) delta. The build read the entries
        // after "during" was written, so it is in the new base as well as in the log; its replay
        // replaces it with itself (the same answers, one more replaced base document).
        XCTAssertEqual(try shard.deltaSize(), DeltaSize(base: 34, documents: 2, deletedBase: 4))
    }

    func testACrashMidMergeLeavesTheServingRevision() throws {
        let dir = TemporaryDirectory()
        let number: Int
        do {
            let shard = try Shard(directory: dir.path)
            number = try shard.build(from: entries(20)).number
            _ = try shard.upsert(entries(4, prefix: "x"))
            let pending = try XCTUnwrap(try shard.beginMerge())
            _ = try shard.buildMerge(pending)
            _ = try shard.upsert([CatalogEntry(id: "after", title: "item after alpha", weight: 5)])
            // The process dies here: the built revision is never named.
        }
        let generationPath = dir.path + "/gen-" + String(format: "%06d", number)
        XCTAssertTrue(FileManager.default.fileExists(atPath: generationPath + "/merge-1"))
        let shard = try Shard(directory: dir.path)
        XCTAssertFalse(FileManager.default.fileExists(atPath: generationPath + "/merge-1"), "the unfinished merge is removed at open")
        XCTAssertEqual(try shard.readVersion().revision, 0)
        XCTAssertEqual(try shard.entryCount(), 25)
        XCTAssertEqual(try titles(shard, "item af"), ["item after alpha"])
        XCTAssertEqual(try shard.merge()?.revision, 1, "and merging again works")
        XCTAssertEqual(try titles(shard, "item af"), ["item after alpha"])
    }

    func testAMergeWhoseGenerationStoppedServingIsAbandoned() throws {
        let dir = TemporaryDirectory()
        let shard = try Shard(directory: dir.path)
        let first = try shard.build(from: entries(20))
        _ = try shard.upsert(entries(4, prefix: "x"))
        let pending = try XCTUnwrap(try shard.beginMerge())
        let built = try shard.buildMerge(pending)
        let second = try shard.build(from: entries(5, prefix: "s"))
        XCTAssertNil(try shard.finishMerge(pending, build: built))
        XCTAssertEqual(shard.currentGeneration, second.number)
        let generationPath = dir.path + "/gen-" + String(format: "%06d", first.number)
        XCTAssertFalse(FileManager.default.fileExists(atPath: generationPath + "/merge-1"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: generationPath + "/REVISION"))
        // The previous generation still reads as it was, and a rollback serves it, delta and all.
        XCTAssertEqual(try titles(shard, "item x", generation: first.number).count, 4)
        try shard.rollback()
        XCTAssertEqual(try shard.entryCount(), 24)
        XCTAssertNotNil(try shard.merge(), "a new merge of it can start")
    }

    func testAnotherProcessSwitchesToTheMergedRevisionOnReload() throws {
        let dir = TemporaryDirectory()
        let writer = try Shard(directory: dir.path)
        try writer.build(from: entries(20))
        _ = try writer.upsert(entries(5, prefix: "x"))
        let reader = try Shard(directory: dir.path, readOnly: true)
        let before = try titles(reader, "item")
        try writer.merge()
        try reader.reload()
        XCTAssertEqual(try reader.readVersion().revision, 1)
        XCTAssertEqual(try titles(reader, "item"), before)
    }

    func testConcurrentReadsAcrossAMergeNeverFail() throws {
        let dir = TemporaryDirectory()
        let shard = try Shard(directory: dir.path)
        try shard.build(from: entries(200))
        let expected = Mutex<[String]>([])
        let failures = Mutex<[String]>([])
        for round in 0..<4 {
            _ = try shard.upsert(entries(20, prefix: "r\(round)-", weight: { 10 + $0 }))
            expected.withLock { $0 = (try? titles(shard, "item")) ?? [] }
            let pending = try XCTUnwrap(try shard.beginMerge())
            let built = try shard.buildMerge(pending)
            DispatchQueue.concurrentPerform(iterations: 400) { index in
                do {
                    if index == 200 { _ = try shard.finishMerge(pending, build: built) }
                    let found = try titles(shard, "item")
                    if found != expected.withLock({ $0 }) { failures.withLock { $0.append("round \(round): \(found.prefix(3))") } }
                } catch {
                    failures.withLock { $0.append("round \(round): \(error)") }
                }
            }
            XCTAssertEqual(try shard.readVersion().revision, round + 1)
        }
        let found = failures.withLock { $0 }
        XCTAssertEqual(found.count, 0, "first failures: \(found.prefix(3))")
    }

    func testThePolicyWaitsForAShareOfTheBase() {
        let policy = MergePolicy(deltaFraction: 0.01, minimumDelta: 100)
        XCTAssertFalse(policy.isDue(DeltaSize(base: 1_000, documents: 50, deletedBase: 49)), "below the minimum")
        XCTAssertTrue(policy.isDue(DeltaSize(base: 1_000, documents: 50, deletedBase: 50)))
        XCTAssertFalse(policy.isDue(DeltaSize(base: 1_000_000, documents: 5_000, deletedBase: 4_999)), "below 1%")
        XCTAssertTrue(policy.isDue(DeltaSize(base: 1_000_000, documents: 5_000, deletedBase: 5_000)))
        XCTAssertFalse(MergePolicy.never.isDue(DeltaSize(base: 1, documents: 1_000_000, deletedBase: 0)))
        XCTAssertFalse(MergePolicy(deltaFraction: 0, minimumDelta: 0).isDue(DeltaSize(base: 10, documents: 0, deletedBase: 0)),
                       "an empty delta is never due")
    }

    /// A node's spread raises both thresholds by its share and leaves `never` and a zero share alone.
    func testASpreadRaisesBothThresholds() {
        let spread = MergePolicy(deltaFraction: 0.01, minimumDelta: 100).spread(by: 0.5)
        XCTAssertEqual(spread.deltaFraction, 0.015, accuracy: 1e-12)
        XCTAssertEqual(spread.minimumDelta, 150)
        XCTAssertFalse(spread.isDue(DeltaSize(base: 1_000_000, documents: 14_999, deletedBase: 0)), "below 1.5%")
        XCTAssertTrue(spread.isDue(DeltaSize(base: 1_000_000, documents: 15_000, deletedBase: 0)))
        XCTAssertFalse(spread.isDue(DeltaSize(base: 1_000, documents: 149, deletedBase: 0)), "below the raised minimum")
        XCTAssertEqual(MergePolicy.never.spread(by: 0.5), .never)
        XCTAssertEqual(MergePolicy(deltaFraction: 0.01, minimumDelta: 100).spread(by: 0), MergePolicy(deltaFraction: 0.01, minimumDelta: 100))
    }
}

/// The titles a keystroke suggests (up to 50).
private func titles(_ shard: Shard, _ text: String, generation: Int? = nil) throws -> [String] {
    try shard.suggest(SuggestRequest(text: text, limits: .init(entries: 50)), generation: generation).entries.map(\.title)
}
