import Foundation
import Storage
import Synchronization
import XCTest

final class TransactionTests: StorageTestCase {
    func testPutGetDelete() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        try env.write { txn in
            try txn.put(db, "apple", "red")
            try txn.put(db, "banana", [UInt8]("yellow"))
            try txn.put(db, [UInt8]("cherry"), EmptyValue())
            // Reads inside the write see its own uncommitted changes.
            XCTAssertEqual(try txn.get(db, "apple")?.string, "red")
            XCTAssertEqual(try txn.count(db), 3)
        }
        try env.read { txn in
            XCTAssertEqual(try txn.get(db, "apple")?.string, "red")
            XCTAssertEqual(try txn.get(db, "banana").map(Array.init), [UInt8]("yellow"))
            XCTAssertEqual(try txn.get(db, "cherry")?.count, 0)
            XCTAssertTrue(try txn.contains(db, "cherry"))
            XCTAssertNil(try txn.get(db, "durian"))
            XCTAssertNil(try txn.get(db, ""))          // no key can be empty
            XCTAssertEqual(try txn.count(db), 3)
        }
        try env.write { txn in
            try txn.put(db, "apple", "green")          // overwrite
            XCTAssertTrue(try txn.delete(db, "banana"))
            XCTAssertFalse(try txn.delete(db, "banana"))
            XCTAssertFalse(try txn.delete(db, "durian"))
        }
        try env.read { txn in
            XCTAssertEqual(try txn.get(db, "apple")?.string, "green")
            XCTAssertNil(try txn.get(db, "banana"))
            XCTAssertEqual(try txn.count(db), 2)
        }
    }

    /// Reads with no write between them see one snapshot id, the environment's last committed
    /// transaction; a commit gives later reads a larger one, and a reader that began before it
    /// keeps its own (what keys the index's snapshot caches).
    func testSnapshotIDsFollowCommits() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        try env.write { txn in try txn.put(db, "a", "1") }
        let first = try env.read { $0.snapshotID }
        XCTAssertEqual(try env.read { $0.snapshotID }, first)
        XCTAssertEqual(first, env.lastCommittedTransaction)
        try env.read { old in
            try env.write { txn in try txn.put(db, "a", "2") }
            XCTAssertEqual(old.snapshotID, first, "an open snapshot keeps its id")
            XCTAssertEqual(try old.get(db, "a")?.string, "1")
        }
        let second = try env.read { $0.snapshotID }
        XCTAssertGreaterThan(second, first)
        XCTAssertEqual(second, env.lastCommittedTransaction)
    }

    func testStringAndSubstringKeysAreTheirUTF8() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        let text = "xx café yy"
        let word = text.split(separator: " ")[1]   // Substring "café"
        try env.write { try $0.put(db, word, ArraySlice([UInt8]("value")[1...])) }
        try env.read { txn in
            XCTAssertEqual(try txn.get(db, [0x63, 0x61, 0x66, 0xC3, 0xA9] as [UInt8])?.string, "alue")
            XCTAssertEqual(try txn.get(db, "café")?.string, "alue")
        }
    }

    func testNoOverwrite() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        try env.write { try $0.put(db, "k", "first") }
        let error = assertStorageError(try env.write { try $0.put(db, "k", "second", flags: .noOverwrite) })
        XCTAssertEqual(error?.isKeyExists, true)
        XCTAssertEqual(error?.operation, "mdb_put")
        XCTAssertEqual(try env.read { try $0.get(db, "k")?.string }, "first")
    }

    func testEmptyKeyPutIsBadValueSize() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        XCTAssertEqual(assertStorageError(try env.write { try $0.put(db, "", "v") })?.isBadValueSize, true)
        let long = [UInt8](repeating: 1, count: env.maxKeySize + 1)
        XCTAssertEqual(assertStorageError(try env.write { try $0.put(db, long, "v") })?.isBadValueSize, true)
    }

    func testWriteAbortedOnThrowLeavesNothing() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        try env.write { try $0.put(db, "kept", "1") }
        XCTAssertThrowsError(try env.write { txn in
            try txn.put(db, "lost", "2")
            try txn.put(db, "kept", "overwritten")
            XCTAssertTrue(try txn.delete(db, "kept") || true)
            throw TestFailure()
        }) { error in
            XCTAssertEqual(error as? TestFailure, TestFailure())
        }
        try env.read { txn in
            XCTAssertNil(try txn.get(db, "lost"))
            XCTAssertEqual(try txn.get(db, "kept")?.string, "1")
            XCTAssertEqual(try txn.count(db), 1)
        }
        // The writer lock was released: another write goes through.
        try env.write { try $0.put(db, "after", "3") }
        XCTAssertEqual(try env.read { try $0.count(db) }, 2)
    }

    func testWriteReturnsBodyResult() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        let n = try env.write { txn -> Int in
            try txn.put(db, "a", "1")
            return try txn.count(db)
        }
        XCTAssertEqual(n, 1)
    }

    func testAppendOutOfOrderIsKeyExists() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        try env.write { txn in
            for i in 0..<100 as Range<UInt32> { try txn.put(db, i, EmptyValue(), flags: .append) }
        }
        XCTAssertEqual(try env.read { try $0.count(db) }, 100)
        let error = assertStorageError(try env.write { try $0.put(db, UInt32(50), EmptyValue(), flags: .append) })
        XCTAssertEqual(error?.isKeyExists, true)
        XCTAssertEqual(error?.code, -30799)   // MDB_KEYEXIST
        // In-order append still works.
        try env.write { try $0.put(db, UInt32(1000), EmptyValue(), flags: .append) }
        XCTAssertEqual(try env.read { try $0.count(db) }, 101)
    }

    func testMapFullSurfacesAsIsMapFull() throws {
        let env = try makeEnvironment("tiny") { $0.mapSize = 64 * 1024 }
        let db = try env.database(named: "kv", create: true)
        try env.write { try $0.put(db, "small", "fits") }
        let value = [UInt8](repeating: 0xAB, count: 1000)
        let error = assertStorageError(try env.write { txn in
            for i in 0..<1000 as Range<UInt32> { try txn.put(db, i, value) }
        })
        XCTAssertEqual(error?.isMapFull, true)
        XCTAssertEqual(error?.isKeyExists, false)
        XCTAssertEqual(error?.code, -30792)
        XCTAssertEqual(error?.description, "\(error?.operation ?? ""): MDB_MAP_FULL: Environment mapsize limit reached (code -30792)")
        // The failed transaction was rolled back; the environment stays usable.
        try env.read { txn in
            XCTAssertEqual(try txn.count(db), 1)
            XCTAssertEqual(try txn.get(db, "small")?.string, "fits")
        }
        try env.write { try $0.put(db, "small", "still") }
        XCTAssertEqual(try env.read { try $0.get(db, "small")?.string }, "still")
    }

    func testErrorDescriptionFormat() {
        XCTAssertEqual(
            StorageError(code: -30792, operation: "mdb_put").description,
            "mdb_put: MDB_MAP_FULL: Environment mapsize limit reached (code -30792)")
        XCTAssertEqual(
            StorageError(code: EACCES, operation: "mdb_txn_begin").description,
            "mdb_txn_begin: \(String(cString: strerror(EACCES))) (code \(EACCES))")
        XCTAssertTrue(StorageError(code: -30799, operation: "x").isKeyExists)
        XCTAssertFalse(StorageError(code: -30799, operation: "x").isMapFull)
        XCTAssertEqual(StorageError(code: 1, operation: "a"), StorageError(code: 1, operation: "a"))
        XCTAssertNotEqual(StorageError(code: 1, operation: "a"), StorageError(code: 2, operation: "a"))
    }

    func testReadSnapshotDoesNotSeeLaterWrites() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        try env.write { try $0.put(db, "k", "old") }
        try env.read { snapshot in
            let before = try XCTUnwrap(try snapshot.get(db, "k"))
            // Commit a change while the snapshot is open (MDB_NOTLS: same thread is fine).
            try env.write { txn in
                try txn.put(db, "k", "new")
                try txn.put(db, "added", "x")
            }
            XCTAssertEqual(try snapshot.get(db, "k")?.string, "old")
            XCTAssertNil(try snapshot.get(db, "added"))
            XCTAssertEqual(try snapshot.count(db), 1)
            // Bytes read before the commit are still valid: the snapshot pins its pages.
            XCTAssertEqual(before.string, "old")
            // A new transaction sees the commit.
            XCTAssertEqual(try env.read { try $0.get(db, "k")?.string }, "new")
        }
        XCTAssertEqual(try env.read { try $0.count(db) }, 2)
    }

    /// Needs `MDB_NOTLS`: without it a thread has one reader slot, and the inner `read` fails with
    /// `MDB_BAD_RSLOT`. Swift code nests reads easily (a helper that opens its own read), and tasks
    /// hop threads, so read transactions must not be tied to threads.
    func testNestedReadsOnOneThreadAreIndependentSnapshots() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        try env.write { try $0.put(db, "k", "1") }
        try env.read { outer in
            try env.write { try $0.put(db, "k", "2") }
            try env.read { inner in
                XCTAssertEqual(try inner.get(db, "k")?.string, "2")
                XCTAssertEqual(try outer.get(db, "k")?.string, "1")
            }
            XCTAssertEqual(try outer.get(db, "k")?.string, "1")
        }
    }

    func testReadInsideWriteSeesLastCommit() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        try env.write { txn in
            try txn.put(db, "k", "uncommitted")
            XCTAssertNil(try env.read { try $0.get(db, "k")?.string })
        }
    }

    func testNestedWriteOnSameThreadThrowsInsteadOfDeadlocking() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        try env.write { outer in
            try outer.put(db, "outer", "1")
            let error = assertStorageError(try env.write { try $0.put(db, "inner", "2") })
            XCTAssertEqual(error?.code, EDEADLK)
            // Creating a database needs the write lock too.
            XCTAssertEqual(assertStorageError(try env.database(named: "new", create: true))?.code, EDEADLK)
            // A cached handle is fine.
            XCTAssertEqual(try env.database(named: "kv"), db)
        }
        try env.read { txn in
            XCTAssertEqual(try txn.get(db, "outer")?.string, "1")
            XCTAssertNil(try txn.get(db, "inner"))
        }
    }

    func testWritersOnDifferentThreadsAreSerialized() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "counter", create: true)
        try env.write { try $0.put(db, "n", UInt64(0)) }
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<50 {
                try! env.write { txn in
                    let n = try txn.get(db, "n")!.loadBigEndian(UInt64.self, at: 0)
                    try txn.put(db, "n", n + 1)
                }
            }
        }
        XCTAssertEqual(try env.read { try $0.get(db, "n")?.loadBigEndian(UInt64.self, at: 0) }, 200)
    }

    func testConcurrentReadersWhileWriterWrites() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "pairs", create: true)
        try env.write { txn in
            try txn.put(db, "x", UInt64(0))
            try txn.put(db, "y", UInt64(0))
        }
        let writes: UInt64 = 300
        let problems = Mutex<[String]>([])
        let readsDone = Atomic<Int>(0)
        let group = DispatchGroup()

        let writer = Thread {
            defer { group.leave() }
            do {
                for n in 1...writes {
                    try env.write { txn in
                        try txn.put(db, "x", n)
                        try txn.put(db, "y", n)
                        try txn.put(db, n, EmptyValue())   // entry count grows with n
                    }
                }
            } catch {
                problems.withLock { $0.append("writer: \(error)") }
            }
        }
        var readers: [Thread] = []
        for r in 0..<4 {
            readers.append(Thread {
                defer { group.leave() }
                var last: UInt64 = 0
                for _ in 0..<400 {
                    do {
                        try env.read { txn in
                            let x = try txn.get(db, "x")!.loadBigEndian(UInt64.self, at: 0)
                            let y = try txn.get(db, "y")!.loadBigEndian(UInt64.self, at: 0)
                            let count = try txn.count(db)
                            // One snapshot: both keys from the same commit, and the count matches it.
                            if x != y { problems.withLock { $0.append("reader \(r): x=\(x) y=\(y)") } }
                            if count != Int(x) + 2 { problems.withLock { $0.append("reader \(r): count \(count) for x=\(x)") } }
                            if x < last { problems.withLock { $0.append("reader \(r): went back from \(last) to \(x)") } }
                            last = x
                        }
                        readsDone.add(1, ordering: .relaxed)
                    } catch {
                        problems.withLock { $0.append("reader \(r): \(error)") }
                    }
                }
            })
        }
        for thread in [writer] + readers {
            group.enter()
            thread.start()
        }
        XCTAssertEqual(group.wait(timeout: .now() + 120), .success)
        XCTAssertEqual(problems.withLock { $0 }, [])
        XCTAssertEqual(readsDone.load(ordering: .relaxed), 1600)
        XCTAssertEqual(try env.read { try $0.get(db, "x")?.loadBigEndian(UInt64.self, at: 0) }, writes)
    }

    func testReadersFromManyThreadsAtOnce() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        try env.write { txn in
            for i in 0..<1000 as Range<UInt32> { try txn.put(db, i, i &* 3) }
        }
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 16) { worker in
            for i in stride(from: UInt32(worker), to: 1000, by: 16) {
                let ok = (try? env.read { try $0.get(db, i)?.loadBigEndian(UInt32.self, at: 0) }) == i &* 3
                if !ok { failures.add(1, ordering: .relaxed) }
            }
        }
        XCTAssertEqual(failures.load(ordering: .relaxed), 0)
    }

    func testDeletePairOnPlainDatabaseComparesTheValue() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        try env.write { try $0.put(db, "k", "v1") }
        XCTAssertFalse(try env.write { try $0.delete(db, "k", value: "other") })
        XCTAssertEqual(try env.read { try $0.get(db, "k")?.string }, "v1")
        XCTAssertTrue(try env.write { try $0.delete(db, "k", value: "v1") })
        XCTAssertNil(try env.read { try $0.get(db, "k") })
        XCTAssertFalse(try env.write { try $0.delete(db, "k", value: "v1") })
    }

    func testClear() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        let other = try env.database(named: "other", create: true)
        try env.write { txn in
            for i in 0..<500 as Range<UInt32> { try txn.put(db, i, "x") }
            try txn.put(other, "keep", "me")
        }
        try env.write { try $0.clear(db) }
        try env.read { txn in
            XCTAssertEqual(try txn.count(db), 0)
            XCTAssertEqual(try txn.count(other), 1)
        }
        // The database itself still exists.
        XCTAssertEqual(try env.database(named: "kv"), db)
        try env.write { try $0.put(db, "again", "ok") }
        XCTAssertEqual(try env.read { try $0.count(db) }, 1)
    }

    /// `Bytes` read in a write transaction point into dirty pages that the next write may reshuffle;
    /// writes copy such arguments first. Without that copy this test stores garbage: LMDB fills a
    /// page from the top, so "a" (written first) sits above "b" and the fillers. Replacing "a"'s value
    /// with one of another size deletes "a"'s node, and `mdb_node_del` memmoves everything below it
    /// upwards — so the filler bytes land where the "b" value we are passing in used to be.
    func testWritingBytesReadInTheSameTransaction() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        for round in 0..<8 {
            let bValue = (0..<40).map { UInt8($0 + round) }
            try env.write { txn in
                try txn.clear(db)
                try txn.put(db, "a", [UInt8](repeating: 0xEE, count: 300 + round))
                try txn.put(db, "b", bValue)
                for f in 0..<10 { try txn.put(db, "f\(f)", [UInt8](repeating: 0x55, count: 100)) }
                let view = try XCTUnwrap(try txn.get(db, "b"))
                try txn.put(db, "a", view)
                try txn.put(db, "c", try XCTUnwrap(try txn.get(db, "a")))
                XCTAssertTrue(try txn.delete(db, "a", value: try XCTUnwrap(try txn.get(db, "c"))))
            }
            try env.read { txn in
                XCTAssertNil(try txn.get(db, "a"))
                XCTAssertEqual(try txn.get(db, "b").map(Array.init), bValue)
                XCTAssertEqual(try txn.get(db, "c").map(Array.init), bValue)
            }
        }
    }

    func testDatabaseFromAnotherEnvironmentIsDistinct() throws {
        let one = try makeEnvironment("one")
        let two = try makeEnvironment("two")
        XCTAssertNotEqual(try one.database(named: "kv", create: true), try two.database(named: "kv", create: true))
    }

    func testGenericReadHelperAcceptsBothTransactionKinds() throws {
        func lookup(_ txn: borrowing some ReadableTransaction & ~Copyable, _ db: Database, _ key: String) throws -> String? {
            try txn.get(db, key)?.string
        }
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        try env.write { txn in
            try txn.put(db, "k", "v")
            XCTAssertEqual(try lookup(txn, db, "k"), "v")
        }
        XCTAssertEqual(try env.read { try lookup($0, db, "k") }, "v")
    }
}
