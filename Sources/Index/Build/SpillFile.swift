import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Storage

/// A temporary file a build spills to (sorted runs, posting buckets), written once front to back
/// and then read once front to back. The build's only file system calls besides LMDB's: open(2),
/// write(2), read(2), close(2) and unlink(2), with EINTR retried here and every error turned into
/// a `StorageError` naming the file; a full file system is ``StorageError/isNoSpace``, as LMDB's
/// writes are (``DiskSpace``): the generation being built is removed and the current one keeps
/// serving.
///
/// Writes are buffered (``bufferSize``) so that a run of small records costs one system call per
/// buffer; reads fill the caller's buffer.
///
/// Thread ownership: one thread at a time (a build's).
final class SpillFile {
    let path: String
    private var descriptor: Int32
    private var pending: [UInt8] = []
    /// Bytes written so far (buffered ones included).
    private(set) var size = 0
    /// Bytes gathered before a write(2).
    static let bufferSize = 1 << 20

    /// Creates (or truncates) the file at `path`, open for writing.
    init(creating path: String) throws {
        self.path = path
        var fd: Int32
        repeat { fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw Self.failure("cannot create", path, errno) }
        descriptor = fd
        pending.reserveCapacity(Self.bufferSize)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        unlink(path)
    }

    /// Appends `bytes` (buffered).
    func append(_ bytes: UnsafeRawBufferPointer) throws {
        pending.append(contentsOf: bytes)
        size += bytes.count
        if pending.count >= Self.bufferSize { try flush() }
    }

    /// Writes what is buffered and rewinds the file for reading from its start.
    func finishWriting() throws {
        try flush()
        pending = []
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw Self.failure("cannot rewind", path, errno) }
    }

    /// Reads at most `buffer.count` bytes into `buffer`, after ``finishWriting()``; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { throw Self.failure("cannot read", path, errno) }
        }
    }

    private func flush() throws {
        var offset = 0
        while offset < pending.count {
            let written = pending.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw Self.failure("cannot write", path, errno)
            }
            offset += written
        }
        pending.removeAll(keepingCapacity: true)
    }

    private static func failure(_ what: String, _ path: String, _ code: Int32) -> StorageError {
        let directory = (path as NSString).deletingLastPathComponent
        return DiskSpace.diagnose(StorageError(code: code, operation: "\(what) the build's spill file \(path)"), in: directory)
    }
}
