import Catalog
import Foundation
import XCTest
import TestSupport
@testable import Index

final class GenerationTests: XCTestCase {
    private func entries(_ titles: [String], prefix: String = "e") -> [CatalogEntry] {
        titles.enumerated().map { CatalogEntry(id: "\(prefix)\($0.offset)", title: $0.element, categories: ["Things"], weight: UInt64(100 - $0.offset)) }
    }

    private func titles(_ shard: Shard, _ text: String) throws -> [String] {
        try shard.suggest(SuggestRequest(text: text)).entries.map(\.title)
    }

    func testStagedGenerationDoesNotServeUntilActivatedAndRollbackRestores() throws {
        let dir = TemporaryDirectory()
        let shard = try Shard(directory: dir.path)
        let a = try shard.build(from: entries(["apple pie", "apricot jam"]))
        XCTAssertEqual(try titles(shard, "ap"), ["apple pie", "apricot jam"])

        let b = try shard.buildGeneration(from: entries(["banana bread", "apple tart"], prefix: "b"))
        XCTAssertEqual(b.state, .staged)
        XCTAssertEqual(try titles(shard, "ap"), ["apple pie", "apricot jam"], "a staged generation must not serve")

        try shard.activate(generation: b.number)
        XCTAssertEqual(try titles(shard, "ap"), ["apple tart"])
        let states = Dictionary(uniqueKeysWithValues: try shard.generations().map { ($0.number, $0.state) })
        XCTAssertEqual(states, [a.number: .previous, b.number: .current])

        try shard.rollback()
        XCTAssertEqual(try titles(shard, "ap"), ["apple pie", "apricot jam"])

        // A second process-like handle sees the manifest.
        let reader = try Shard(directory: dir.path, readOnly: true)
        XCTAssertEqual(try titles(reader, "ap"), ["apple pie", "apricot jam"])

        XCTAssertThrowsError(try shard.dropGeneration(a.number)) { error in
            XCTAssertEqual((error as? IndexError)?.code, .failedPrecondition)
        }
        try shard.dropGeneration(b.number)
        XCTAssertEqual(try shard.generations().map(\.number), [a.number])
    }

    func testFailedBuildLeavesCurrentGenerationServingAndNothingBehind() throws {
        let dir = TemporaryDirectory()
        let shard = try Shard(directory: dir.path)
        try shard.build(from: entries(["apple pie"]))
        let before = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        let duplicate = [CatalogEntry(id: "x", title: "one"), CatalogEntry(id: "x", title: "two")]
        XCTAssertThrowsError(try shard.build(from: duplicate)) { error in
            XCTAssertEqual((error as? IndexError)?.code, .invalidArgument)
            XCTAssertTrue("\(error)".contains("duplicate id \"x\""), "\(error)")
        }
        XCTAssertEqual(try titles(shard, "app"), ["apple pie"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), before)
    }

    func testInterruptedBuildIsRemovedOnNextWritableOpen() throws {
        let dir = TemporaryDirectory()
        do {
            let shard = try Shard(directory: dir.path)
            try shard.build(from: entries(["apple pie"]))
        }
        // What a build killed half way leaves: a generation directory without COMPLETE.
        let partial = dir.path + "/gen-000007"
        try FileManager.default.createDirectory(atPath: partial, withIntermediateDirectories: true)
        try Data(repeating: 0xAB, count: 4096).write(to: URL(fileURLWithPath: partial + "/data.mdb"))

        do {
            let reader = try Shard(directory: dir.path, readOnly: true)
            XCTAssertEqual(try titles(reader, "app"), ["apple pie"], "a read-only open serves and leaves files alone")
            XCTAssertTrue(FileManager.default.fileExists(atPath: partial))
        }

        let shard = try Shard(directory: dir.path)
        XCTAssertFalse(FileManager.default.fileExists(atPath: partial), "the partial generation is cleaned up")
        XCTAssertEqual(try titles(shard, "app"), ["apple pie"])
        // The next build does not collide with the removed number's leftovers.
        let next = try shard.build(from: entries(["apricot"]))
        XCTAssertEqual(try titles(shard, "apr"), ["apricot"])
        XCTAssertGreaterThan(next.number, 1)
    }

    func testBuildInProgressIsNotRemovedByAnotherOpen() throws {
        let dir = TemporaryDirectory()
        _ = try Shard(directory: dir.path)
        let layout = GenerationDirectory(path: dir.path)
        try FileManager.default.createDirectory(atPath: layout.generationPath(5), withIntermediateDirectories: true)
        guard let lock = layout.lockBuild(5) else { return XCTFail("could not take the build lock") }
        _ = try Shard(directory: dir.path)
        XCTAssertTrue(FileManager.default.fileExists(atPath: layout.generationPath(5)), "a locked build must survive")
        close(lock)
        _ = try Shard(directory: dir.path)
        XCTAssertFalse(FileManager.default.fileExists(atPath: layout.generationPath(5)))
    }

    func testUpdatesAreVisibleAtomicAndDurable() throws {
        let dir = TemporaryDirectory()
        let shard = try Shard(directory: dir.path)
        try shard.build(from: entries(["apple pie", "apricot jam", "banana bread"]))

        var summary = try shard.upsert([
            CatalogEntry(id: "e1", title: "apricot jam", categories: ["Things"], weight: 1000),  // re-weighted
            CatalogEntry(id: "new", title: "april showers", categories: ["Weather"], weight: 5),
        ])
        XCTAssertEqual(summary.inserted, 1)
        XCTAssertEqual(summary.replaced, 1)
        XCTAssertEqual(try titles(shard, "ap"), ["apricot jam", "apple pie", "april showers"])
        XCTAssertEqual(try shard.suggest(SuggestRequest(text: "w")).categories.map(\.name), ["Weather"])

        summary = try shard.delete(ids: ["e0", "missing"])
        XCTAssertEqual(summary.deleted, 1)
        XCTAssertEqual(summary.missing, 1)
        XCTAssertEqual(try titles(shard, "ap"), ["apricot jam", "april showers"])
        XCTAssertNil(try shard.entry(id: "e0"))

        // A batch that fails validation changes nothing.
        let before = try titles(shard, "b")
        XCTAssertThrowsError(try shard.upsert([CatalogEntry(id: "z", title: "bad", weight: 1 << 60)]))
        XCTAssertEqual(try titles(shard, "b"), before)
        // So does one with an id twice (the API says ids are distinct; which would count is a guess).
        XCTAssertThrowsError(try shard.upsert([CatalogEntry(id: "b2", title: "berry one"), CatalogEntry(id: "b2", title: "berry two")])) { error in
            XCTAssertEqual((error as? IndexError)?.code, .invalidArgument)
            XCTAssertTrue("\(error)".contains("duplicate id \"b2\" (entry 2) in the upsert"), "\(error)")
        }
        XCTAssertEqual(try titles(shard, "b"), before)

        // Durable: a fresh handle sees the same.
        let reopened = try Shard(directory: dir.path, readOnly: true)
        XCTAssertEqual(try titles(reopened, "ap"), ["apricot jam", "april showers"])
        XCTAssertEqual(try reopened.entry(id: "new")?.title, "april showers")
    }

    func testAbsurdRequestsAreRejectedClearly() throws {
        let dir = TemporaryDirectory()
        let shard = try Shard(directory: dir.path)
        try shard.build(from: entries(["apple pie"]))
        func code(_ body: () throws -> Void) -> IndexError.Code? {
            do { try body(); return nil } catch { return (error as? IndexError)?.code }
        }
        XCTAssertEqual(code { _ = try shard.suggest(SuggestRequest(text: "a", limits: SuggestLimits(entries: 1000))) }, .invalidArgument)
        XCTAssertEqual(code { _ = try shard.suggest(SuggestRequest(text: "a", limits: SuggestLimits(completions: -1))) }, .invalidArgument)
        XCTAssertEqual(code { _ = try shard.suggest(SuggestRequest(text: String(repeating: "a", count: 10_000))) }, .invalidArgument)
        XCTAssertEqual(code { _ = try shard.search(SearchRequest(text: "a", pageSize: 0)) }, .invalidArgument)
        XCTAssertEqual(code { _ = try shard.search(SearchRequest(text: "a", pageToken: "not a token")) }, .invalidArgument)
        XCTAssertEqual(code { _ = try shard.search(SearchRequest(text: "a", pageToken: "AQ")) }, .invalidArgument)
        // A token from one query is refused by another.
        _ = try shard.upsert((0..<5).map { CatalogEntry(id: "x\($0)", title: "apple \($0)") })
        let first = try shard.search(SearchRequest(text: "apple", pageSize: 2))
        let token = try XCTUnwrap(first.nextPageToken)
        XCTAssertEqual(code { _ = try shard.search(SearchRequest(text: "pie", pageSize: 2, pageToken: token)) }, .invalidArgument)
        XCTAssertNil(code { _ = try shard.search(SearchRequest(text: "apple", pageSize: 2, pageToken: token)) })
    }

    /// Generation numbers outside 1...maximum are refused at every entry point, never clamped into
    /// a number that bricks the shard (a generation at Int.max left no next one: the next build
    /// trapped on `highest + 1`).
    func testAbsurdGenerationNumbersAreRefusedAndTheShardKeepsWorking() throws {
        let dir = TemporaryDirectory()
        let shard = try Shard(directory: dir.path)
        try shard.build(from: entries(["apple pie"]))
        func code(_ body: () throws -> Void) -> IndexError.Code? {
            do { try body(); return nil } catch { return (error as? IndexError)?.code }
        }
        for number in [0, -1, Shard.maximumGenerationNumber + 1, Int.max, Int.min] {
            XCTAssertEqual(code { _ = try shard.compact(into: number) }, .invalidArgument, "compact \(number)")
            XCTAssertEqual(code { try shard.activate(generation: number) }, .invalidArgument, "activate \(number)")
            XCTAssertEqual(code { try shard.dropGeneration(number) }, .invalidArgument, "drop \(number)")
            XCTAssertEqual(code { _ = try shard.beginUpload(generation: number, label: "x") }, .invalidArgument, "begin \(number)")
            XCTAssertEqual(code { _ = try shard.appendUpload(generation: number, batch: 0, entries: []) }, .invalidArgument, "append \(number)")
            XCTAssertEqual(code { _ = try shard.finishUpload(generation: number, batches: 0, entries: 0) }, .invalidArgument, "finish \(number)")
            XCTAssertEqual(code { _ = try shard.buildGeneration(from: entries(["x"]), number: number) }, .invalidArgument, "build \(number)")
            XCTAssertEqual(code { _ = try shard.suggest(SuggestRequest(text: "a"), generation: number) }, .invalidArgument, "suggest \(number)")
        }
        // A pinned query for a generation the shard lacks is NOT_FOUND, and names no local path.
        do {
            _ = try shard.suggest(SuggestRequest(text: "a"), generation: 7)
            XCTFail("expected NOT_FOUND")
        } catch let error as IndexError {
            XCTAssertEqual(error.code, .notFound)
            XCTAssertFalse("\(error)".contains(dir.path), "\(error)")
        }
        // The highest valid number is usable, and afterwards a build says why it cannot number one.
        _ = try shard.compact(into: Shard.maximumGenerationNumber)
        try shard.activate(generation: Shard.maximumGenerationNumber)
        XCTAssertEqual(shard.currentGeneration, Shard.maximumGenerationNumber)
        XCTAssertEqual(code { _ = try shard.buildGeneration(from: entries(["apple tart"])) }, .failedPrecondition)
        XCTAssertEqual(try shard.suggest(SuggestRequest(text: "app")).entries.map(\.title), ["apple pie"])
    }

    func testQueryingAnEmptyShardSaysWhatToDo() throws {
        let dir = TemporaryDirectory()
        let shard = try Shard(directory: dir.path)
        XCTAssertThrowsError(try shard.suggest(SuggestRequest(text: "a"))) { error in
            XCTAssertEqual((error as? IndexError)?.code, .failedPrecondition)
            XCTAssertTrue("\(error)".contains("build one first"))
        }
        XCTAssertThrowsError(try Shard(directory: dir.path + "/missing", readOnly: true))
    }
}
