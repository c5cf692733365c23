#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What this module does so that a full file system is an error, never a crash.
///
/// LMDB maps two files. `data.mdb` is only ever *read* through the map: pages are written with
/// `pwrite` (the environment is never opened with `MDB_WRITEMAP`), so a full disk makes a write
/// fail, and a failed write transaction leaves the committed data as it was. `lock.mdb`, the
/// reader table, is written through a shared map: LMDB sizes it with `ftruncate`, which only
/// makes a sparse file, and the first store into a page the file system cannot back raises
/// SIGBUS (a small full tmpfs does it at once). So the lock file's blocks are reserved with
/// `posix_fallocate` before LMDB maps it: no space then fails the open with ENOSPC.
///
/// A write that runs out of space reports ENOSPC, or EIO when LMDB saw a short write; either
/// is turned into one clear error naming the directory and its free space (``StorageError/isNoSpace``).
public enum DiskSpace {
    /// The bytes LMDB gives `lock.mdb` for `maxReaders` slots on 64-bit Linux: `(maxReaders − 1)`
    /// 64-byte reader records after a 192-byte header (`MDB_txninfo`). Exactly that: LMDB keeps a
    /// larger file as it is and counts the extra room as reader slots.
    static func lockFileBytes(maxReaders: Int) -> Int {
        (maxReaders - 1) * 64 + 192
    }

    /// Reserves the blocks of `directory/lock.mdb` (creating it if missing). Throws ENOSPC, with the
    /// free space, when the file system cannot hold them. A directory that cannot be written (a
    /// read-only open of someone else's shard) is left to LMDB.
    static func reserveLockFile(in directory: String, maxReaders: Int) throws(StorageError) {
        let path = directory + "/lock.mdb"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = lockFileBytes(maxReaders: maxReaders)
        var status = stat()
        guard fstat(fd, &status) == 0 else { return }
        let rc = posix_fallocate(fd, 0, off_t(max(bytes, Int(status.st_size))))
        if rc == ENOSPC || rc == EDQUOT {
            throw full(directory, operation: "reserving \(bytes) bytes for lock.mdb")
        }
        // EOPNOTSUPP (a file system without fallocate) and others: LMDB sizes the file itself.
    }

    /// Bytes free for an unprivileged writer in the file system holding `path`, if known.
    static func freeBytes(_ path: String) -> Int? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// A short write is reported as EIO by LMDB; below this much free space it means "full".
    static let nearlyFull = 4 << 20

    /// `error` restated as "no space" when it is one: ENOSPC or EDQUOT, or EIO while the file system
    /// holding `directory` has almost nothing free. Otherwise `error` itself. (Also for files other
    /// modules write beside an environment: a build's spill files.)
    public static func diagnose(_ error: StorageError, in directory: String) -> StorageError {
        switch error.code {
        case ENOSPC, EDQUOT:
            return full(directory, operation: error.operation)
        case EIO:
            guard let free = freeBytes(directory), free < nearlyFull else { return error }
            return full(directory, operation: error.operation)
        default:
            return error
        }
    }

    private static func full(_ directory: String, operation: String) -> StorageError {
        let free = freeBytes(directory).map { "\($0) bytes free" } ?? "free space unknown"
        return StorageError(code: ENOSPC, operation: "\(operation) in \(directory): the file system is full (\(free))")
    }
}
