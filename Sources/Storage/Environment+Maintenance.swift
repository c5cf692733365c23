internal import CLMDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Environment {
    /// Flushes the data file to disk (`mdb_env_sync`). With `force: false` the flush may be
    /// asynchronous (`MDB_MAPASYNC`). Needed only with ``Options/noSync``; throws `EACCES` on a
    /// read-only environment.
    public func sync(force: Bool = true) throws {
        do {
            try check(mdb_env_sync(handle, force ? 1 : 0), "mdb_env_sync")
        } catch {
            throw DiskSpace.diagnose(error, in: path)
        }
    }

    /// Writes a consistent snapshot of the environment to `directory` (`mdb_env_copy2`), which is
    /// created if missing and must not contain a `data.mdb` (else `EEXIST`). With `compacting`
    /// (`MDB_CP_COMPACT`) free pages are omitted and pages renumbered: slower, smaller file.
    /// Runs in its own read transaction, so writers continue meanwhile. O(size of the data).
    public func copy(to directory: String, compacting: Bool) throws {
        try makeDirectories(directory)
        let flags = compacting ? UInt32(MDB_CP_COMPACT) : 0
        do {
            try check(mdb_env_copy2(handle, directory, flags), "mdb_env_copy2(\"\(directory)\")")
        } catch {
            throw DiskSpace.diagnose(error, in: directory)
        }
    }

    /// Sizes and usage of the environment (`mdb_env_info` and `mdb_env_stat`).
    public struct Statistics: Sendable {
        /// Size of the memory map (the file's upper limit), in bytes.
        public var mapSize: Int
        /// Database page size, in bytes.
        public var pageSize: Int
        /// Bytes of the data file in use as of the last commit: `(last page number + 1) × pageSize`.
        public var usedBytes: Int
        /// Reader slots in the lock file.
        public var maxReaders: Int
        /// Reader slots currently in use (by any process).
        public var readersInUse: Int
    }

    /// Current ``Statistics``. O(1).
    public func statistics() throws -> Statistics {
        var info = MDB_envinfo()
        try check(mdb_env_info(handle, &info), "mdb_env_info")
        var stat = MDB_stat()
        try check(mdb_env_stat(handle, &stat), "mdb_env_stat")
        let pageSize = Int(stat.ms_psize)
        return Statistics(
            mapSize: info.me_mapsize,
            pageSize: pageSize,
            usedBytes: (info.me_last_pgno + 1) * pageSize,
            maxReaders: Int(info.me_maxreaders),
            readersInUse: Int(info.me_numreaders)
        )
    }

    /// The id of the last committed write transaction, by this or any other process: it changes
    /// with every commit, so two reads that see the same id see the same data. Cheap and lock-free
    /// (`mdb_env_info` reads the newer of the two meta pages in the map), so a reader may call it
    /// per request to key a cache of answers.
    public var lastCommittedTransaction: Int {
        var info = MDB_envinfo()
        // mdb_env_info fails only on a null argument.
        guard mdb_env_info(handle, &info) == MDB_SUCCESS else { return -1 }
        return info.me_last_txnid
    }

    /// The longest key LMDB accepts, in bytes (511 for the default build); also the limit for
    /// values in ``DatabaseFlags/duplicateSort`` databases.
    public var maxKeySize: Int {
        Int(mdb_env_get_maxkeysize(handle))
    }

    /// Releases reader slots left behind by processes that died inside a read transaction
    /// (`mdb_reader_check`) and returns how many were cleared. Such slots pin old pages and make the
    /// file grow; call this at startup of a process that shares the environment.
    @discardableResult
    public func clearStaleReaders() throws -> Int {
        var dead: Int32 = 0
        try check(mdb_reader_check(handle, &dead), "mdb_reader_check")
        return Int(dead)
    }
}
