import Catalog
import Foundation
@testable import Index
import Storage
import TestSupport
import XCTest

/// The build within a memory budget (``GenerationBuilder/memoryBudget``): a build that spills its
/// sorted runs and postings to disk writes the very generation an in-memory build writes, a
/// streamed build checks what the array build checks up front, and the sorter under both orders
/// records as a stable sort by bytes does.
final class SpilledBuildTests: XCTestCase {
    /// Every database, key and value, as `mdb_dump -a` prints them (lmdb-utils, which the set-up
    /// installs): the named databases' list included.
    private func dump(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mdb_dump")
        process.arguments = ["-a", path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        return String(decoding: data, as: UTF8.self)
    }

    /// `count` random entries of a seed, a directory named `name` for the builds, and a builder
    /// with a filterable attribute.
    private func setUp(seed: UInt64, count: Int, _ name: String) -> ([CatalogEntry], TemporaryDirectory, GenerationBuilder) {
        var rng = SeededGenerator(seed: seed)
        var catalog = RandomCatalog(vocabularySize: 300, rng: &rng)
        let entries = catalog.randomEntries(count, &rng)
        var builder = GenerationBuilder()
        builder.filterable = ["color"]
        return (entries, TemporaryDirectory(name), builder)
    }

    /// 3,000 random entries (aliases that spell title words another way, descriptions, categories,
    /// a filterable attribute, tied weights and titles), built in memory and with a budget of 16
    /// KiB: dozens of runs in each sorter and several posting buckets. The two files hold the same
    /// databases, byte for byte.
    func testASpilledBuildWritesTheSameGenerationAsOneInMemory() throws {
        var (entries, directory, builder) = setUp(seed: 0x5B11_0001, count: 3_000, "spilled-build")
        builder.parameters = TrieParameters(listSize: 4, heavyThreshold: 8)
        try FileManager.default.createDirectory(atPath: directory.path + "/memory", withIntermediateDirectories: true)
        let inMemory = try builder.build(entries, at: directory.path + "/memory")
        builder.memoryBudget = 16 << 10
        try FileManager.default.createDirectory(atPath: directory.path + "/spilled", withIntermediateDirectories: true)
        let spilled = try builder.build(entries, at: directory.path + "/spilled")

        XCTAssertEqual(inMemory.spillFiles, 0)
        XCTAssertGreaterThan(spilled.spillFiles, 20, "the small budget makes the build spill")
        XCTAssertEqual(spilled, inMemory)
        let expected = try dump(directory.path + "/memory")
        XCTAssertTrue(expected.contains("forward") && expected.contains("completion_variants") && expected.contains("titles"))
        XCTAssertEqual(try dump(directory.path + "/spilled"), expected)
        // The spill files went with the build.
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path + "/spilled/build"))
    }

    /// A parallel build takes its batches through ``ReadAhead`` (the next one read while this one
    /// is analysed): from batches of 100 it writes the same generation as a build on one thread,
    /// and an error of the batches' source fails it.
    func testABuildReadingAheadWritesTheSameGenerationAsOneThread() throws {
        var (entries, directory, builder) = setUp(seed: 0x5B11_0003, count: 2_000, "read-ahead-build")
        func build(_ name: String, parallel: Bool, failingAt failing: Int? = nil) throws -> BuildStatistics {
            builder.parallel = parallel
            try FileManager.default.createDirectory(atPath: directory.path + "/" + name, withIntermediateDirectories: true)
            var next = 0
            return try builder.build(at: directory.path + "/" + name) {
                guard next < entries.count else { return nil }
                if next == failing { throw IndexError(.internal, "the source failed") }
                defer { next += 100 }
                return entries[next..<min(entries.count, next + 100)]
            }
        }
        let serial = try build("serial", parallel: false)
        let ahead = try build("ahead", parallel: true)
        XCTAssertEqual(ahead, serial)
        XCTAssertEqual(try dump(directory.path + "/ahead"), try dump(directory.path + "/serial"))
        XCTAssertThrowsError(try build("failing", parallel: true, failingAt: 1_000)) { error in
            XCTAssertTrue("\(error)".contains("the source failed"), "\(error)")
        }
    }

    /// The attribute keys a build numbers (``AttributeKeys``) come from its first 4,096 entries
    /// however they arrive: batches of 1,000 (the first five wait for the sample) and one batch
    /// write the same generation; a key first seen in the sample's third batch is numbered, and
    /// one frequent only after the sample is written out.
    func testTheAttributeKeyTableIsTheSameWhateverTheBatches() throws {
        var (entries, directory, builder) = setUp(seed: 0x5B11_0004, count: AttributeKeys.sampleSize + 400, "attribute-key-batches")
        for index in entries.indices {
            if index >= AttributeKeys.sampleSize { entries[index].attributes["late"] = "\(index)" }
            // In the sample but not in the first batch of 1,000.
            if (2_000..<AttributeKeys.sampleSize).contains(index), index % 97 == 0 { entries[index].attributes["mid"] = "m" }
        }
        func build(_ name: String, batch: Int) throws -> String {
            let path = directory.path + "/" + name
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            var next = 0
            _ = try builder.build(at: path) {
                guard next < entries.count else { return nil }
                defer { next += batch }
                return entries[next..<min(entries.count, next + batch)]
            }
            return try dump(path)
        }
        let whole = try build("whole", batch: entries.count)
        XCTAssertEqual(try build("batches", batch: 1_000), whole)
        let keys = try Generation(number: 1, revision: 0, path: directory.path + "/whole", readOnly: true).attributeKeys
        XCTAssertTrue(keys.number(of: "mid") != nil && keys.number(of: "late") == nil, "\(keys.keys)")
    }

    /// Keys of 0 to 6 bytes over three byte values (0x00 among them: prefixes, repeats and
    /// zero-padding ties), sorted in memory and through runs of a few kilobytes: both give what a
    /// stable sort by bytes gives, values (the order added) included.
    func testTheSorterOrdersLikeAStableSortByBytes() throws {
        var rng = SeededGenerator(seed: 0x5B11_0002)
        var records: [(key: [UInt8], value: [UInt8])] = []
        for index in 0..<5_000 {
            let key = (0..<rng.int(0...6)).map { _ in rng.pick([0x00, 0x61, 0xFF] as [UInt8]) }
            records.append((key, withUnsafeBytes(of: UInt32(index).littleEndian) { Array($0) }))
        }
        let expected = records.enumerated().sorted { a, b in
            a.element.key != b.element.key ? a.element.key.lexicographicallyPrecedes(b.element.key) : a.offset < b.offset
        }.map(\.element)
        let directory = TemporaryDirectory("sorter")
        for budget in [1 << 30, 4 << 10] {
            let sorter = ExternalSorter(directory: directory.path, name: "test", budget: budget)
            for record in records { try sorter.add(key: record.key, value: record.value) }
            XCTAssertEqual(sorter.spilledRuns > 10, budget < 1 << 20)
            let sorted = try sorter.sorted()
            var got: [(key: [UInt8], value: [UInt8])] = []
            while let (key, value) = try sorted.next() { got.append((Array(key), Array(value))) }
            XCTAssertEqual(got.map(\.key), expected.map(\.key), "budget \(budget)")
            XCTAssertEqual(got.map(\.value), expected.map(\.value), "budget \(budget)")
        }
    }

    /// A shard built from batches refuses an id repeated in a later batch and an invalid entry
    /// (counted across batches), builds nothing, leaves no spill behind, and keeps serving the
    /// generation it had.
    func testAStreamedBuildRefusesRepeatedIDsAndInvalidEntriesAndKeepsServing() throws {
        let directory = TemporaryDirectory("streamed-build")
        let shard = try Shard(directory: directory.path, buildMemory: 1 << 20)
        try shard.build(from: [CatalogEntry(id: "a", title: "Alpha", weight: 1)])
        func batches(_ list: [[CatalogEntry]]) -> () throws -> ArraySlice<CatalogEntry>? {
            var remaining = list
            return { remaining.isEmpty ? nil : remaining.removeFirst()[...] }
        }
        let first = (0..<100).map { CatalogEntry(id: "e\($0)", title: "Entry \($0)", weight: UInt64($0)) }
        XCTAssertThrowsError(try shard.build(batches: batches([first, [CatalogEntry(id: "e7", title: "Again", weight: 5)]]))) { error in
            XCTAssertEqual((error as? IndexError)?.code, .invalidArgument)
            XCTAssertTrue("\(error)".contains("duplicate id \"e7\""), "\(error)")
        }
        XCTAssertThrowsError(try shard.build(batches: batches([first, [CatalogEntry(id: "z", title: "  ", weight: 5)]]))) { error in
            XCTAssertTrue("\(error)".contains("entry 101 (id \"z\")"), "\(error)")
        }
        XCTAssertEqual(try shard.generations().map(\.number), [1])
        XCTAssertEqual(try shard.suggest(SuggestRequest(text: "alp")).entries.map(\.id), ["a"])

        let built = try shard.build(batches: batches([first, [CatalogEntry(id: "b", title: "Alpine", weight: 500)]]))
        XCTAssertEqual(built.entries, 101)
        XCTAssertEqual(try shard.suggest(SuggestRequest(text: "alp")).entries.map(\.id), ["b"])
    }
}
