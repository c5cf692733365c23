import Foundation
import Storage
import XCTest

/// Read transactions are kept reset after a read and renewed by the next (ReadTransactionPool):
/// a renewed one must see what a new one would, and the slots they keep must not stop anything.
final class ReadTransactionPoolTests: StorageTestCase {
    /// Each read after a commit sees it, through kept handles, also when more reads ran at once
    /// than the pool keeps.
    func testRenewedReadsSeeEveryCommit() throws {
        let env = try makeEnvironment()
        let db = try env.database(named: "kv", create: true)
        for round in 0..<10 {
            try env.write { try $0.put(db, "k", "\(round)") }
            XCTAssertEqual(try env.read { try $0.get(db, "k")?.string }, "\(round)")
            XCTAssertEqual(try env.read { $0.snapshotID }, env.lastCommittedTransaction)
            // Six at once: more than the pool keeps, so some are begun and some aborted.
            try env.read { a in try env.read { b in try env.read { c in try env.read { d in try env.read { e in try env.read { f in
                for txn in [a.snapshotID, b.snapshotID, c.snapshotID, d.snapshotID, e.snapshotID, f.snapshotID] {
                    XCTAssertEqual(txn, env.lastCommittedTransaction)
                }
                XCTAssertEqual(try f.get(db, "k")?.string, "\(round)")
            } } } } } }
        }
    }

    /// Kept handles hold reader slots: when the table is full, a read or a database opened by
    /// name gets them back instead of failing.
    func testKeptSlotsAreGivenBackWhenTheReaderTableIsFull() throws {
        do {
            let env = try makeEnvironment("small")
            let db = try env.database(named: "kv", create: true)
            _ = try env.database(named: "other", create: true)
            try env.write { try $0.put(db, "k", "v") }
        }
        let env = try makeEnvironment("small") { $0.maxReaders = 2 }
        let db = try env.database(named: "kv")
        // Two at once: both slots end up kept.
        try env.read { _ in try env.read { txn in XCTAssertEqual(try txn.get(db, "k")?.string, "v") } }
        // Opening a database by name begins a transaction of its own.
        let other = try env.database(named: "other")
        XCTAssertEqual(try env.read { try $0.count(other) }, 0)
        XCTAssertEqual(try env.read { _ in try env.read { try $0.get(db, "k")?.string } }, "v")
    }

    /// An environment with kept transactions closes (mdb_env_close needs them ended): the
    /// directory opens again at once.
    func testAnEnvironmentWithKeptReadsClosesAndReopens() throws {
        for round in 0..<3 {
            let env = try makeEnvironment("reopened")
            let db = try env.database(named: "kv", create: true)
            try env.write { try $0.put(db, "k", "\(round)") }
            XCTAssertEqual(try env.read { _ in try env.read { try $0.get(db, "k")?.string } }, "\(round)")
        }
    }
}
