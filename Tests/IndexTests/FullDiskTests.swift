import Catalog
import Foundation
@testable import Index
import Storage
import TestSupport
import XCTest

/// A shard on a file system that fills up: the upsert that does not fit and the build that cannot
/// start both fail with a clear "no space" error (`typeahead index` used to die of SIGBUS here), and
/// the serving generation keeps serving what it served.
final class FullDiskTests: XCTestCase {
    func testAFullDiskFailsUpdatesAndBuildsAndTheServingGenerationServes() throws {
        let disk = try SmallFileSystem(megabytes: 6)
        defer { disk.unmount() }
        let directory = disk.path + "/shard"
        let shard = try Shard(directory: directory)
        let entries = (0..<300).map { CatalogEntry(id: "e\($0)", title: "garden hose \($0)", categories: ["Garden"], weight: UInt64($0)) }
        try shard.build(from: entries, parameters: IndexParameters())
        let before = try shard.suggest(SuggestRequest(text: "garden ho"))
        let generation = shard.currentGeneration

        // Upserts of long descriptions until the disk is full.
        var failure: Error?
        for batch in 0..<200 where failure == nil {
            let upserts = (0..<40).map { n in
                CatalogEntry(id: "big\(batch)-\(n)", title: "big entry \(batch) \(n)",
                             weight: 1, description: String(repeating: "word\(n) ", count: 2000))
            }
            do { _ = try shard.upsert(upserts) } catch { failure = error }
        }
        let error = try XCTUnwrap(failure, "the upserts must fill 6 MiB")
        XCTAssertTrue((error as? StorageError)?.isNoSpace == true, "\(error)")
        XCTAssertTrue("\(error)".contains(disk.path), "\(error)")
        XCTAssertEqual(try shard.suggest(SuggestRequest(text: "garden ho")).entries.map(\.id), before.entries.map(\.id))

        // A build on the full disk: an error, not a crash; the shard still serves its generation.
        try disk.fill()
        XCTAssertThrowsError(try shard.build(from: entries, parameters: IndexParameters())) { error in
            XCTAssertTrue((error as? StorageError)?.isNoSpace == true, "\(error)")
        }
        XCTAssertEqual(shard.currentGeneration, generation)
        XCTAssertEqual(try shard.suggest(SuggestRequest(text: "garden ho")).entries.map(\.id), before.entries.map(\.id))

        // With space added, the next build works and becomes current. (The failed upsert's pages
        // stay in the generation's file, for its next writes to reuse.)
        try disk.resize(megabytes: 16)
        let reopened = try Shard(directory: directory)
        try reopened.build(from: entries, parameters: IndexParameters())
        XCTAssertNotEqual(reopened.currentGeneration, generation)
        XCTAssertEqual(try reopened.suggest(SuggestRequest(text: "garden ho")).entries.map(\.id), before.entries.map(\.id))
    }

    /// A build that fills the disk with its spilled runs (a 64 KiB budget, entries with long
    /// descriptions) fails with the same "no space" error, naming the spill file; nothing of it is
    /// left (the space is free again), and the shard serves its generation as before.
    func testABuildThatFillsTheDiskWithItsSpillFailsCleanly() throws {
        let disk = try SmallFileSystem(megabytes: 8)
        defer { disk.unmount() }
        let shard = try Shard(directory: disk.path + "/shard", buildMemory: 64 << 10)
        let entries = (0..<300).map { CatalogEntry(id: "e\($0)", title: "garden hose \($0)", categories: ["Garden"], weight: UInt64($0)) }
        try shard.build(from: entries)
        let before = try shard.suggest(SuggestRequest(text: "garden ho"))
        let free = try XCTUnwrap(try FileManager.default.attributesOfFileSystem(forPath: disk.path)[.systemFreeSize] as? NSNumber).intValue

        let big = (0..<3_000).map { n in
            CatalogEntry(id: "big\(n)", title: "big entry \(n)", weight: 1, description: String(repeating: "word\(n % 50) ", count: 500))
        }
        XCTAssertThrowsError(try shard.build(from: big)) { error in
            XCTAssertTrue((error as? StorageError)?.isNoSpace == true, "\(error)")
            XCTAssertTrue("\(error)".contains("spill file"), "\(error)")
        }
        XCTAssertEqual(try shard.generations().map(\.number), [1])
        XCTAssertEqual(try shard.suggest(SuggestRequest(text: "garden ho")).entries.map(\.id), before.entries.map(\.id))
        let after = try XCTUnwrap(try FileManager.default.attributesOfFileSystem(forPath: disk.path)[.systemFreeSize] as? NSNumber).intValue
        XCTAssertGreaterThanOrEqual(after, free - (64 << 10), "the failed build's files are gone")
    }
}
