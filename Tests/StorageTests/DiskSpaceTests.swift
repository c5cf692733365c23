import Foundation
import Storage
import TestSupport
import XCTest

/// A full file system is an error naming the directory, never a crash, and never loses what was
/// committed. On a small tmpfs, which raises SIGBUS at once for a store into a mapped page it
/// cannot back: the way LMDB's lock file used to take a process down.
final class DiskSpaceTests: XCTestCase {
    func testAFullFileSystemFailsWritesAndKeepsTheCommittedData() throws {
        let disk = try SmallFileSystem(megabytes: 4)
        defer { disk.unmount() }
        var options = Environment.Options()
        options.mapSize = 1 << 26
        let directory = disk.path + "/env"
        let env = try Environment(path: directory, options: options)
        let db = try env.database(named: "kv", create: true)
        try env.write { try $0.put(db, "kept", "value") }

        var failure: StorageError?
        let big = [UInt8](repeating: 7, count: 256 << 10)
        for n in 0..<64 where failure == nil {
            do {
                try env.write { try $0.put(db, "k\(n)", big) }
            } catch let error as StorageError {
                failure = error
            }
        }
        let error = try XCTUnwrap(failure, "64 × 256 KiB cannot fit in 4 MiB")
        XCTAssertTrue(error.isNoSpace, "\(error)")
        XCTAssertTrue(error.description.contains(directory) && error.description.contains("bytes free"), error.description)
        XCTAssertEqual(try env.read { try $0.get(db, "kept")?.string }, "value", "the committed data stays")
        // Small writes may still fit in what is left; the data stays readable either way.
        XCTAssertNoThrow(try env.read { txn in _ = try txn.count(db) })
    }

    func testOpeningAnEnvironmentOnAFullFileSystemIsAnError() throws {
        let disk = try SmallFileSystem(megabytes: 2)
        defer { disk.unmount() }
        try disk.fill()
        XCTAssertLessThan(disk.freeBytes, 4096)
        var options = Environment.Options()
        options.mapSize = 1 << 24
        let directory = disk.path + "/env"
        XCTAssertThrowsError(try Environment(path: directory, options: options)) { error in
            let storage = error as? StorageError
            XCTAssertTrue(storage?.isNoSpace == true, "\(error)")
            XCTAssertTrue("\(error)".contains(directory), "\(error)")
        }
        // With the space back, the same directory opens and takes writes.
        try disk.emptyFillers()
        let env = try Environment(path: directory, options: options)
        let db = try env.database(named: "kv", create: true)
        try env.write { try $0.put(db, "a", "1") }
        XCTAssertEqual(try env.read { try $0.get(db, "a")?.string }, "1")
    }
}
