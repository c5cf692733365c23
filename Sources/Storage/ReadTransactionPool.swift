internal import CLMDB
import Synchronization

/// Finished read transactions of one environment, reset (`mdb_txn_reset`) and kept for the next
/// ``Environment/read(_:)`` to renew (`mdb_txn_renew`) instead of beginning a new one.
///
/// Why: beginning a read transaction `calloc`s the handle (about 1.7 KiB with 32 databases) and,
/// with `MDB_NOTLS`, takes LMDB's process-shared reader-table mutex to claim a slot, which the abort
/// gives back; a query of a few microseconds paid that on every keystroke. lmdb.h: with `MDB_NOTLS`
/// a reset transaction keeps its reader slot, and renewing it only publishes the newest snapshot
/// in that slot (no mutex, no allocation). The snapshot a renewed transaction sees is the one a
/// new one would see, so answers cannot change.
///
/// A reset transaction pins no pages (its slot's transaction id is cleared, so the writer ignores
/// it): keeping one is not keeping a long-lived read. It does occupy a reader slot, so at most
/// ``capacity`` are kept per environment, and only ones that really ran at once were ever begun.
///
/// Lock-free: a few atomic slots holding `MDB_txn*` bits (0: empty). Taking exchanges a slot with
/// 0, giving back compare-exchanges 0 with the handle; an event loop's read never waits on
/// another's. Handles that find no free slot are aborted as before. The environment drains the
/// pool (``drain()``) before `mdb_env_close`, which requires every transaction ended.
final class ReadTransactionPool: Sendable {
    /// Enough for the event loops of a node reading at once; more concurrent reads begin and
    /// abort their own transactions.
    static let capacity = 4

    private let slot0 = Atomic<UInt>(0)
    private let slot1 = Atomic<UInt>(0)
    private let slot2 = Atomic<UInt>(0)
    private let slot3 = Atomic<UInt>(0)

    init() {}

    private func withSlot<R>(_ index: Int, _ body: (borrowing Atomic<UInt>) -> R) -> R {
        switch index {
        case 0: body(slot0)
        case 1: body(slot1)
        case 2: body(slot2)
        default: body(slot3)
        }
    }

    /// A kept, reset transaction, if any (the caller renews it).
    func take() -> OpaquePointer? {
        for index in 0..<Self.capacity {
            let raw = withSlot(index) { slot -> UInt in
                // Look before exchanging: an empty slot is then only read, not written.
                slot.load(ordering: .relaxed) == 0 ? 0 : slot.exchange(0, ordering: .acquiring)
            }
            if raw != 0 { return OpaquePointer(bitPattern: raw) }
        }
        return nil
    }

    /// Keeps a reset transaction; false when every slot is taken (the caller aborts it).
    func put(_ txn: OpaquePointer) -> Bool {
        let raw = UInt(bitPattern: Int(bitPattern: txn))
        for index in 0..<Self.capacity {
            let kept = withSlot(index) { slot in
                slot.compareExchange(expected: 0, desired: raw, ordering: .releasing).exchanged
            }
            if kept { return true }
        }
        return false
    }

    /// Aborts every kept transaction, giving back their reader slots: before the environment
    /// closes, or when a new transaction finds the reader table full.
    func drain() {
        while let txn = take() { mdb_txn_abort(txn) }
    }
}
