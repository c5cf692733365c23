internal import CLMDB

/// The operations shared by ``ReadTransaction`` and ``WriteTransaction``, written once.
///
/// This is a *borrowed* view of an `MDB_txn*`: it is copyable, never releases anything and never
/// leaves the module. The owning `~Copyable` transaction structs hold one and forward to it; their
/// `deinit` is the single place that ends the transaction.
struct TransactionCore {
    let txn: OpaquePointer
    let environmentID: UInt64

    /// The `MDB_dbi` of `db`, after checking that `db` belongs to this transaction's environment:
    /// a DBI number from another environment would silently address a different database.
    @inline(__always)
    func dbi(_ db: Database) -> MDB_dbi {
        precondition(db.environmentID == environmentID, "Database handle used with a transaction of another Environment")
        return db.dbi
    }

    // MARK: Reads

    func get(_ db: Database, _ key: some StorageKey) throws -> Bytes? {
        let dbi = dbi(db)
        return try key.withStorageBytes { try get(dbi, $0) }
    }

    func get(_ db: Database, keyBytes key: UnsafeRawBufferPointer) throws -> Bytes? {
        try get(dbi(db), key)
    }

    private func get(_ dbi: MDB_dbi, _ key: UnsafeRawBufferPointer) throws -> Bytes? {
        // LMDB cannot store an empty key, so none can be found (mdb_get would say MDB_BAD_VALSIZE).
        guard key.count > 0 else { return nil }
        var keyValue = MDB_val(key)
        var data = MDB_val()
        let rc = mdb_get(txn, dbi, &keyValue, &data)
        if rc == MDB_NOTFOUND { return nil }
        try check(rc, "mdb_get")
        return Bytes(data)
    }

    func withCursor<R>(_ db: Database, _ body: (inout Cursor) throws -> R) throws -> R {
        // From here `cursor` owns the handle: its deinit closes it when this scope ends, which is
        // before the transaction ends (required for write transactions, allowed for read ones).
        var cursor = try openCursor(db)
        return try body(&cursor)
    }

    func withCursor<R>(ifPresent db: Database?, _ body: (inout Cursor?) throws -> R) throws -> R {
        var cursor: Cursor? = try db.map(openCursor)
        return try body(&cursor)
    }

    /// A cursor on `db`, for the `withCursor` scopes only (see ``Cursor``'s lifetime).
    private func openCursor(_ db: Database) throws -> Cursor {
        var handle: OpaquePointer?
        try check(mdb_cursor_open(txn, dbi(db), &handle), "mdb_cursor_open")
        return Cursor(handle: handle.unsafelyUnwrapped)
    }

    func statistics(_ db: Database) throws -> Database.Statistics {
        var stat = MDB_stat()
        try check(mdb_stat(txn, dbi(db), &stat), "mdb_stat")
        return Database.Statistics(
            entries: stat.ms_entries,
            depth: Int(stat.ms_depth),
            branchPages: stat.ms_branch_pages,
            leafPages: stat.ms_leaf_pages,
            overflowPages: stat.ms_overflow_pages,
            pageSize: Int(stat.ms_psize)
        )
    }

    func flags(_ db: Database) throws -> DatabaseFlags {
        var raw: UInt32 = 0
        try check(mdb_dbi_flags(txn, dbi(db), &raw), "mdb_dbi_flags")
        return DatabaseFlags(rawValue: raw)
    }

    // MARK: Writes (only reachable through WriteTransaction)

    func put(_ db: Database, _ key: some StorageKey, _ value: some StorageKey, flags: PutFlags) throws {
        let dbi = dbi(db)
        try withStableBytes(key) { keyBytes in
            try withStableBytes(value) { valueBytes in
                #if DEBUG
                try debugCheckFixedSize(db, keyBytes, valueBytes)
                #endif
                var keyValue = MDB_val(keyBytes)
                var data = MDB_val(valueBytes)
                try check(mdb_put(txn, dbi, &keyValue, &data, flags.rawValue), "mdb_put")
            }
        }
    }

    /// LMDB 0.9.24 does not check that a value put into a `MDB_DUPFIXED` database has the size of
    /// the key's existing values; a wrong size silently corrupts that key's duplicates. Checking costs
    /// a second lookup per put, which bulk loads of postings cannot afford, so only debug builds
    /// check (and throw `MDB_BAD_VALSIZE`), as an assertion that tests will trip.
    private func debugCheckFixedSize(_ db: Database, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws {
        guard key.count > 0, try flags(db).contains(.duplicateFixed),
              let existing = try get(dbi(db), key) else { return }
        if existing.count != value.count {
            throw StorageError(code: MDB_BAD_VALSIZE, operation: "mdb_put: duplicateFixed value of \(value.count) bytes, the key's values have \(existing.count)")
        }
    }

    func delete(_ db: Database, _ key: some StorageKey) throws -> Bool {
        let dbi = dbi(db)
        return try withStableBytes(key) { keyBytes in
            guard keyBytes.count > 0 else { return false }
            var keyValue = MDB_val(keyBytes)
            let rc = mdb_del(txn, dbi, &keyValue, nil)
            if rc == MDB_NOTFOUND { return false }
            try check(rc, "mdb_del")
            return true
        }
    }

    func delete(_ db: Database, _ key: some StorageKey, value: some StorageKey) throws -> Bool {
        // mdb_del ignores the data argument unless the database is DUPSORT, which would turn
        // "delete this pair" into "delete this key whatever its value". Keep the pair semantics.
        guard try flags(db).contains(.duplicateSort) else {
            guard let current = try get(db, key), current.elementsEqual(value) else { return false }
            return try delete(db, key)
        }
        let dbi = dbi(db)
        return try withStableBytes(key) { keyBytes in
            guard keyBytes.count > 0 else { return false }
            return try withStableBytes(value) { valueBytes in
                var keyValue = MDB_val(keyBytes)
                var data = MDB_val(valueBytes)
                let rc = mdb_del(txn, dbi, &keyValue, &data)
                if rc == MDB_NOTFOUND { return false }
                try check(rc, "mdb_del")
                return true
            }
        }
    }

    func clear(_ db: Database) throws {
        try check(mdb_drop(txn, dbi(db), 0), "mdb_drop")
    }
}

/// Lends `key`'s bytes for a write. A ``Bytes`` argument is copied first: it may point into a page that
/// is dirty in this very write transaction, and LMDB moves nodes around inside such pages while it
/// inserts or deletes (mdb_node_del shifts them in place), which would corrupt the input mid-call.
/// The metatype comparison is a pointer compare, so other key types pay nothing.
@inline(__always)
func withStableBytes<K: StorageKey, R>(_ key: K, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    if K.self == Bytes.self {
        return try Array(key as! Bytes).withUnsafeBytes(body)
    }
    return try key.withStorageBytes(body)
}

extension MDB_val {
    /// An `MDB_val` that borrows `buffer`. LMDB only reads input keys and values (we never pass
    /// `MDB_RESERVE`), so casting away the `const` is sound.
    @inline(__always)
    init(_ buffer: UnsafeRawBufferPointer) {
        self.init(mv_size: buffer.count, mv_data: UnsafeMutableRawPointer(mutating: buffer.baseAddress))
    }
}
