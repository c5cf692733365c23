internal import CLMDB
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An open LMDB environment: one directory holding `data.mdb` (the memory-mapped B+trees of all its
/// named databases) and `lock.mdb` (the reader table), shared by every thread of the process.
///
/// ## Ownership and lifetime
/// The `Environment` object is the single owner of the `MDB_env*`; its `deinit` closes it
/// (`mdb_env_close`). Transactions exist only inside ``read(_:)`` and ``write(_:)``, which hold a
/// reference to the environment while they run, so the environment cannot be closed under a live
/// transaction. To close an environment, drop every reference to it. A directory can be open only
/// once per process at a time (LMDB's rule); a second `init` on it throws `EBUSY`.
///
/// ## Sendable
/// `@unchecked Sendable` because LMDB makes the environment itself thread-safe: opened with
/// `MDB_NOTLS`, read transactions may be begun on any thread concurrently, and LMDB serializes write
/// transactions with its own process-shared mutex. The only mutable Swift state (the database-name
/// cache and the current writer thread) is behind `Mutex`es.
///
/// ## Cost model
/// `read` renews a transaction a finished read kept (``ReadTransactionPool``: no allocation, no
/// reader-table mutex), or takes a reader slot (a short mutex-protected scan of the reader table);
/// batch related reads into one call rather than one call per key, but do not keep a read open for
/// long (see ``ReadTransaction``). `write` commits with an `fsync` unless ``Options/noSync``.
public final class Environment: @unchecked Sendable {
    /// How to open an environment. Defaults suit a server that owns its index directory.
    public struct Options: Sendable {
        /// Size of the memory map in bytes: the upper limit of the data file. Only virtual address
        /// space is reserved; the file grows as pages are used. Writes beyond it fail with
        /// ``StorageError/isMapFull``. Rounded up by LMDB to a whole number of pages. Default 64 GiB.
        public var mapSize: Int = 1 << 36
        /// Maximum number of named databases (`mdb_env_set_maxdbs`). Default 32.
        public var maxDatabases: Int = 32
        /// Maximum number of simultaneous read transactions in all processes (`mdb_env_set_maxreaders`).
        /// Default 512.
        public var maxReaders: Int = 512
        /// Open with `MDB_RDONLY`: no directory or file is created, ``Environment/write(_:)`` throws
        /// `EACCES`.
        public var readOnly: Bool = false
        /// `MDB_NOSYNC`: commits do not `fsync`. A crash may lose recent commits (or, on some file
        /// systems, corrupt the file). For bulk builds: load, then call ``Environment/sync(force:)``.
        public var noSync: Bool = false

        public init() {}
    }

    /// The environment's directory, as given to ``init(path:options:)``.
    public let path: String

    /// The options the environment was opened with.
    public let options: Options

    /// The owned `MDB_env*`.
    let handle: OpaquePointer
    /// Serial number stamped into every ``Database`` from this environment: unique to this open
    /// of the directory within the process (a reopened directory gets a new one).
    public let id: UInt64
    let directory: OpenEnvironments.DirectoryID

    /// Database handles by name, with the flags they really have on disk. The lock also serializes
    /// `mdb_dbi_open`, which LMDB requires ("must not be called from multiple concurrent
    /// transactions").
    let databases = Mutex<[String: (database: Database, flags: DatabaseFlags)]>([:])

    /// Where LMDB mapped the data file in this process, once ``populateMap(from:atMost:)`` has
    /// looked it up (0: not yet). LMDB maps the file once, at open, at ``Options/mapSize``, and
    /// nothing here resizes it, so the address holds for the environment's life.
    let mapAddress = Atomic<UInt>(0)

    /// The thread inside ``write(_:)``, if any: lets a nested write on that thread fail fast instead
    /// of deadlocking on LMDB's non-recursive writer mutex.
    let writer = Mutex<pthread_t?>(nil)

    /// Finished read transactions kept for the next ``read(_:)`` (see ``ReadTransactionPool``).
    let readTransactions = ReadTransactionPool()

    /// Opens the environment in directory `path`, creating the directory (with parents) and its files
    /// if needed, unless ``Options/readOnly``. The lock file's blocks are reserved first (see
    /// ``DiskSpace``), so a full file system fails the open with ``StorageError/isNoSpace``
    /// instead of crashing the process later.
    ///
    /// Always opened with `MDB_NOTLS` (read transactions are not tied to threads, which Swift
    /// concurrency requires) and `MDB_NORDAHEAD` (random access; read-ahead would only evict hot
    /// pages). Files are created with mode 0644.
    ///
    /// Throws: `EBUSY` if `path` is already open in this process, `ENOENT` if it does not exist and
    /// ``Options/readOnly`` is set, `EINVAL` for out-of-range options, or the error of the failing
    /// `mdb_env_*` call. On failure nothing is leaked: the half-opened `MDB_env` is closed.
    public init(path: String, options: Options = .init()) throws {
        guard options.mapSize > 0, (0...Int(Int32.max)).contains(options.maxDatabases),
              (1...Int(Int32.max)).contains(options.maxReaders) else {
            throw StorageError(code: EINVAL, operation: "Environment.init: mapSize, maxDatabases or maxReaders out of range")
        }
        if !options.readOnly {
            try makeDirectories(path)
        }
        try DiskSpace.reserveLockFile(in: path, maxReaders: options.maxReaders)
        let directory = try OpenEnvironments.DirectoryID(path: path)
        let id = try OpenEnvironments.register(directory, path: path)

        var created: OpaquePointer?
        do {
            try check(mdb_env_create(&created), "mdb_env_create")
        } catch {
            OpenEnvironments.unregister(directory)
            throw error
        }
        let handle = created.unsafelyUnwrapped
        do {
            try check(mdb_env_set_mapsize(handle, options.mapSize), "mdb_env_set_mapsize")
            try check(mdb_env_set_maxdbs(handle, MDB_dbi(options.maxDatabases)), "mdb_env_set_maxdbs")
            try check(mdb_env_set_maxreaders(handle, UInt32(options.maxReaders)), "mdb_env_set_maxreaders")
            var flags = MDB_NOTLS | MDB_NORDAHEAD
            if options.readOnly { flags |= MDB_RDONLY }
            if options.noSync { flags |= MDB_NOSYNC }
            try check(mdb_env_open(handle, path, UInt32(flags), 0o644), "mdb_env_open(\"\(path)\")")
        } catch {
            // lmdb.h: "If this function fails, mdb_env_close() must be called to discard the handle."
            mdb_env_close(handle)
            OpenEnvironments.unregister(directory)
            // A new environment's meta pages are its first writes.
            throw DiskSpace.diagnose(error, in: path)
        }
        self.path = path
        self.options = options
        self.handle = handle
        self.id = id
        self.directory = directory
    }

    deinit {
        // No transaction can be running: they only exist inside read/write, which retain `self`.
        // Kept read transactions are ended first (mdb_env_close requires it).
        readTransactions.drain()
        mdb_env_close(handle)
        OpenEnvironments.unregister(directory)
    }

    // MARK: - Transactions

    /// Runs `body` in a read-only snapshot and returns its result; the transaction ends when `body`
    /// returns or throws. Values read are valid only inside `body` (copy what you keep).
    ///
    /// May be called from any thread, concurrently, and also inside a ``write(_:)`` closure (the read
    /// then sees the last *committed* state, not the enclosing write's changes).
    ///
    /// Throws ``StorageError/isReadersFull`` when ``Options/maxReaders`` transactions are open,
    /// or what `body` throws.
    public func read<R>(_ body: (borrowing ReadTransaction) throws -> R) throws -> R {
        let txn = try ReadTransaction(pool: readTransactions, environment: handle, environmentID: id)
        return try body(txn)
    }

    /// Runs `body` in the write transaction: committed if `body` returns, aborted (nothing written)
    /// if it throws. Returns `body`'s result.
    ///
    /// Only one write transaction runs at a time per environment: this call blocks until the current
    /// one (on another thread, or in another process) ends. A write transaction stays on the calling
    /// thread (LMDB requires it; the closure is synchronous). Readers are not blocked.
    ///
    /// Throws `EACCES` (``StorageError/isReadOnly``) on a read-only environment, `EDEADLK` when
    /// called from inside another `write` on the same thread, ``StorageError/isMapFull`` and other
    /// errors of the writes or of `mdb_txn_commit` (a full file system as ``StorageError/isNoSpace``,
    /// naming the directory and its free space), or what `body` throws.
    public func write<R>(_ body: (borrowing WriteTransaction) throws -> R) throws -> R {
        let txn = try beginWrite(operation: "Environment.write")
        defer { endWrite() }
        do {
            let result = try body(txn)
            try txn.commit()
            return result
        } catch let error as StorageError {
            // A page spilled by a put, or the commit's writes, may find the disk full.
            throw DiskSpace.diagnose(error, in: path)
        }
    }

    /// Begins the write transaction and records the calling thread as the writer; pair with
    /// ``endWrite()`` after the transaction is committed or aborted.
    func beginWrite(operation: String) throws -> WriteTransaction {
        if options.readOnly {
            throw StorageError(code: EACCES, operation: "\(operation): environment was opened readOnly")
        }
        let me = pthread_self()
        let nested = writer.withLock { current in current.map { pthread_equal($0, me) != 0 } ?? false }
        if nested {
            throw StorageError(code: EDEADLK, operation: "\(operation): a write transaction is already open on this thread")
        }
        let txn = try WriteTransaction(environment: handle, environmentID: id)
        writer.withLock { $0 = me }
        return txn
    }

    func endWrite() {
        writer.withLock { $0 = nil }
    }
}
