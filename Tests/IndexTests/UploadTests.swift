import Catalog
import Foundation
import Index
import TestSupport
import XCTest

/// Generations uploaded in batches (how a live cluster is reindexed), and compaction.
final class UploadTests: XCTestCase {
    static func entries(_ count: Int, seed: UInt64 = 42) -> [CatalogEntry] {
        var rng = SeededGenerator(seed: seed)
        var generator = RandomCatalog(vocabularySize: 30, rng: &rng)
        return generator.randomEntries(count, &rng)
    }

    static func batches(_ entries: [CatalogEntry], size: Int) -> [[CatalogEntry]] {
        stride(from: 0, to: entries.count, by: size).map { Array(entries[$0..<min(entries.count, $0 + size)]) }
    }

    /// Every request answered alike by both shards.
    func assertSameAnswers(_ a: Shard, _ b: Shard, file: StaticString = #filePath, line: UInt = #line) throws {
        for text in ["", "a", "ap", "app", "ban", "caf", "red s", "zzz"] {
            XCTAssertEqual(try a.suggest(SuggestRequest(text: text)), try b.suggest(SuggestRequest(text: text)), text, file: file, line: line)
            XCTAssertEqual(try a.search(SearchRequest(text: text)), try b.search(SearchRequest(text: text)), text, file: file, line: line)
        }
    }

    func testUploadedGenerationEqualsADirectBuild() throws {
        let catalog = Self.entries(250)
        let directory = TemporaryDirectory("upload")
        let direct = try Shard(directory: directory.path + "/direct")
        try direct.build(from: catalog)
        let uploaded = try Shard(directory: directory.path + "/uploaded")
        try uploaded.build(from: Array(catalog.prefix(10)))   // generation 1 serves meanwhile
        guard case .started(let info) = try uploaded.beginUpload(generation: 5, label: "cat-A") else { return XCTFail("a new upload") }
        XCTAssertEqual(info.batches, 0)
        for (number, batch) in Self.batches(catalog, size: 64).enumerated() {
            _ = try uploaded.appendUpload(generation: 5, batch: number, entries: batch)
        }
        XCTAssertEqual(try uploaded.upload()?.entries, 250)
        XCTAssertEqual(try uploaded.entryCount(), 10, "the serving generation is untouched by an upload")
        let built = try uploaded.finishUpload(generation: 5, batches: 4, entries: 250)
        XCTAssertEqual(built.number, 5)
        XCTAssertEqual(built.state, .staged)
        XCTAssertEqual(built.label, "cat-A")
        XCTAssertNil(try uploaded.upload())
        try uploaded.activate(generation: 5)
        try assertSameAnswers(direct, uploaded)
        XCTAssertEqual(try uploaded.generations().first { $0.number == 5 }?.label, "cat-A")
    }

    /// An upload's filterable attributes (a reindex's, from the cluster file) survive a restart of
    /// the node between batches and are built into the generation, as a direct build's are.
    func testAnUploadBuildsItsFilterableAttributes() throws {
        var catalog = Self.entries(120)
        for index in catalog.indices where index % 3 == 0 { catalog[index].attributes["color"] = index % 2 == 0 ? "red" : "blue" }
        let parameters = IndexParameters(filterableAttributes: ["color"])
        let directory = TemporaryDirectory("upload-filterable")
        let direct = try Shard(directory: directory.path + "/direct")
        try direct.build(from: catalog, parameters: parameters)
        var uploaded: Shard? = try Shard(directory: directory.path + "/uploaded")
        _ = try uploaded!.beginUpload(generation: 1, label: "L", parameters: parameters)
        let batches = Self.batches(catalog, size: 50)
        _ = try uploaded!.appendUpload(generation: 1, batch: 0, entries: batches[0])
        uploaded = try Shard(directory: directory.path + "/uploaded")   // the node restarts
        for number in 1..<batches.count { _ = try uploaded!.appendUpload(generation: 1, batch: number, entries: batches[number]) }
        _ = try uploaded!.finishUpload(generation: 1, batches: batches.count, entries: catalog.count)
        try uploaded!.activate(generation: 1)
        XCTAssertEqual(try uploaded!.filterableAttributes(), ["color"])
        try assertSameAnswers(direct, uploaded!)
        let red = SearchRequest(text: "", tokens: [SearchToken(kind: .init("color"), value: "red")], pageSize: 100)
        XCTAssertEqual(try uploaded!.search(red), try direct.search(red))
        XCTAssertEqual(try uploaded!.search(red).totalHits, catalog.filter { $0.attributes["color"] == "red" }.count)
    }

    /// A reopened shard (a restarted node) resumes where the upload stood; repeated batches are
    /// acknowledged without being appended twice, batches past the next are refused.
    func testResumesAfterReopenAndIgnoresRepeats() throws {
        let catalog = Self.entries(120)
        let directory = TemporaryDirectory("upload-resume")
        var shard: Shard? = try Shard(directory: directory.path)
        let batches = Self.batches(catalog, size: 50)
        _ = try shard!.beginUpload(generation: 1, label: "L")
        _ = try shard!.appendUpload(generation: 1, batch: 0, entries: batches[0])
        XCTAssertEqual(try shard!.appendUpload(generation: 1, batch: 0, entries: batches[0]).entries, 50, "a repeated batch is not appended")
        XCTAssertThrowsError(try shard!.appendUpload(generation: 1, batch: 2, entries: batches[2])) { error in
            XCTAssertEqual((error as? IndexError)?.code, .failedPrecondition)
            XCTAssertTrue("\(error)".contains("expects batch 1"), "\(error)")
            XCTAssertEqual((error as? IndexError)?.reason, .uploadBatchOutOfOrder)
            XCTAssertEqual((error as? IndexError)?.metadata, ["expectedBatch": "1"])
        }
        shard = nil
        let reopened = try Shard(directory: directory.path)
        guard case .resumed(let info) = try reopened.beginUpload(generation: 1, label: "L") else { return XCTFail("the upload resumes") }
        XCTAssertEqual(info.batches, 1)
        for number in info.batches..<batches.count {
            _ = try reopened.appendUpload(generation: 1, batch: number, entries: batches[number])
        }
        XCTAssertThrowsError(try reopened.finishUpload(generation: 1, batches: 3, entries: 999), "totals must match")
        _ = try reopened.finishUpload(generation: 1, batches: 3, entries: 120)
        guard case .built(let done) = try reopened.beginUpload(generation: 1, label: "L") else { return XCTFail("already built") }
        XCTAssertEqual(done.number, 1)
        try reopened.activate(generation: 1)
        XCTAssertEqual(try reopened.entryCount(), 120)
    }

    /// A batch half-written when the node died (bytes past the recorded length) is cut away.
    func testHalfWrittenBatchIsCutBack() throws {
        let catalog = Self.entries(60)
        let directory = TemporaryDirectory("upload-torn")
        let shard = try Shard(directory: directory.path)
        _ = try shard.beginUpload(generation: 1, label: "L")
        _ = try shard.appendUpload(generation: 1, batch: 0, entries: Array(catalog.prefix(30)))
        let spool = directory.path + "/upload/entries.jsonl"
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: spool))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"id":"torn","title":"half a li"#.utf8))
        try handle.close()
        _ = try shard.appendUpload(generation: 1, batch: 1, entries: Array(catalog.suffix(30)))
        _ = try shard.finishUpload(generation: 1, batches: 2, entries: 60)
        try shard.activate(generation: 1)
        XCTAssertEqual(try shard.entryCount(), 60)
        XCTAssertNil(try shard.entry(id: "torn"))
    }

    /// An upload whose spool lost acknowledged lines (a damaged disk, a hand edit) is not built:
    /// the node reads it back as it indexes it, so the shortfall shows only at the end; the build
    /// fails with DATA_LOSS naming the counts, nothing is left of it, and the serving generation
    /// stays. An intact spool then builds.
    func testASpoolShorterThanAcknowledgedIsNotBuilt() throws {
        let catalog = Self.entries(60)
        let directory = TemporaryDirectory("upload-short")
        let shard = try Shard(directory: directory.path)
        try shard.build(from: Array(catalog.prefix(5)))
        _ = try shard.beginUpload(generation: 4, label: "L")
        _ = try shard.appendUpload(generation: 4, batch: 0, entries: catalog)
        let spool = directory.path + "/upload/entries.jsonl"
        let lines = try String(contentsOfFile: spool, encoding: .utf8).split(separator: "\n")
        try (lines.dropLast(3).joined(separator: "\n") + "\n").write(toFile: spool, atomically: false, encoding: .utf8)
        XCTAssertThrowsError(try shard.finishUpload(generation: 4, batches: 1, entries: 60)) { error in
            XCTAssertEqual((error as? IndexError)?.code, .dataLoss)
            XCTAssertTrue("\(error)".contains("holds 57 entries; 60 were uploaded"), "\(error)")
        }
        XCTAssertEqual(try shard.generations().map(\.number), [1])
        XCTAssertEqual(try shard.entryCount(), 5)
    }

    func testOtherLabelStartsOverAndNumbersOnlyGrow() throws {
        let catalog = Self.entries(40)
        let directory = TemporaryDirectory("upload-label")
        let shard = try Shard(directory: directory.path)
        try shard.build(from: catalog, number: 3)
        XCTAssertThrowsError(try shard.beginUpload(generation: 3, label: "L")) { error in
            XCTAssertEqual((error as? IndexError)?.code, .failedPrecondition)
        }
        _ = try shard.beginUpload(generation: 4, label: "first")
        _ = try shard.appendUpload(generation: 4, batch: 0, entries: catalog)
        guard case .started(let fresh) = try shard.beginUpload(generation: 4, label: "second") else { return XCTFail("starts over") }
        XCTAssertEqual(fresh.entries, 0)
        XCTAssertThrowsError(try shard.appendUpload(generation: 5, batch: 0, entries: catalog)) { error in
            XCTAssertEqual((error as? IndexError)?.code, .notFound)
        }
        var bad = catalog[0]
        bad.title = "   "
        XCTAssertThrowsError(try shard.appendUpload(generation: 4, batch: 0, entries: [bad])) { error in
            XCTAssertEqual((error as? IndexError)?.code, .invalidArgument)
        }
        XCTAssertEqual(try shard.upload()?.batches, 0, "an invalid batch is not appended")
        try shard.abortUpload()
        XCTAssertNil(try shard.upload())
    }

    /// Writes made while a reindex is under way reach the new generation: logged during the
    /// upload and replayed onto the build, applied at once to the staged generation after it, in
    /// order, so activation loses none. The reference is a shard built from the same catalog with
    /// the same writes applied after.
    func testWritesDuringAnUploadReachTheNewGeneration() throws {
        let old = Self.entries(40, seed: 1), new = Self.entries(200, seed: 7)
        let directory = TemporaryDirectory("upload-writes")
        let shard = try Shard(directory: directory.path + "/live")
        try shard.build(from: old)
        var renamed = new[5]
        renamed.title = "Zebra crossing lights"
        let added = CatalogEntry(id: "zz-added", title: "Zebra sandwich", categories: ["Food"], weight: 900)
        let late = CatalogEntry(id: "zz-late", title: "Zebra late arrival", weight: 5)
        typealias Write = (upserts: [CatalogEntry], deletes: [String])
        let during: [Write] = [([added], []), ([renamed], []), ([], [new[10].id]), ([], [old[3].id])]
        let after: [Write] = [([late], []), ([], [new[20].id, "no-such-id"])]

        let batches = Self.batches(new, size: 100)
        _ = try shard.beginUpload(generation: 2, label: "B")
        _ = try shard.appendUpload(generation: 2, batch: 0, entries: batches[0])
        for write in during {
            if !write.upserts.isEmpty { _ = try shard.upsert(write.upserts) }
            if !write.deletes.isEmpty { _ = try shard.delete(ids: write.deletes) }
        }
        // A record torn by a crash (never acknowledged) at the end of the log is left out.
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.path + "/live/upload/changes.jsonl"))
        try log.seekToEnd()
        try log.write(contentsOf: Data("+{\"id\":\"torn".utf8))
        try log.close()
        _ = try shard.appendUpload(generation: 2, batch: 1, entries: batches[1])
        XCTAssertEqual(try shard.suggest(SuggestRequest(text: "zebra s")).entries.map(\.id), ["zz-added"],
                       "the serving generation took the write as before")
        let built = try shard.finishUpload(generation: 2, batches: 2, entries: 200)
        let expected = Set(new.map(\.id)).union([added.id]).subtracting([new[10].id, old[3].id])
        XCTAssertEqual(built.entries, expected.count, "the writes made during the upload are in the build")
        for write in after {
            if !write.upserts.isEmpty { _ = try shard.upsert(write.upserts) }
            if !write.deletes.isEmpty { _ = try shard.delete(ids: write.deletes) }
        }
        try shard.activate(generation: 2)

        let reference = try Shard(directory: directory.path + "/reference")
        try reference.build(from: new)
        for write in during + after {
            if !write.upserts.isEmpty { _ = try reference.upsert(write.upserts) }
            if !write.deletes.isEmpty { _ = try reference.delete(ids: write.deletes) }
        }
        try assertSameAnswers(reference, shard)
        XCTAssertEqual(try shard.entryCount(), try reference.entryCount())
        XCTAssertEqual(Set(try shard.suggest(SuggestRequest(text: "zebra")).entries.map(\.id)), ["zz-added", "zz-late", new[5].id])

        // Rolled back, the previous generation is not written to: it is the catalog being undone.
        try shard.rollback()
        _ = try shard.upsert([CatalogEntry(id: "zz-after-rollback", title: "Zebra after rollback")])
        try shard.rollback()
        XCTAssertTrue(try shard.suggest(SuggestRequest(text: "zebra after")).entries.isEmpty)
    }

    /// Writes between a compaction's copy and its activation are in the copy too.
    func testWritesAfterACompactionReachTheCopy() throws {
        let directory = TemporaryDirectory("compact-writes")
        let shard = try Shard(directory: directory.path)
        try shard.build(from: Self.entries(100))
        _ = try shard.compact(into: 2)
        _ = try shard.upsert([CatalogEntry(id: "zz-new", title: "Zebra sandwich")])
        try shard.activate(generation: 2)
        XCTAssertEqual(try shard.suggest(SuggestRequest(text: "zebra s")).entries.map(\.id), ["zz-new"])
    }

    /// A compacted copy answers exactly as the original (with its upserts and deletes), in no more space.
    func testCompactionKeepsAnswersAndLabel() throws {
        let catalog = Self.entries(300)
        let directory = TemporaryDirectory("compact")
        let shard = try Shard(directory: directory.path)
        _ = try shard.beginUpload(generation: 1, label: "L")
        _ = try shard.appendUpload(generation: 1, batch: 0, entries: Array(catalog.prefix(200)))
        _ = try shard.finishUpload(generation: 1, batches: 1, entries: 200)
        try shard.activate(generation: 1)
        for round in 0..<5 {
            _ = try shard.upsert(catalog.suffix(100).map { var e = $0; e.weight = UInt64(round * 7) + e.weight % 1000; return e })
            _ = try shard.delete(ids: catalog.prefix(20 + round).map(\.id))
        }
        let before = try shard.storageStatistics().usedBytes
        let info = try shard.compact(into: 2)
        XCTAssertEqual(info.state, .staged)
        XCTAssertEqual(info.label, "L")
        XCTAssertLessThanOrEqual(info.bytes, before)
        let answersBefore = try ["", "a", "app", "ban", "red"].map { try shard.suggest(SuggestRequest(text: $0)) }
        try shard.activate(generation: 2)
        XCTAssertEqual(shard.currentGeneration, 2)
        XCTAssertEqual(try ["", "a", "app", "ban", "red"].map { try shard.suggest(SuggestRequest(text: $0)) }, answersBefore)
        XCTAssertThrowsError(try shard.compact(into: 2), "numbers only grow")
    }
}
