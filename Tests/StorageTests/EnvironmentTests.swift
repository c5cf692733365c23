import Foundation
import Storage
import Synchronization
import XCTest

final class EnvironmentTests: StorageTestCase {
    /// `RUSAGE_THREAD` (Linux: 1), which Glibc declares only for _GNU_SOURCE.
    static let thread = __rusage_who_t(1)

    func testCreatesDirectoryWithParentsAndFiles() throws {
        let env = try makeEnvironment("a/b/c")
        XCTAssertEqual(env.path, path("a/b/c"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("a/b/c") + "/data.mdb"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("a/b/c") + "/lock.mdb"))
        XCTAssertGreaterThanOrEqual(env.maxKeySize, 511)
    }

    /// The data file's pages in use are mapped into the process at once: every byte up to the
    /// last page (found through /proc/self/maps), whole or in parts, so that a scan of every value
    /// afterwards takes (almost) no page faults where the same scan of an unpopulated copy takes
    /// one per few pages; values read unchanged.
    func testPopulatesTheMapInUse() throws {
        let value = [UInt8](repeating: 7, count: 3000)
        func reopened(_ name: String) throws -> (Environment, Database) {
            do {
                let env = try makeEnvironment(name)
                let db = try env.database(named: "values", create: true)
                try env.write { txn in
                    for n in 0..<2000 { try txn.put(db, "key\(n)", value) }
                }
            }
            // Opened again: a fresh map, no page of it mapped yet.
            let env = try makeEnvironment(name)
            return (env, try env.database(named: "values"))
        }
        func faultsOfAScan(_ env: Environment, _ db: Database) throws -> Int {
            var before = rusage(), after = rusage()
            getrusage(Self.thread, &before)
            try env.read { txn in
                try txn.withCursor(db) { cursor in
                    var entry = try cursor.first()
                    var count = 0
                    while let (_, found) = entry {
                        if found.count == value.count, found[found.count - 1] == 7 { count += 1 }
                        entry = try cursor.next()
                    }
                    XCTAssertEqual(count, 2000)
                }
            }
            getrusage(Self.thread, &after)
            return after.ru_minflt - before.ru_minflt
        }
        let (populated, populatedValues) = try reopened("populated")
        let used = try populated.statistics().usedBytes
        XCTAssertGreaterThan(used, 4 << 20)
        XCTAssertEqual(try populated.populateMap(from: used), 0, "nothing past the pages in use")
        // In parts, as a node's background task does.
        var offset = 0
        while case let part = try populated.populateMap(from: offset, atMost: 1 << 20), part > 0 {
            XCTAssertLessThanOrEqual(part, 1 << 20)
            offset += part
        }
        XCTAssertEqual(offset, used)
        XCTAssertEqual(try populated.populateMap(), used)
        let (plain, plainValues) = try reopened("plain")
        let withPopulate = try faultsOfAScan(populated, populatedValues)
        let without = try faultsOfAScan(plain, plainValues)
        print("[populate] faults of a scan: \(withPopulate) populated, \(without) not")
        XCTAssertGreaterThan(without, 20, "a scan of an unpopulated map faults its pages in")
        XCTAssertLessThan(withPopulate * 4, without, "populated: \(withPopulate) faults, unpopulated: \(without)")
    }

    func testDatabaseNamedTwiceReturnsSameHandle() throws {
        let env = try makeEnvironment()
        let first = try env.database(named: "terms", create: true)
        let again = try env.database(named: "terms")
        let againWithCreate = try env.database(named: "terms", create: true)
        let other = try env.database(named: "postings", create: true)
        XCTAssertEqual(first, again)
        XCTAssertEqual(first, againWithCreate)
        XCTAssertNotEqual(first, other)
        XCTAssertEqual(Set([first, again, other]).count, 2)
    }

    func testDatabaseHandlesAreSharedAcrossThreads() throws {
        let env = try makeEnvironment()
        try env.write { txn in _ = txn }   // make sure the environment has a committed state
        let results = Mutex<[Database]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            if let db = try? env.database(named: "shared", create: true) {
                results.withLock { $0.append(db) }
            }
        }
        let handles = results.withLock { $0 }
        XCTAssertEqual(handles.count, 8)
        XCTAssertEqual(Set(handles).count, 1)
    }

    func testMissingDatabaseWithoutCreateThrowsNotFound() throws {
        let env = try makeEnvironment()
        let error = assertStorageError(try env.database(named: "nope"))
        XCTAssertEqual(error?.isNotFound, true)
        XCTAssertEqual(error?.code, -30798)   // MDB_NOTFOUND
        // And it did not get created as a side effect.
        XCTAssertEqual(assertStorageError(try env.database(named: "nope"))?.isNotFound, true)
    }

    func testFlagsMustMatchTheDatabase() throws {
        let env = try makeEnvironment()
        _ = try env.database(named: "dups", flags: .duplicateSort, create: true)
        XCTAssertEqual(assertStorageError(try env.database(named: "dups"))?.isIncompatible, true)
        XCTAssertEqual(try env.database(named: "dups", flags: .duplicateSort), try env.database(named: "dups", flags: .duplicateSort))
    }

    func testFlagsCheckedAgainstDiskOnFreshOpen() throws {
        do {
            let env = try makeEnvironment()
            _ = try env.database(named: "dups", flags: .duplicateSort, create: true)
        }
        let env = try makeEnvironment()
        XCTAssertEqual(assertStorageError(try env.database(named: "dups"))?.isIncompatible, true)
        XCTAssertEqual(assertStorageError(try env.database(named: "dups", create: true))?.isIncompatible, true)
        XCTAssertNoThrow(try env.database(named: "dups", flags: .duplicateSort))
    }

    func testDuplicateFixedRequiresDuplicateSort() throws {
        let env = try makeEnvironment()
        let error = assertStorageError(try env.database(named: "x", flags: .duplicateFixed, create: true))
        XCTAssertEqual(error?.code, EINVAL)
        XCTAssertNoThrow(try env.database(named: "y", flags: [.duplicateSort, .duplicateFixed], create: true))
    }

    func testTooManyDatabases() throws {
        let env = try makeEnvironment { $0.maxDatabases = 2 }
        _ = try env.database(named: "one", create: true)
        _ = try env.database(named: "two", create: true)
        let error = assertStorageError(try env.database(named: "three", create: true))
        XCTAssertEqual(error?.code, -30791)   // MDB_DBS_FULL
    }

    func testReopeningAfterCloseSeesTheData() throws {
        var env: Environment? = try makeEnvironment()
        let db = try env!.database(named: "kv", create: true)
        try env!.write { txn in
            try txn.put(db, "hello", "world")
            try txn.put(db, UInt32(7), UInt64(49))
        }
        env = nil   // closes: deinit is the only owner of the MDB_env

        let reopened = try makeEnvironment()
        let db2 = try reopened.database(named: "kv")
        try reopened.read { txn in
            XCTAssertEqual(try txn.get(db2, "hello")?.string, "world")
            XCTAssertEqual(try txn.get(db2, UInt32(7))?.loadBigEndian(UInt64.self, at: 0), 49)
            XCTAssertEqual(try txn.count(db2), 2)
        }
    }

    func testOpeningTheSameDirectoryTwiceThrowsBusy() throws {
        let env = try makeEnvironment()
        let error = assertStorageError(try Environment(path: env.path))
        XCTAssertEqual(error?.code, EBUSY)
        // A different spelling of the same directory is caught too.
        let error2 = assertStorageError(try Environment(path: env.path + "/./"))
        XCTAssertEqual(error2?.code, EBUSY)
        withExtendedLifetime(env) {}
    }

    func testReadOnlyEnvironment() throws {
        do {
            let env = try makeEnvironment()
            let db = try env.database(named: "kv", create: true)
            try env.write { try $0.put(db, "k", "v") }
        }
        let env = try makeEnvironment { $0.readOnly = true }
        let db = try env.database(named: "kv")
        XCTAssertEqual(try env.read { try $0.get(db, "k")?.string }, "v")

        let error = assertStorageError(try env.write { try $0.put(db, "k", "w") })
        XCTAssertEqual(error?.isReadOnly, true)
        XCTAssertEqual(error?.code, EACCES)
        XCTAssertEqual(assertStorageError(try env.database(named: "new", create: true))?.isNotFound, true)
        XCTAssertEqual(try env.read { try $0.get(db, "k")?.string }, "v")
    }

    func testReadOnlyDoesNotCreateDirectory() throws {
        let error = assertStorageError(try makeEnvironment("missing") { $0.readOnly = true })
        XCTAssertEqual(error?.code, ENOENT)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("missing")))
    }

    func testFailedOpenDoesNotLeaveTheDirectoryRegistered() throws {
        // mdb_env_open fails (the path is a directory we cannot use: data.mdb is a directory).
        try FileManager.default.createDirectory(atPath: path("broken") + "/data.mdb", withIntermediateDirectories: true)
        XCTAssertNotNil(assertStorageError(try makeEnvironment("broken")))
        try FileManager.default.removeItem(atPath: path("broken") + "/data.mdb")
        // If the failed attempt had leaked its registration, this would throw EBUSY.
        XCTAssertNoThrow(try makeEnvironment("broken"))
    }

    func testStatistics() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        let before = try env.statistics()
        try env.write { txn in
            for i in 0..<2000 as Range<UInt32> { try txn.put(db, i, [UInt8](repeating: 7, count: 100)) }
        }
        let after = try env.statistics()
        XCTAssertEqual(after.mapSize, 1 << 26)
        XCTAssertGreaterThan(after.pageSize, 0)
        XCTAssertGreaterThan(after.usedBytes, before.usedBytes)
        XCTAssertGreaterThan(after.usedBytes, 2000 * 100)
        XCTAssertEqual(after.maxReaders, 512)
        let inside = try env.read { _ in try env.statistics().readersInUse }
        XCTAssertGreaterThanOrEqual(inside, 1)

        let dbStats = try env.read { try $0.statistics(db) }
        XCTAssertEqual(dbStats.entries, 2000)
        XCTAssertGreaterThan(dbStats.leafPages, 1)
        XCTAssertGreaterThanOrEqual(dbStats.depth, 2)
        XCTAssertEqual(dbStats.pageSize, after.pageSize)
    }

    func testCopyAndCompactingCopy() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        try env.write { txn in
            for i in 0..<5000 as Range<UInt32> { try txn.put(db, i, [UInt8](repeating: UInt8(i & 0xFF), count: 200)) }
        }
        try env.write { txn in
            for i in 0..<4900 as Range<UInt32> { try txn.delete(db, i) }
        }
        try env.copy(to: path("plain-copy"), compacting: false)
        try env.copy(to: path("compact-copy"), compacting: true)
        let original = try env.statistics().usedBytes

        for (name, compacted) in [("plain-copy", false), ("compact-copy", true)] {
            let copy = try makeEnvironment(name)
            let copyDB = try copy.database(named: "kv")
            try copy.read { txn in
                XCTAssertEqual(try txn.count(copyDB), 100)
                XCTAssertNil(try txn.get(copyDB, UInt32(4899)))
                XCTAssertEqual(try txn.get(copyDB, UInt32(4999)).map(Array.init), [UInt8](repeating: UInt8(4999 & 0xFF), count: 200))
            }
            let used = try copy.statistics().usedBytes
            if compacted {
                XCTAssertLessThan(used, original / 4, "compaction should drop the freed pages")
            } else {
                XCTAssertEqual(used, original)
            }
        }
        // Copying onto an existing copy fails instead of overwriting it.
        XCTAssertEqual(assertStorageError(try env.copy(to: path("plain-copy"), compacting: false))?.code, EEXIST)
    }

    func testNoSyncAndSync() throws {
        let env = try makeEnvironment { $0.noSync = true }
        let db = try env.database(named: "kv", create: true)
        try env.write { try $0.put(db, "k", "v") }
        XCTAssertNoThrow(try env.sync())
        XCTAssertNoThrow(try env.sync(force: false))
        XCTAssertEqual(try env.clearStaleReaders(), 0)
    }

    func testInvalidOptionsAreRejectedBeforeCreatingAnything() throws {
        let error = assertStorageError(try makeEnvironment("bad") { $0.maxReaders = 0 })
        XCTAssertEqual(error?.code, EINVAL)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("bad")))
    }
}
