// Storage: the only Swift module that talks to LMDB (through the `CLMDB` system-library target).
//
// What it offers
// --------------
// An `Environment` (one directory, one memory-mapped file, many named `Database`s), short-lived
// transactions lent to closures (`Environment.read` / `Environment.write`), ordered `Cursor`s, and
// `Bytes`, a zero-copy view of stored data. Keys and values are anything conforming to `StorageKey`
// (`[UInt8]`, `String`, big-endian `UInt32`/`UInt64`, …). Failures are `StorageError` (an LMDB code or
// errno plus the failing operation). No C type crosses the module boundary: every file says
// `internal import CLMDB`, so a C type in a public signature is a compile error, and modules that
// import Storage do not see LMDB at all.
//
// Lifetime rules (LMDB's, made structural where Swift allows)
// ------------------------------------------------------------
// 1. One owner per handle. `Environment` owns the `MDB_env*` and closes it in `deinit`; each
//    transaction is a `~Copyable` struct owning its `MDB_txn*` and aborting it in `deinit` unless it
//    was committed; each `Cursor` is `~Copyable` and closes its `MDB_cursor*` in `deinit`.
// 2. Transactions and cursors are scoped: they exist only inside the closure that received them and
//    cannot be copied out of it. A cursor always closes before its transaction ends.
// 3. `Bytes` is the one thing that *can* escape, because it is a plain view: it is valid only until its
//    transaction ends — and in a write transaction, only until the next write. It is not `Sendable`.
//    Copy (`Array(bytes)`, `bytes.string`) or decode inside the closure.
// 4. Threads: read transactions may run on any thread, concurrently (`MDB_NOTLS`); one write
//    transaction at a time per environment, on one thread. A nested `write` on the same thread throws
//    `EDEADLK` rather than deadlocking.
// 5. A directory is opened at most once per process (a second `Environment` on it throws `EBUSY`).
//    Keep read transactions short: an open reader pins its snapshot's pages and the file grows.
// 6. `Database` handles belong to their environment and are cached by name; open them up front — a
//    handle created after a transaction began is not visible inside that transaction.
//
// Files
// -----
//   Environment.swift       open/close, options, read/write entry points, writer-thread tracking
//   Environment+Databases.swift      named databases: open/create, cache, flag checks
//   Environment+Maintenance.swift    sync, copy/compact, statistics, stale readers
//   Transaction.swift       ReadableTransaction, ReadTransaction, WriteTransaction (owners)
//   TransactionCore.swift   the shared implementation of reads and writes on a borrowed MDB_txn*
//   Cursor.swift            ordered iteration
//   Database.swift          Database, DatabaseFlags, PutFlags
//   Bytes.swift             zero-copy view of stored bytes
//   Key.swift               StorageKey and its encodings (big-endian integers)
//   StorageError.swift      the error type and the one `check` every C status goes through
//   OpenEnvironments.swift  the once-per-process directory registry, mkdir -p
