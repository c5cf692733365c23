internal import CLMDB

/// The read operations every transaction offers; ``ReadTransaction`` and ``WriteTransaction`` both
/// conform, so code that only reads can accept either:
///
///     func lookup(_ txn: borrowing some ReadableTransaction & ~Copyable, term: String) throws -> Int? {
///         try txn.get(terms, term).map { $0.loadBigEndian(UInt32.self, at: 0) }.map(Int.init)
///     }
///
/// Transactions are `~Copyable`, so generic code must say `& ~Copyable` and take them `borrowing`.
///
/// ## Implementation requirements
/// Only this module's two transaction types conform; the protocol exists so that callers can be
/// generic over them, not to be adopted elsewhere.
public protocol ReadableTransaction: ~Copyable {
    /// The value stored under `key` (the first value, in a ``DatabaseFlags/duplicateSort`` database),
    /// or `nil` if absent. An empty key is never present. The returned ``Bytes`` is valid until this
    /// transaction ends (or, in a write transaction, until its next write). O(log n), no copy.
    func get(_ db: Database, _ key: some StorageKey) throws -> Bytes?

    /// Opens a ``Cursor`` on `db`, lends it to `body`, and closes it when `body` returns or throws.
    /// Several cursors may be open at once (nest the calls). Returns `body`'s result.
    func withCursor<R>(_ db: Database, _ body: (inout Cursor) throws -> R) throws -> R

    /// Number of entries in `db` in this transaction's snapshot (`mdb_stat`'s `ms_entries`; every
    /// duplicate counts). O(1): LMDB keeps the count in the database record.
    func count(_ db: Database) throws -> Int

    /// Entry count, tree depth and page usage of `db` (`mdb_stat`). O(1).
    func statistics(_ db: Database) throws -> Database.Statistics
}

extension ReadableTransaction where Self: ~Copyable {
    /// Whether `key` is present in `db`. O(log n).
    public func contains(_ db: Database, _ key: some StorageKey) throws -> Bool {
        try get(db, key) != nil
    }
}

/// A read-only snapshot of the environment (an `MDB_RDONLY` transaction).
///
/// Only ``Environment/read(_:)`` creates one, and lends it to its closure; it is aborted (LMDB's way
/// of ending a read transaction) in `deinit`, when that closure returns. `~Copyable` makes the handle
/// impossible to duplicate or smuggle out of the closure — the failure mode of wrappers that hold an
/// `MDB_txn*` in a copyable struct.
///
/// ## Isolation
/// The snapshot is fixed when the transaction begins: writes committed later are invisible to it
/// (MVCC), and readers never block or wait for the writer. The flip side is that a long-lived read
/// transaction pins the pages of its snapshot, so the writer cannot reuse them and the file grows.
/// Keep read closures short.
///
/// ## Threads
/// The environment is opened with `MDB_NOTLS`, so a read transaction is not tied to the thread that
/// began it; many may run at once on any threads (up to ``Environment/Options/maxReaders``).
public struct ReadTransaction: ~Copyable, ReadableTransaction {
    let core: TransactionCore
    /// Where the handle is reset and kept when the transaction ends (nil: it is aborted).
    /// Unretained, so that the struct stays trivially destroyed (``commit()`` discards it): the
    /// pool belongs to the environment, which ``Environment/read(_:)`` holds while this exists.
    private let pool: Unmanaged<ReadTransactionPool>?

    /// A new transaction, ended by abort (or ``commit()``); `kept`: a pool whose handles give
    /// back their reader slots if the table is full.
    init(environment: OpaquePointer, environmentID: UInt64, freeingSlotsOf kept: ReadTransactionPool? = nil) throws {
        core = TransactionCore(txn: try Self.begin(environment, freeingSlotsOf: kept), environmentID: environmentID)
        pool = nil
    }

    /// A kept handle of `pool` renewed (the newest snapshot, as a new transaction sees), or a new
    /// one; either goes back to `pool` when the transaction ends (``ReadTransactionPool``).
    init(pool: ReadTransactionPool, environment: OpaquePointer, environmentID: UInt64) throws {
        self.pool = Unmanaged.passUnretained(pool)
        while let kept = pool.take() {
            if mdb_txn_renew(kept) == MDB_SUCCESS {
                core = TransactionCore(txn: kept, environmentID: environmentID)
                return
            }
            mdb_txn_abort(kept)
        }
        core = TransactionCore(txn: try Self.begin(environment, freeingSlotsOf: pool), environmentID: environmentID)
    }

    private static func begin(_ environment: OpaquePointer, freeingSlotsOf pool: ReadTransactionPool?) throws -> OpaquePointer {
        var txn: OpaquePointer?
        var rc = mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &txn)
        if rc == MDB_READERS_FULL, let pool {
            // Kept handles hold reader slots: give them back and try once more.
            pool.drain()
            rc = mdb_txn_begin(environment, nil, UInt32(MDB_RDONLY), &txn)
        }
        try check(rc, "mdb_txn_begin")
        return txn.unsafelyUnwrapped
    }

    deinit {
        if let pool {
            mdb_txn_reset(core.txn)
            if pool.takeUnretainedValue().put(core.txn) { return }
        }
        mdb_txn_abort(core.txn)
    }

    /// Commits: for a read-only transaction this only publishes databases opened in it to the
    /// environment (see `mdb_dbi_open`). Used by ``Environment/database(named:flags:create:)``.
    consuming func commit() throws {
        let txn = core.txn
        discard self   // mdb_txn_commit frees the handle whether or not it succeeds.
        try check(mdb_txn_commit(txn), "mdb_txn_commit")
    }

    public func get(_ db: Database, _ key: some StorageKey) throws -> Bytes? { try core.get(db, key) }
    public func withCursor<R>(_ db: Database, _ body: (inout Cursor) throws -> R) throws -> R { try core.withCursor(db, body) }
    public func count(_ db: Database) throws -> Int { try core.statistics(db).entries }
    public func statistics(_ db: Database) throws -> Database.Statistics { try core.statistics(db) }

    /// As ``withCursor(_:_:)`` for a database that may be absent (one an older generation lacks):
    /// `body` gets `nil` then. Code that looks many keys up in two databases keeps a cursor on each
    /// this way, with no second code path for the missing one.
    public func withCursor<R>(ifPresent db: Database?, _ body: (inout Cursor?) throws -> R) throws -> R {
        try core.withCursor(ifPresent: db, body)
    }

    /// As ``get(_:_:)``, with the key's bytes given as they are stored: not generic, so the
    /// hottest read of a query (a document by number, hundreds per keystroke) is one direct call
    /// whatever the optimiser decides about specialising the generic one across modules.
    public func get(_ db: Database, keyBytes key: UnsafeRawBufferPointer) throws -> Bytes? { try core.get(db, keyBytes: key) }

    /// The id of the write transaction whose data this snapshot sees (`mdb_txn_id`): two read
    /// transactions of one environment with the same id see the same data, so a reader may key a
    /// cache of computed results by it. Every commit gives later snapshots a larger id. O(1).
    public var snapshotID: Int { Int(mdb_txn_id(core.txn)) }
}

/// The environment's single read-write transaction.
///
/// Only ``Environment/write(_:)`` creates one: it is committed when the closure returns and aborted
/// (in `deinit`) when the closure throws, so a half-done write never becomes visible. It also offers
/// every read of ``ReadableTransaction``, which see this transaction's own uncommitted writes.
///
/// ## Threads and exclusion
/// LMDB allows one write transaction per environment at a time; ``Environment/write(_:)`` blocks until
/// the previous one finishes. A write transaction must stay on the thread that began it (LMDB's
/// writer lock is a thread-owned mutex) — guaranteed here because the closure is synchronous.
///
/// ## Values read during a write
/// ``Bytes`` returned by reads in a write transaction are invalidated by the next `put`, `delete` or
/// `clear` of the same transaction, because LMDB updates its dirty pages in place. Writes take this
/// into account for their own arguments (a `Bytes` key or value is copied before the write).
public struct WriteTransaction: ~Copyable, ReadableTransaction {
    let core: TransactionCore

    init(environment: OpaquePointer, environmentID: UInt64) throws {
        var txn: OpaquePointer?
        try check(mdb_txn_begin(environment, nil, 0, &txn), "mdb_txn_begin")
        core = TransactionCore(txn: txn.unsafelyUnwrapped, environmentID: environmentID)
    }

    deinit {
        mdb_txn_abort(core.txn)
    }

    /// Commits. Consumes the transaction: whether or not `mdb_txn_commit` succeeds, LMDB has freed
    /// the handle, so `deinit` must not abort it again.
    consuming func commit() throws {
        let txn = core.txn
        discard self
        try check(mdb_txn_commit(txn), "mdb_txn_commit")
    }

    public func get(_ db: Database, _ key: some StorageKey) throws -> Bytes? { try core.get(db, key) }
    public func withCursor<R>(_ db: Database, _ body: (inout Cursor) throws -> R) throws -> R { try core.withCursor(db, body) }
    public func count(_ db: Database) throws -> Int { try core.statistics(db).entries }
    public func statistics(_ db: Database) throws -> Database.Statistics { try core.statistics(db) }

    /// Stores `value` under `key` (`mdb_put`), replacing the existing value unless `flags` say
    /// otherwise; in a ``DatabaseFlags/duplicateSort`` database it adds `value` to the key's values
    /// (a pair that already exists is left alone, or fails with ``PutFlags/noDuplicateData``).
    ///
    /// Errors: ``StorageError/isKeyExists`` (see ``PutFlags``), ``StorageError/isMapFull`` (the
    /// transaction is then unusable: let the error propagate so it aborts),
    /// ``StorageError/isBadValueSize`` (empty key, key longer than ``Environment/maxKeySize``).
    /// O(log n).
    public func put(_ db: Database, _ key: some StorageKey, _ value: some StorageKey, flags: PutFlags = []) throws {
        try core.put(db, key, value, flags: flags)
    }

    /// Deletes `key` and, in a ``DatabaseFlags/duplicateSort`` database, all its values.
    /// Returns `false` if the key was absent. O(log n) (plus the number of duplicates).
    @discardableResult
    public func delete(_ db: Database, _ key: some StorageKey) throws -> Bool {
        try core.delete(db, key)
    }

    /// Deletes the single pair `key`/`value` — one duplicate in a ``DatabaseFlags/duplicateSort``
    /// database. Returns `false` if that pair was absent. In a database without duplicates the key is
    /// deleted only if its value equals `value` (LMDB itself would ignore `value` there). O(log n).
    @discardableResult
    public func delete(_ db: Database, _ key: some StorageKey, value: some StorageKey) throws -> Bool {
        try core.delete(db, key, value: value)
    }

    /// Deletes every entry of `db`, keeping the database itself (`mdb_drop(…, 0)`). O(pages).
    public func clear(_ db: Database) throws {
        try core.clear(db)
    }
}
