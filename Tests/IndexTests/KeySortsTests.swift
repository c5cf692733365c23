import Foundation
@testable import Index
import XCTest

/// `KeySorts` feeds the ids and titles sorts on a thread of its own, in batches: what comes out is
/// every key handed over, in key order, with its value; a sort that fails there fails `wait()`.
final class KeySortsTests: XCTestCase {
    func temporaryDirectory() throws -> String {
        let directory = NSTemporaryDirectory() + "keysorts-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
        return directory
    }

    func drained(_ records: SortedRecords) throws -> [(key: [UInt8], value: [UInt8])] {
        var all: [(key: [UInt8], value: [UInt8])] = []
        while let (key, value) = try records.next() { all.append((Array(key), Array(value))) }
        return all
    }

    /// Enough ids to fill several batches and, with a small budget, spill runs; every other
    /// document without a title key.
    func testEveryKeyComesOutSortedWithItsValue() throws {
        let directory = try temporaryDirectory()
        let keys = KeySorts(ids: ExternalSorter(directory: directory, name: "ids", budget: 1 << 20),
                            titles: ExternalSorter(directory: directory, name: "titles", budget: 1 << 20))
        let count = 3 * KeySorts.batchBytes / 40
        var expectedIDs: [(key: [UInt8], value: [UInt8])] = []
        var expectedTitles: [[UInt8]] = []
        for docnum in UInt32(0)..<UInt32(count) {
            let id = Array("id-\((docnum &* 2_654_435_761) % 1_000_003)-\(docnum)".utf8)
            let title = docnum % 2 == 0 ? Array("title \(count - Int(docnum))".utf8) + [0] + docnum.bigEndianBytes : []
            id.withUnsafeBytes { id in title.withUnsafeBytes { keys.add(id: id, docnum: docnum, titleKey: $0) } }
            expectedIDs.append((id, withUnsafeBytes(of: docnum) { Array($0) }))
            if !title.isEmpty { expectedTitles.append(title) }
        }
        keys.finish()
        let sorted = try keys.wait()
        XCTAssertGreaterThan(sorted.spilledRuns, 0, "the budget makes the sorts spill")
        let ids = try drained(sorted.ids)
        expectedIDs.sort { $0.key.lexicographicallyPrecedes($1.key) }
        XCTAssertEqual(ids.map(\.key), expectedIDs.map(\.key))
        XCTAssertEqual(ids.map(\.value), expectedIDs.map(\.value))
        let titles = try drained(sorted.titles)
        XCTAssertEqual(titles.map(\.key), expectedTitles.sorted { $0.lexicographicallyPrecedes($1) })
        XCTAssertTrue(titles.allSatisfy(\.value.isEmpty))
        keys.drain()   // any number of times
        XCTAssertThrowsError(try keys.wait(), "the sorts are taken once")
    }

    /// A sort that cannot spill (its folder is gone) fails `wait()` with the sorter's error, and
    /// the batches after it are dropped, not added.
    func testASortThatFailsOnItsThreadFailsWait() throws {
        let directory = try temporaryDirectory()
        let keys = KeySorts(ids: ExternalSorter(directory: directory + "/missing", name: "ids", budget: 1 << 12),
                            titles: ExternalSorter(directory: directory, name: "titles", budget: 1 << 20))
        for docnum in UInt32(0)..<UInt32(KeySorts.batchBytes / 10) {
            let id = Array("id-\(docnum)".utf8)
            id.withUnsafeBytes { keys.add(id: $0, docnum: docnum, titleKey: UnsafeRawBufferPointer(start: nil, count: 0)) }
        }
        keys.finish()
        XCTAssertThrowsError(try keys.wait())
    }
}
