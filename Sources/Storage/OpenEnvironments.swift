import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process-wide set of open environment directories.
///
/// lmdb.h: "Do not have open an LMDB database twice in the same process at the same time. Not even
/// from a plain open() call — close()ing it breaks flock() advisory locking." Two `Environment`s on
/// one directory would also each believe they own the single writer slot's bookkeeping. Directories
/// are identified by device and inode, so symlinks and different spellings of a path are caught too.
enum OpenEnvironments {
    struct DirectoryID: Hashable {
        let device: UInt64
        let inode: UInt64

        init(path: String) throws(StorageError) {
            var info = stat()
            guard stat(path, &info) == 0 else {
                throw StorageError(code: errno, operation: "stat(\"\(path)\")")
            }
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw StorageError(code: ENOTDIR, operation: "Environment.init: \"\(path)\" is not a directory")
            }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    private struct State {
        var open: Set<DirectoryID> = []
        var lastSerial: UInt64 = 0
    }

    private static let state = Mutex(State())

    /// Claims `directory` and returns a fresh serial number for the environment; throws `EBUSY` if
    /// the directory is already open in this process.
    static func register(_ directory: DirectoryID, path: String) throws(StorageError) -> UInt64 {
        let serial: UInt64? = state.withLock { state in
            guard state.open.insert(directory).inserted else { return nil }
            state.lastSerial += 1
            return state.lastSerial
        }
        guard let serial else {
            throw StorageError(code: EBUSY, operation: "Environment.init: \"\(path)\" is already open in this process")
        }
        return serial
    }

    static func unregister(_ directory: DirectoryID) {
        _ = state.withLock { $0.open.remove(directory) }
    }
}

/// `mkdir -p`: creates `path` and any missing parents with mode 0755. Succeeds if it already exists as
/// a directory.
func makeDirectories(_ path: String) throws(StorageError) {
    var info = stat()
    if stat(path, &info) == 0 {
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw StorageError(code: ENOTDIR, operation: "mkdir(\"\(path)\")")
        }
        return
    }
    // Create the parent first: everything before the last "/" that is followed by something.
    var trimmed = Substring(path)
    while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
    if let slash = trimmed.lastIndex(of: "/"), slash != trimmed.startIndex {
        try makeDirectories(String(trimmed[..<slash]))
    }
    if mkdir(path, 0o755) != 0 && errno != EEXIST {
        throw StorageError(code: errno, operation: "mkdir(\"\(path)\")")
    }
}
