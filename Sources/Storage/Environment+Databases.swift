internal import CLMDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Environment {
    /// The handle of the named database, opening it — and with `create`, creating it — on first use.
    ///
    /// Handles are cached by name: opening a name twice returns the same ``Database``, and the flags
    /// must match the ones the database was created with (else ``StorageError/isIncompatible``).
    /// Thread-safe; serialized by an internal lock (this is not a hot path: open databases once at
    /// startup and keep the handles).
    ///
    /// A database that exists is opened in a short read transaction, without waiting for the writer.
    /// Creating one needs the write lock: it waits for a running ``write(_:)`` on another thread, and
    /// throws `EDEADLK` when called from inside a ``write(_:)`` closure, which would otherwise deadlock.
    /// A handle opened while a transaction is running cannot be used in that transaction.
    ///
    /// Throws ``StorageError/isNotFound`` (`MDB_NOTFOUND`) if the database does not exist and `create`
    /// is `false` (or the environment is read-only), `MDB_DBS_FULL` beyond
    /// ``Options/maxDatabases``, `EINVAL` for ``DatabaseFlags/duplicateFixed`` without
    /// ``DatabaseFlags/duplicateSort``.
    public func database(named name: String, flags: DatabaseFlags = [], create: Bool = false) throws -> Database {
        if flags.contains(.duplicateFixed) && !flags.contains(.duplicateSort) {
            throw StorageError(code: EINVAL, operation: "Environment.database(named: \"\(name)\"): duplicateFixed requires duplicateSort")
        }
        if let cached = try cachedDatabase(name, flags) {
            return cached
        }
        do {
            // An existing database: a read transaction suffices and never waits for the writer.
            let txn = try ReadTransaction(environment: handle, environmentID: id, freeingSlotsOf: readTransactions)
            let database = try openDatabase(name, flags: flags, create: false, in: txn.core)
            try txn.commit()   // publishes the handle to the environment; an abort would close it
            return database
        } catch let error as StorageError where error.isNotFound && create && !options.readOnly {
            // Fall through to create it.
        }
        let txn = try beginWrite(operation: "Environment.database(named: \"\(name)\", create: true)")
        defer { endWrite() }
        let database = try openDatabase(name, flags: flags, create: true, in: txn.core)
        try txn.commit()
        return database
    }

    private func cachedDatabase(_ name: String, _ flags: DatabaseFlags) throws -> Database? {
        guard let entry = databases.withLock({ $0[name] }) else { return nil }
        guard entry.flags == flags else {
            throw StorageError(code: MDB_INCOMPATIBLE, operation: "Environment.database(named: \"\(name)\"): flags differ from the database's")
        }
        return entry.database
    }

    /// `mdb_dbi_open` under the cache lock (LMDB forbids concurrent opens), then checks the flags the
    /// database really has — LMDB 0.9 silently keeps an existing database's flags.
    private func openDatabase(_ name: String, flags: DatabaseFlags, create: Bool, in core: TransactionCore) throws -> Database {
        try databases.withLock { cache throws -> Database in
            if let entry = cache[name] {
                // Another thread opened it while we waited for a transaction.
                guard entry.flags == flags else {
                    throw StorageError(code: MDB_INCOMPATIBLE, operation: "Environment.database(named: \"\(name)\"): flags differ from the database's")
                }
                return entry.database
            }
            var dbi: MDB_dbi = 0
            let openFlags = flags.rawValue | (create ? UInt32(MDB_CREATE) : 0)
            try check(mdb_dbi_open(core.txn, name, openFlags, &dbi), "mdb_dbi_open(\"\(name)\")")
            let database = Database(dbi: dbi, environmentID: id)
            let actual = try core.flags(database)
            guard actual == flags else {
                // Not cached and not committed: the caller's transaction ends without publishing it.
                throw StorageError(code: MDB_INCOMPATIBLE, operation: "mdb_dbi_open(\"\(name)\"): database exists with flags \(actual.rawValue), requested \(flags.rawValue)")
            }
            cache[name] = (database, actual)
            return database
        }
    }
}
