import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Files replaced atomically and durably: write a temporary, fsync, rename, fsync the directory.
public enum DurableFile {
    public static func replace(_ path: String, with data: Data) throws {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StorageError(code: errno, operation: "cannot write \(temporary)") }
        do {
            try writeAll(fd, Array(data), path: temporary)
        } catch {
            close(fd)
            throw error
        }
        let synced = fsync(fd)
        close(fd)
        guard synced == 0 else { throw StorageError(code: errno, operation: "cannot sync \(temporary)") }
        guard rename(temporary, path) == 0 else {
            throw StorageError(code: errno, operation: "cannot replace \(path)")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let dirfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirfd >= 0 {
            _ = fsync(dirfd)
            close(dirfd)
        }
    }

    /// Appends `bytes` to the file at `path` (created if missing) and syncs its data. With `offset`,
    /// the file is first cut back to that length, dropping anything past it (a write torn by a
    /// crash); without, the bytes go after whatever is there.
    public static func append(_ bytes: [UInt8], to path: String, at offset: Int? = nil) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (offset == nil ? O_APPEND : 0), 0o644)
        guard fd >= 0 else { throw StorageError(code: errno, operation: "cannot open \(path)") }
        defer { close(fd) }
        if let offset {
            guard ftruncate(fd, off_t(offset)) == 0, lseek(fd, off_t(offset), SEEK_SET) >= 0 else {
                throw StorageError(code: errno, operation: "cannot prepare \(path)")
            }
        }
        try writeAll(fd, bytes, path: path)
        guard fdatasync(fd) == 0 else { throw StorageError(code: errno, operation: "cannot sync \(path)") }
    }

    /// write(2) until every byte is written (it may write less than asked).
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw StorageError(code: errno, operation: "cannot write \(path)")
            }
            offset += written
        }
    }
}
