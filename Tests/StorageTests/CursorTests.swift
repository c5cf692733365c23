import Storage
import XCTest

final class CursorTests: StorageTestCase {
    /// Collects `(key, value)` strings from `start` onwards while `condition` holds.
    private func scan(
        _ cursor: inout Cursor, from start: Cursor.Entry?, while condition: (Bytes) -> Bool = { _ in true },
        step: (inout Cursor) throws -> Cursor.Entry? = { try $0.next() }
    ) throws -> [String] {
        var result: [String] = []
        var entry = start
        while let current = entry, condition(current.key) {
            result.append("\(current.key.string)=\(current.value.string)")
            entry = try step(&cursor)
        }
        return result
    }

    func testPrefixScanOverStringKeys() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "terms", create: true)
        let words = ["car", "card", "care", "cart", "cat", "ca", "dog", "can", "b", "carz", "cas"]
        try env.write { txn in
            for word in words { try txn.put(db, word, "\(word.count)") }
        }
        try env.read { txn in
            try txn.withCursor(db) { cursor in
                let car = try scan(&cursor, from: try cursor.seek(atLeast: "car"), while: { $0.hasPrefix("car") })
                XCTAssertEqual(car, ["car=3", "card=4", "care=4", "cart=4", "carz=4"])

                // Seeking between keys lands on the next one.
                XCTAssertEqual(try cursor.seek(atLeast: "cara")?.key.string, "card")
                XCTAssertEqual(try cursor.seek(atLeast: "cb")?.key.string, "dog")
                XCTAssertNil(try cursor.seek(atLeast: "zebra"))
                // Empty prefix = everything, in byte order.
                let all = try scan(&cursor, from: try cursor.seek(atLeast: ""))
                XCTAssertEqual(all.map { String($0.prefix(while: { $0 != "=" })) }, words.sorted())

                // Exact seek.
                XCTAssertEqual(try cursor.seek("cat")?.value.string, "3")
                XCTAssertNil(try cursor.seek("cax"))
                XCTAssertNil(try cursor.seek(""))

                // Backwards.
                XCTAssertEqual(try cursor.last()?.key.string, "dog")
                XCTAssertEqual(try cursor.previous()?.key.string, "cat")
                XCTAssertEqual(try cursor.current()?.key.string, "cat")
                XCTAssertEqual(try cursor.first()?.key.string, "b")
                XCTAssertNil(try cursor.previous())
            }
        }
    }

    func testBigEndianUInt32KeysIterateInNumericOrder() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "numbers", create: true)
        var numbers: [UInt32] = [0, 1, 2, 9, 10, 11, 99, 100, 255, 256, 257, 65535, 65536, 1 << 24, UInt32.max - 1, UInt32.max]
        numbers += (0..<300).map { UInt32($0) &* 2_654_435_761 }   // scattered
        let unique = Array(Set(numbers))
        try env.write { txn in
            for n in unique.shuffled() { try txn.put(db, n, UInt64(n) * 2) }
        }
        try env.read { txn in
            try txn.withCursor(db) { cursor in
                var seen: [UInt32] = []
                var entry = try cursor.first()
                while let (key, value) = entry {
                    XCTAssertEqual(key.count, 4)
                    let n = key.loadBigEndian(UInt32.self, at: 0)
                    XCTAssertEqual(value.loadBigEndian(UInt64.self, at: 0), UInt64(n) * 2)
                    seen.append(n)
                    entry = try cursor.next()
                }
                XCTAssertEqual(seen, unique.sorted())

                // Range: [100, 65536]
                var range: [UInt32] = []
                entry = try cursor.seek(atLeast: UInt32(100))
                while let (key, _) = entry, key.loadBigEndian(UInt32.self, at: 0) <= 65536 {
                    range.append(key.loadBigEndian(UInt32.self, at: 0))
                    entry = try cursor.next()
                }
                XCTAssertEqual(range, unique.sorted().filter { (100...65536).contains($0) })
                XCTAssertEqual(try cursor.seek(atLeast: UInt32(12))?.key.loadBigEndian(UInt32.self, at: 0),
                               unique.sorted().first { $0 >= 12 })
                XCTAssertEqual(try cursor.seek(UInt32.max)?.value.loadBigEndian(UInt64.self, at: 0), UInt64(UInt32.max) * 2)
            }
        }
    }

    func testUInt64KeysOrder() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "u64", create: true)
        let values: [UInt64] = [1 << 40, 3, 1 << 8, UInt64.max, 0]
        try env.write { txn in for v in values { try txn.put(db, v, EmptyValue()) } }
        let ordered = try env.read { txn in
            try txn.withCursor(db) { cursor -> [UInt64] in
                var out: [UInt64] = []
                while let (key, _) = try cursor.next() { out.append(key.loadBigEndian(UInt64.self, at: 0)) }
                return out
            }
        }
        XCTAssertEqual(ordered, values.sorted())
    }

    func testDuplicateSort() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "postings", flags: .duplicateSort, create: true)
        try env.write { txn in
            for doc in [30, 10, 20, 40] as [UInt32] { try txn.put(db, "apple", doc) }
            for doc in [5, 1] as [UInt32] { try txn.put(db, "banana", doc) }
            try txn.put(db, "cherry", UInt32(7))
            try txn.put(db, "apple", UInt32(20))   // same pair again: no new entry
            let error = assertStorageError(try txn.put(db, "apple", UInt32(20), flags: .noDuplicateData))
            XCTAssertEqual(error?.isKeyExists, true)
        }
        func docs(_ key: String) throws -> [UInt32] {
            try env.read { txn in
                try txn.withCursor(db) { cursor in
                    var out: [UInt32] = []
                    var entry = try cursor.seek(key)
                    while let (_, value) = entry {
                        out.append(value.loadBigEndian(UInt32.self, at: 0))
                        entry = try cursor.nextDuplicate()
                    }
                    return out
                }
            }
        }
        XCTAssertEqual(try docs("apple"), [10, 20, 30, 40])
        XCTAssertEqual(try docs("banana"), [1, 5])
        XCTAssertEqual(try docs("durian"), [])
        XCTAssertEqual(try env.read { try $0.count(db) }, 7)
        // get returns the first duplicate.
        XCTAssertEqual(try env.read { try $0.get(db, "apple")?.loadBigEndian(UInt32.self, at: 0) }, 10)

        try env.read { txn in
            try txn.withCursor(db) { cursor in
                XCTAssertNotNil(try cursor.seek("apple"))
                XCTAssertEqual(try cursor.duplicateCount(), 4)
                XCTAssertEqual(try cursor.lastDuplicate()?.value.loadBigEndian(UInt32.self, at: 0), 40)
                XCTAssertEqual(try cursor.lastDuplicate()?.key.string, "apple")
                XCTAssertEqual(try cursor.previousDuplicate()?.value.loadBigEndian(UInt32.self, at: 0), 30)
                XCTAssertEqual(try cursor.firstDuplicate()?.value.loadBigEndian(UInt32.self, at: 0), 10)
                XCTAssertNil(try cursor.previousDuplicate())
                // nextKey skips the remaining duplicates.
                XCTAssertNotNil(try cursor.seek("apple"))
                let next = try cursor.nextKey()
                XCTAssertEqual(next?.key.string, "banana")
                XCTAssertEqual(next?.value.loadBigEndian(UInt32.self, at: 0), 1)
                XCTAssertEqual(try cursor.duplicateCount(), 2)
                XCTAssertEqual(try cursor.nextKey()?.key.string, "cherry")
                XCTAssertEqual(try cursor.duplicateCount(), 1)
                XCTAssertNil(try cursor.nextKey())
                XCTAssertEqual(try cursor.previousKey()?.key.string, "banana")
                XCTAssertEqual(try cursor.current()?.value.loadBigEndian(UInt32.self, at: 0), 5)

                // Pair seeks.
                let pair = try cursor.seek("apple", value: UInt32(30))
                XCTAssertEqual(pair?.key.string, "apple")
                XCTAssertEqual(pair?.value.loadBigEndian(UInt32.self, at: 0), 30)
                XCTAssertNil(try cursor.seek("apple", value: UInt32(31)))
                XCTAssertEqual(try cursor.seek("apple", atLeastValue: UInt32(31))?.value.loadBigEndian(UInt32.self, at: 0), 40)
                XCTAssertNil(try cursor.seek("apple", atLeastValue: UInt32(41)))

                // Full scan with next() includes every duplicate.
                var total = 0
                var entry = try cursor.first()
                while entry != nil { total += 1; entry = try cursor.next() }
                XCTAssertEqual(total, 7)
            }
        }

        // Delete one duplicate, then a whole key.
        try env.write { txn in
            XCTAssertTrue(try txn.delete(db, "apple", value: UInt32(20)))
            XCTAssertFalse(try txn.delete(db, "apple", value: UInt32(20)))
            XCTAssertFalse(try txn.delete(db, "apple", value: UInt32(99)))
        }
        XCTAssertEqual(try docs("apple"), [10, 30, 40])
        XCTAssertEqual(try env.read { try $0.count(db) }, 6)
        try env.write { txn in XCTAssertTrue(try txn.delete(db, "apple")) }
        XCTAssertEqual(try docs("apple"), [])
        XCTAssertEqual(try docs("banana"), [1, 5])
        XCTAssertEqual(try env.read { try $0.count(db) }, 3)
    }

    func testDuplicateFixedAndAppendDuplicate() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "fixed", flags: [.duplicateSort, .duplicateFixed], create: true)
        try env.write { txn in
            for doc in 0..<1000 as Range<UInt32> { try txn.put(db, "term", doc, flags: .appendDuplicate) }
            let error = assertStorageError(try txn.put(db, "term", UInt32(5), flags: .appendDuplicate))
            XCTAssertEqual(error?.isKeyExists, true)
            #if DEBUG
            // DUPFIXED: every value must have the same size (LMDB does not check; debug builds do).
            XCTAssertEqual(assertStorageError(try txn.put(db, "term", UInt64(5000)))?.isBadValueSize, true)
            XCTAssertNoThrow(try txn.put(db, "other", UInt64(5000)))   // sizes are per key
            #endif
        }
        try env.read { txn in
            try txn.withCursor(db) { cursor in
                XCTAssertNotNil(try cursor.seek("term"))
                XCTAssertEqual(try cursor.duplicateCount(), 1000)
            }
        }
    }

    func testDuplicateCountOnPlainDatabase() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        try env.write { try $0.put(db, "k", "v") }
        try env.read { txn in
            try txn.withCursor(db) { cursor in
                XCTAssertEqual(assertStorageError(try cursor.duplicateCount())?.code, EINVAL)   // not positioned
                XCTAssertNil(try cursor.current())
                XCTAssertNotNil(try cursor.seek("k"))
                XCTAssertEqual(try cursor.duplicateCount(), 1)
                XCTAssertEqual(try cursor.firstDuplicate()?.value.string, "v")
                XCTAssertNil(try cursor.nextDuplicate())
            }
        }
    }

    func testEmptyDatabase() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "empty", create: true)
        try env.read { txn in
            try txn.withCursor(db) { cursor in
                XCTAssertNil(try cursor.first())
                XCTAssertNil(try cursor.last())
                XCTAssertNil(try cursor.next())
                XCTAssertNil(try cursor.seek(atLeast: "a"))
                XCTAssertNil(try cursor.seek(atLeast: ""))
            }
            XCTAssertEqual(try txn.count(db), 0)
        }
    }

    func testCursorInWriteTransactionAndNestedCursors() throws {
        let env = try makeEnvironment()
        let src = try env.database(named: "src", create: true)
        let dst = try env.database(named: "dst", create: true)
        try env.write { txn in
            for i in 0..<100 as Range<UInt32> { try txn.put(src, i, "v\(i)") }
        }
        // Copy src to dst through a cursor within one write transaction, and cross-check with a
        // second, nested cursor on the same database.
        try env.write { txn in
            let copied = try txn.withCursor(src) { cursor -> Int in
                var n = 0
                while let (key, value) = try cursor.next() {
                    let sameViaOther = try txn.withCursor(src) { other in try other.seek(key)?.value.string }
                    XCTAssertEqual(sameViaOther, value.string)
                    try txn.put(dst, key, value)
                    n += 1
                }
                return n
            }
            XCTAssertEqual(copied, 100)
        }
        try env.read { txn in
            XCTAssertEqual(try txn.count(dst), 100)
            XCTAssertEqual(try txn.get(dst, UInt32(42))?.string, "v42")
        }
    }

    func testBodyErrorPropagatesFromWithCursor() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        XCTAssertThrowsError(try env.read { txn in
            try txn.withCursor(db) { _ in throw TestFailure() }
        }) { XCTAssertEqual($0 as? TestFailure, TestFailure()) }
        // Many cursor scopes in one read: each closes its handle (otherwise this would still work but
        // leak; the point is that nothing crashes when closing on scope exit).
        try env.read { txn in
            for _ in 0..<1000 { _ = try txn.withCursor(db) { try $0.first() } }
        }
    }

    /// A cursor kept for many exact seeks (the query path's look-ups of words in key order) finds
    /// every key whatever came before it: hits, misses, keys on other pages, keys behind it.
    /// `withCursor(ifPresent:)` lends nil for an absent database.
    func testExactSeeksThroughOneCursorFindWhatGetFinds() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "words", create: true)
        // Enough keys for several leaf pages, every third one missing.
        let keys = (0..<3_000).map { String(format: "w%05d", $0) }
        try env.write { txn in
            for (index, key) in keys.enumerated() where index % 3 != 0 { try txn.put(db, key, "v\(index)") }
        }
        var order = keys + keys.reversed() + ["a", "w0", "w00001x", "zz"]
        var rng = SystemRandomNumberGenerator()
        order += (0..<2_000).map { _ in keys.randomElement(using: &rng)! }
        try env.read { txn in
            let found: [String?]? = try txn.withCursor(ifPresent: db) { cursor in
                guard cursor != nil else { return nil }
                var found: [String?] = []
                for key in order { found.append(try cursor!.seek(key)?.value.string) }
                return found
            }
            XCTAssertEqual(found, try order.map { try txn.get(db, $0)?.string })
            let absent = try txn.withCursor(ifPresent: nil) { cursor in cursor == nil }
            XCTAssertTrue(absent)
        }
    }
}
