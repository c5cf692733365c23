import Catalog
import Foundation
import Index
import TestSupport
import XCTest

/// `typeahead merge` killed (SIGKILL) while it builds the new revision: the shard reopens on the
/// revision that served, the half-built one is removed, and every answer is exactly a fresh
/// build's of the same entries; merging again then succeeds, with the same answers.
final class MergeKillTests: XCTestCase {
    func testAMergeKilledMidBuildLeavesTheServingRevisionExact() throws {
        guard TypeaheadExecutable.isBuilt else { throw XCTSkip("typeahead binary not built next to the tests") }
        let directory = TemporaryDirectory("merge-kill")
        let path = directory.path + "/shard"
        var rng = SeededGenerator(seed: 0x3E16_0001)
        var catalog = RandomCatalog(vocabularySize: 400, rng: &rng)
        let base = catalog.randomEntries(40_000, &rng)
        // A fifth re-weighted, new entries, and deletes: the delta the merge folds in.
        var upserts = base.prefix(8_000).map { entry in
            var changed = entry
            changed.weight = UInt64(rng.int(0...5_000))
            return changed
        }
        upserts += catalog.randomEntries(500, &rng).map { entry in
            var new = entry
            new.id = "new-" + entry.id
            return new
        }
        let deleted = base.suffix(300).map(\.id)
        do {
            let shard = try Shard(directory: path)
            try shard.build(from: base)
            _ = try shard.upsert(upserts)
            _ = try shard.delete(ids: deleted)
        }
        var expected: [String: CatalogEntry] = [:]
        for entry in base + upserts { expected[entry.id] = entry }
        for id in deleted { expected[id] = nil }
        let fresh = try Shard(directory: directory.path + "/fresh")
        try fresh.build(from: expected.values.sorted { $0.id < $1.id })

        let process = Process()
        process.executableURL = TypeaheadExecutable.url
        process.arguments = ["merge", "--dir", path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let revision = path + "/gen-000001/merge-1"
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning, !FileManager.default.fileExists(atPath: revision), Date() < deadline { usleep(500) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal, "killed mid-merge, not finished")

        let texts = catalog.vocabulary.prefix(60).flatMap { word -> [String] in
            let folded = word.lowercased()
            return [String(folded.prefix(1)), String(folded.prefix(3)), folded + " ", folded + " a"]
        }
        func assertExact(_ shard: Shard, _ what: String) throws {
            for text in texts {
                XCTAssertEqual(try shard.suggest(SuggestRequest(text: text)), try fresh.suggest(SuggestRequest(text: text)), "\(what): \(text)")
            }
            XCTAssertEqual(try shard.entryCount(), expected.count, what)
        }
        do {
            let reopened = try Shard(directory: path)
            XCTAssertFalse(FileManager.default.fileExists(atPath: revision), "the half-built revision is removed at open")
            XCTAssertEqual(try reopened.readVersion().revision, 0)
            try assertExact(reopened, "after the kill")
        }
        let merged = try TypeaheadExecutable.run(["merge", "--dir", path])
        XCTAssertEqual(merged.status, 0, merged.stderr)
        XCTAssertTrue(merged.stdout.contains("revision 1"), merged.stdout)
        let after = try Shard(directory: path)
        XCTAssertEqual(try after.readVersion().revision, 1)
        try assertExact(after, "after the merge")
    }
}
